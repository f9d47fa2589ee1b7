"""What each `docflow` command prints with --json: a contract, in each command's --help and in
docs/cli.md. A change here is a change for every script that reads the output."""

from __future__ import annotations

from typing import TypedDict

from docflow.cli.orders import ORDERS_SHAPE
from docflow.cost import CostEstimate
from docflow.ids import name_of
from docflow.readmodel.items import DocumentState, ReviewLink
from docflow.trace.report import JSON_SHAPE as TRACE_SHAPE
from docflow.trace.stuck import Stuckness

OTEL_SHAPE = (
    'with --otel: {"traceId", "runId", "traceIds": [trace id] (the trace ids its spans carry: '
    'one), "parts": {scope: int} (spans by part: docflow.starter, docflow.orchestrator, '
    'docflow.callback-api, docflow.status-recorder), "spans": [SPAN]} oldest start first; '
    'SPAN = {"traceId", "spanId", "parentSpanId", "name", "part", "kind", "start", "end", '
    '"durationMs", "status" (UNSET|OK|ERROR), "statusMessage", "attributes": {key: value}, '
    '"events": [{"name", "at", "attributes"}], "links": [{"traceId", "spanId"}]}'
)
LIST_ITEM = (
    '{"documentId", "version", "key", "name": what a person calls it (a packet\'s part: '
    '"post.pdf, pages 2\u20133"), "status", "stage", "pendingSince", "updatedAt", '
    '"reviewers": [address], "reviewLinks": [{"reviewer", "linkId"}], "reason", "failedAt", '
    '"functionVersion"} '
    "(absent values are null; a link id names a link, the link is only in the mail)"
)


class Submitted(TypedDict, total=False):
    """`submit --json`'s item: a document uploaded, and what `run` follows it by. A packet's
    part, as its packet's run started it, adds its pages and its packet's key."""

    documentId: str
    version: str
    runId: str
    path: str
    key: str
    bucket: str
    prefix: str
    parentPages: list[int] | None
    packetKey: str


class RunRow(TypedDict, total=False):
    """`run --json`'s item (JSON_SHAPES["run"])."""

    documentId: str
    version: str
    path: str
    key: str
    bucket: str
    status: str
    pages: int | None
    blankPages: int
    engines: list[str]
    docType: str | None
    sensitive: dict[str, int]
    stage: str | None
    reviewLinks: list[ReviewLink]
    reason: str | None
    cost: CostEstimate | None
    children: list[RunRow]
    parentPages: list[int] | None


class JobRow(TypedDict):
    """`jobs --json`'s item (JOBS_JSON)."""

    jobName: str | None
    jobId: str | None
    status: str | None
    records: int
    succeeded: int | None
    failed: int | None
    createdAt: str | None
    modelId: str | None


class PileJob(JobRow):
    documents: int  # this pile's documents in the job


class PileCost(TypedDict):
    """A pile's cost by how its documents were enriched (BACKFILL_JSON's "cost")."""

    mode: str
    engine: str
    documents: int
    usd: float
    bedrockUsd: float
    bedrockOnDemandUsd: float  # what the same tokens cost on demand through Bedrock


class PileSummary(TypedDict):
    jobs: list[PileJob]
    onDemand: dict[str, int]  # documents enriched on demand, by why
    cost: list[PileCost]


class ListItem(TypedDict):
    """LIST_ITEM: one document in `pending`, `stuck` and `failed`."""

    documentId: str | None
    version: str | None
    key: str | None
    name: str
    status: str | None
    stage: str | None
    pendingSince: str | None
    updatedAt: str | None
    reviewers: list[str]
    reviewLinks: list[ReviewLink]
    reason: str | None
    failedAt: str | None
    functionVersion: str | None


class StuckItem(ListItem, Stuckness):
    """`stuck`'s item: LIST_ITEM and why it counts as stuck."""


def list_item(i: DocumentState) -> ListItem:
    """A read-model item as the listings print it (LIST_ITEM in the --json shapes)."""
    return {
        "documentId": i.get("documentId"),
        "version": i.get("version"),
        "key": i.get("key"),
        "name": name_of(i),
        "status": i.get("status"),
        "stage": i.get("stageName"),
        "pendingSince": i.get("pendingSince"),
        "updatedAt": i.get("updatedAt"),
        "reviewers": i.get("reviewers", []),
        "reviewLinks": i.get("reviewLinks", []),
        "reason": i.get("reason"),
        "failedAt": i.get("failedAt"),
        "functionVersion": i.get("functionVersion"),
    }


BACKFILL_JSON = (
    '{"pile": the pile\'s folder (s3 key prefix), "expected": int (the manifest\'s count), '
    '"documents": [the rows of `run`], "jobs": [JOB + "documents": int (this pile\'s '
    'documents in it)], "onDemand": {reason: int} (documents enriched on-demand, by why: '
    '"below-batch-minimum", "pool-timeout", "record-error", "invalid-answer", "job-expired", '
    '"job-failed", "job-stopped", "batch-wait-ended"), "cost": [{"mode": "batch"|"on-demand", '
    '"engine": "bedrock"|"rules", "documents": int, "usd", "bedrockUsd", "bedrockOnDemandUsd": '
    "what the same tokens cost on demand through Bedrock}] (the pile's cost by how its "
    "documents were enriched)}; JOB as in `jobs`"
)
JOBS_JSON = (
    '[{"jobName", "jobId", "status", "records": int, "succeeded": int|null, '
    '"failed": int|null, "createdAt", "modelId"}], oldest first; succeeded and failed are the '
    "job's manifest counts, null until it ended"
)
DEPLOY_SHAPE = (
    '{"version": int, "source": folder, "digest": sha256 of the code, "publishedAt", '
    '"live": true, "unchanged": bool} (unchanged: live already ran this code, nothing was '
    "published, the fields are live's version); a refused deploy prints `docflow: ...` on "
    "stderr, exits 2, and live stays where it was"
)
VERSIONS_SHAPE = (
    '[{"version": int, "live": bool, "openExecutions": int|null (null: the local stack is '
    'stopped, so nobody can say), "source", "digest", "publishedAt"}] oldest first (in AWS '
    'source, digest and publishedAt are null); `prune` prints [{"version", "removed": bool, '
    '"reason": "" | "live" | "held by N open execution(s)"}]'
)
SUPPLIER = (
    '{"supplierId", "name", "aliases": [name], "ids": {kind: [value]} (kinds: vat, siret, '
    'siren, kvk, cnpj, cuit, gstin, abn, ein, iban), "currency": ISO 4217|null, "profile": '
    '{...} (learned before layouts; no longer read), "profileVersion": int}'
)
ENTRY = (
    '{"label", "region": [x0, y0, x1, y1], "page", "shape", "offset": [dx, dy], "absent": '
    'bool, "value": the issuer\'s name (a constant), "confirmed" (agreeing reviews in its '
    'streak), "since" (the run id of the review that began it), "graded": {"hits", "misses", '
    '"last": "hit"|"miss", "at", "run"} (its shadow reads against the approved values), '
    '"reviewers": [address], "misses", "suspended": bool, "suspendedWhy": "misses"|"streak"}'
)
LAYOUT = (
    '{"layoutId": "L-...", "issuer": name|null, "supplierId": id|null (the registered supplier '
    'a checked id or IBAN named when it was taught), "docType", "language", "profile": '
    f'{{"fields": {{field: ENTRY}}, "runs": [run id], "fingerprint": [[masked text, x0, y0]]}}, '
    f'"version": int}}; ENTRY = {ENTRY}'
)
HISTORY = (
    '"history": [{"at", "what": "imported"|"replaced"|"approved"|"removed"|"profile"|"reset", '
    '"by", "detail", "documentId", "version", "proposalId"}] oldest first'
)
PROPOSAL = (
    '{"proposalId", "name" (as printed on the page), "reviewerName": the vendor name its '
    'reviewer approved where not the printed one|null, "ids": {kind: [value]} (IBANs masked), '
    '"currency", "documentId", "version", "proposer", "proposedAt", "status": "pending"|'
    '"conflict"|"approved"|"rejected", "conflict": what it collides with|null, "decidedBy", '
    '"decidedAt", "reason"}'
)
SUPPLIER_SHAPES = {
    "import": f'{{"imported": int, "replaced": [CHANGED], "suppliers": [SUPPLIER]}}; SUPPLIER '
    f'= {SUPPLIER}; CHANGED = {{"row", "supplierId", "changes": [text]}}. A bad file prints '
    '{"error": message naming the row or the file, "row": int|null} and imports nothing (exit '
    '2); rows registered already, without --replace, add "existing": [CHANGED] (exit 2)',
    "list": "[SUPPLIER, ...] by name, SUPPLIER as in `import`",
    "show": f'a supplier: SUPPLIER as in `import` plus {HISTORY} and "layouts": [LAYOUT] (those '
    f"taught under it); a layout id (L-...): LAYOUT plus its history; LAYOUT = {LAYOUT}; "
    "null and exit 4 when there is none",
    "remove": '{"supplierId", "removed": bool}',
    "proposals": f"[PROPOSAL, ...] oldest first; PROPOSAL = {PROPOSAL}",
    "approve": '{"proposalId", "status": "approved", "by", "supplierId"}; refused (its own '
    'proposer, two names and no --name, a conflict, decided already): {"error"} (exit 2); no '
    "such proposal: null (exit 4)",
    "reject": '{"proposalId", "status": "rejected", "by"}; refused: {"error"} (exit 2)',
    "layouts": "[LAYOUT, ...] by id, LAYOUT as in `show`",
    "profile": '`profile reset`: {"layoutId", "field", "reset": bool, "by"} (exit 4 and '
    '"reset": false when the layout has no such field; null when there is no such layout)',
    "--by": '{"error"} (exit 2): who acts is the authenticated principal, never a typed name',
}
AUDIT_COUNTS = (
    '"graded": {"documents": int (reviews that graded a layout\'s shadow read: the audit\'s '
    'first window), "values": int, "misses": int, "wrongShare": SHARE|null}, "sampled": '
    '{"documents": int (sent to the audit stage), "audited": int (audits approved), "values": '
    'int (profile values they checked), "misses": int (values the auditors corrected), '
    '"documentsWithMiss": int, "wrongShare": SHARE|null}, "unreviewed": int (documents read on '
    'a layout that finalized with no person), "unreviewedValues": int (their profile values), '
    '"expectedWrongValues": SHARE|null (the sample\'s share of unreviewedValues); SHARE = '
    '{"share", "low", "high"} (misses / values and its 95% Wilson interval; null before any)'
)
AUDIT_SHAPE = (
    '{"layouts": [{"layoutId", "issuer": str|null, "supplierId": str|null, COUNTS}] by id, '
    f'"overall": {{COUNTS}}, "confidence": 0.95, "method": "wilson"}}; COUNTS = {AUDIT_COUNTS}'
)
JSON_SHAPES = {
    "up": '{"running": bool, "pid": int|null, "hostPid": int|null, "state", "moto", '
    '"runner", "host", "review": URL, "stats": {"intakeInFlightPeak", '
    '"intakeMaxConcurrency", "intakeBatches", "intakeEmptyReceives", "hostRestarts", '
    '"journalBytes", "journalRecords", "journalFsyncs", "compactions", "runnerRecords", '
    '"runnerBytes", "runnerFsyncs", "runnerCompactions", "runnerLiveExecutions", "awsRequests": '
    "{service: {operation: int}} (every request moto, the durable runner and the functions' "
    'host answered since the stack started; Invokes as "Invoke FUNCTION")}, "recovery": {} '
    'after a clean stop, else {"uncleanStop", "at", "journalRecordsReplayed", '
    '"journalRecordsRefused", "tornRecordDropped", "snapshotGeneration", "executionsResumed", '
    '"callbacksRearmed", "startClaimsReleased", "messagesToRedeliver", "messagesQueued"}}',
    "down": '{"stopped": bool}',
    "deploy": DEPLOY_SHAPE,
    "versions": VERSIONS_SHAPE,
    "status": 'the `up` object without "recovery", plus "portBase": int, "log": the '
    'supervisor\'s log file, and "aws": {"endpointUrl", "region", "accessKeyId", '
    '"secretAccessKey", "documentBucket", "incomingPrefix", "artifactBucket", "tableName", '
    '"env": {VARIABLE: value}} (what your own AWS client needs to use the local stack: '
    '`aws --endpoint-url`, or the variables in "env")',
    "submit": '[{"documentId", "version", "runId", "path", "key", "bucket", "prefix"}]',
    "run": '[{"documentId", "version", "path", "key", "bucket", "status", "pages": int|null, '
    '"blankPages": int, "engines": [name], "docType", "sensitive": {detector: count}, "stage", '
    '"reviewLinks": [{"reviewer", "linkId"}], "reason", "cost": COST|null, "children": [ROW + '
    '"parentPages": [first, last]] (a packet only: its parts, each a document, in page '
    "order)}], COST as in `show`; the links themselves are printed from the local mailbox",
    "backfill": BACKFILL_JSON,
    "jobs": JOBS_JSON,
    "pending": f"[ITEM, ...] or, when there is a next page, "
    f'{{"items": [ITEM, ...], "nextToken": str}}; ITEM = {LIST_ITEM}',
    "stuck": 'as `pending`, ITEM with "operation": the durable operation the run is on '
    '(its name under its outermost open parent, e.g. "read pages > batch-3" or "review-0") '
    'or null when the execution has none open, "kind" (step|wait|callback|map|context|...) '
    'or null, "since" (ISO 8601, when that operation started) or null, "why" (why it counts '
    "as stuck, in words: a step running longer than a step should, a step retrying and its "
    "last error, a review wait past its stage's timeout, an execution that ended without a "
    'report), and "executionStatus" (RUNNING, SUCCEEDED, FAILED, TIMED_OUT, STOPPED, or null '
    "when no execution has the run's name); a document waiting on a reviewer before its "
    "reviewDeadline is not stuck",
    "failed": "as `pending`",
    "show": '{"state": STATE|null, "history": [REPORT, ...], "stages": [STAGE, ...], "fields": '
    'FIELDS (a document whose type declares fields), "einvoice": EINVOICE (an '
    'e-invoice only: docs/einvoice.md)}; STAGE = {"index", "name", "status": '
    '"planned"|"waiting"|"approved"|"rejected"|"timed-out", "addedLater": true (a stage the '
    'run added after classify, e.g. duplicate), "reviewers" (waiting), "reviewer", '
    '"decidedAt", "rejectReason", "comment", "corrected": [field] (decided)}, every review '
    'stage of the current run read from its history; FIELDS = STATE\'s "fields" with every '
    "correction approved so far in place (the state takes them only when it finalizes); STATE "
    "has documentId, "
    "version, runId, runOrder, status, stage, seq, updatedAt, firstSeenAt, functionVersion "
    '(the function version the execution started and resumes on: "1", "2", ...), the summary '
    'fields reports carried (pages, engines (blank pages count as the engine "blank"), '
    "docType, sensitive, activeContent (when the PDF holds active content, any of "
    '["external", "javascript", "launch", "unknown", "xfa"] sorted: "unknown" when it could '
    "not be fully checked), reason, message (a failure's), stageName, "
    "reviewer, comment and rejectReason (a decided stage's), resultKey, ...) and, "
    'once finalized or archived, "cost": {"docType", "operations", "retries", "stepMs", '
    '"steps", "stepsTimed" (steps whose start and end the runner timed apart: when it is '
    'below "steps", "stepMs" and usdBy.lambda leave the rest out), "memoryMb", "pages": '
    '{engine: n}, "textractCalls", "bedrockCalls", '
    '"bedrockInputTokens", "bedrockOutputTokens", "bedrockBatchCalls", '
    '"bedrockBatchInputTokens", "bedrockBatchOutputTokens", "analyzeExpensePages", '
    '"analyzeDocumentPages", "analyzeDocumentTablePages", "usdBy": '
    '{"durable", "lambda", "textract", "bedrock"}, "usd"}; a document whose type declares '
    'fields (docs/fields.md) adds "fields": {name: {"value", "confidence", "page", '
    '"box": [x0, y0, x1, y1] (page-relative) or null}} (a table field adds "rows": '
    '[{column: value}] and its "value" says how '
    'many, "3 rows"; an advisory table whose checks did not all run and pass adds '
    '"unverified": true; a corrected field adds "original" (a table\'s: the rows read), '
    '"correctedBy", "correctedAt"; '
    'a value holding a detected number is masked to its last four and adds "masked": the '
    'detector, e.g. "card_number", with a "sensitive-value" check) '
    'and "fieldChecks": [{"field", "code", "message"}]; a document holding a duplicate '
    "key another document (or a finalized earlier version) holds, or near one "
    '(docs/payment-controls.md) adds "duplicateOf": '
    '[{"documentId", "version", "status", "number", "date", "total", "currency", "vendor", '
    '"key", "by": ["number"|"amount"|"bill"|"window"|"declared"]}], and "duplicateKeys" '
    "lists the digests of the duplicate claims it holds; a finalized new version that "
    'replaces a finalized one has "replaces": {"documentId", "version", "resultKey"}; '
    "a document the supplier registry was consulted for (docs/suppliers.md, "
    'docs/payment-controls.md) adds "supplier", "ibans": [{"iban" (masked), "valid", "owner": '
    '"issuer"|"other", "why", "page"}] and "bank": {"verdict": "registered"|"no-payee"|'
    '"unregistered"|"other-supplier"|"unrecognized"|"unreadable"|"unknown-supplier", '
    '"printed": [{"iban" (the account masked), "kind" (uk|us|de|other; absent for an IBAN), '
    '"valid" (false when no check recognizes it), "bank", "bic", "registered", "holder"}], '
    '"supplierId", "registered": [{"iban", "bank", "bic"}], "message"}; '
    'after triage "docType" is the '
    'reviewer\'s pick (the triage stage\'s "approved" REPORT has "docType" and "reviewer"); '
    'once enriched (after classify): "enrichment": {"mode": "on-demand"|'
    '"batch", "engine": "rules"|"bedrock", "status": "complete"|"incomplete", "key" (the '
    'full enrichment in S3), "jobId" (batch only), "onDemandReason" (a pile document '
    'enriched on-demand: why, docs/piles-backfill.md), "reason" (incomplete only)} and, when '
    'complete, "summary": {"title", "abstract"} and "risk": {"level": "low"|"medium"|'
    '"high", "reasons": [{"code", "message", "page"}]}; a packet (docType "packet") has "parts" '
    '(how many documents it was split into) and "partsFailed" (how many could not be written), '
    'and the object adds "children": [{"documentId", "key", "status", "stageName", "docType", '
    '"reason", "parentPages": [first, last], "runId", "updatedAt"}] in page order; a part has '
    '"parentId" (its packet), "parentRunId" and "parentPages": [first, last] (its pages in the '
    'packet); REPORT = {"documentId", "version", "runId", "runOrder", "eventId", "stage", '
    '"status", "seq", "at", "cause", "payload"} (a payload too large for the read model\'s '
    "item is read back whole from S3, as is the STATE: docs/records.md; an attribute whose S3 "
    'object is gone stays compact and is named in "detail": {attribute: {"key", "count"}}); '
    "an invoice citing a purchase order has, while it waits for the order or a receipt "
    '(status "awaiting-match"), "awaiting": {"kind": "order"|"receipt", "order", "supplier", '
    '"deadline", "receipts"}, and once finalized "match" (docs/matching.md: "status", '
    '"matched", "basis", "differences", "tolerance", "overriddenBy", "note", ...); '
    'an e-invoice\'s STATE has "einvoice": {"key", '
    '"source", "syntax", "customization", "typeCode", "lines" (a count), "lineTotal", "valid", '
    '"fatal": [rule id], "warnings" (a count), "skipped"}, and EINVOICE = {"source": "xml"|'
    '"hybrid", "currency", "findings": [{"rule", "severity": "fatal"|"warning", "text"}] (its '
    'validation), "readFrom": the S3 key its lines were read from (final.json once finalized, '
    'else einvoice.json) or null, "lines": [{"line_id", "description", "quantity", "unit", '
    '"unit_price", "net", "vat_category", "vat_rate"}] or null (its data could not be read), '
    '"vat": [{"category", "rate", "taxable", "tax"}] or null}, every value a string exactly as '
    "the XML wrote it (or null)",
    "trace": f"{TRACE_SHAPE}; {OTEL_SHAPE}",
    "reprocess": '{"documentId", "runId", "started": bool, "generation": int}',
    "mail": '[{"id", "from", "to": [address], "subject", "body" (HTML), "sentAt" (ISO '
    "8601, when the stack's mailbox export first saw it: to within a few seconds)}], oldest "
    "first, as the local SES accepted them",
    "dashboard": '{"url": str, "running": bool}',
    "inbox": '{"reviewer": address, "url": the inbox link, "expiresAt": epoch seconds, '
    '"pending": int (items waiting on the reviewer)}',
    "reviewers": 'revoke: {"reviewer": address, "revoked": true, "revokedAt": epoch seconds '
    "(the first revocation's; revoking again changes nothing)}; revoke-link: "
    '{"reviewer": address|null (whom the link named; null when it no longer verifies), '
    '"linkRevoked": true}',
    "suppliers": "import: "
    + SUPPLIER_SHAPES["import"]
    + "; list: "
    + SUPPLIER_SHAPES["list"]
    + "; show: "
    + SUPPLIER_SHAPES["show"]
    + "; remove: "
    + SUPPLIER_SHAPES["remove"]
    + "; proposals: "
    + SUPPLIER_SHAPES["proposals"]
    + "; approve: "
    + SUPPLIER_SHAPES["approve"]
    + "; reject: "
    + SUPPLIER_SHAPES["reject"]
    + "; layouts: "
    + SUPPLIER_SHAPES["layouts"]
    + "; profile reset: "
    + SUPPLIER_SHAPES["profile"]
    + "; any action with --by: "
    + SUPPLIER_SHAPES["--by"],
    "audit": AUDIT_SHAPE,
    "orders": ORDERS_SHAPE,
    "events": "[EVENT, ...]; with --follow one EVENT per line (JSON Lines). EVENT is "
    'EventBridge\'s envelope {"version", "id", "detail-type", "source": "docflow", '
    '"account", "time", "region", "resources", "detail": {"eventId" (de-duplicate on '
    'it), "documentId", "version", "runId", "status", "at", "reason", "resultKey", "key", '
    'and per type: finalized "summary", "fields", "cost", "match" (an invoice citing an order: '
    'docs/matching.md) (and "detail": {attribute: {"key", '
    '"count"}} only when the whole fields would not fit an event: "fields" are then compact, '
    'a table\'s rows given as "rowCount" and "sums", docs/records.md); archived "cost"; '
    'review-requested "stageIndex", "stageName", "reviewDeadline"; review-decided '
    '"stageIndex", "stageName", "decision", "decidedAt"}}',
}
