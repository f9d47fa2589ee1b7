"""The `docflow` command: run the local stack, put documents through it, ask the read model.

    docflow up | down | status
    docflow submit PATH... [--key K]
    docflow run PATH...                  start the stack if needed, submit, wait, print a table
    docflow backfill PATH...             the same under the pile prefix (Bedrock batch jobs)
    docflow jobs                         the batch inference jobs the batcher started
    docflow pending | stuck --older-than 15m | failed | show DOC
    docflow reprocess DOC
    docflow mail                         review e-mails sent through the local SES
    docflow inbox ADDRESS                a reviewer's inbox link (local stack)
    docflow reviewers revoke ADDRESS     that reviewer's links answer 403 from now on
    docflow suppliers import FILE.csv | list | show ID | remove ID
    docflow dashboard                    the operators' page on the local stack
    docflow events [--follow]            the domain events a downstream system received

Every reporting command takes --json; `docflow CMD --help` shows the shape it prints.
Against AWS instead of the local stack, set DOCFLOW_TABLE_NAME (and credentials) and use the
query commands.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from docflow.cli import documents, piles, queries, reviewers, stack, suppliers
from docflow.cli.output import stdout_closed

LIST_ITEM = (
    '{"documentId", "version", "key", "status", "stage", "pendingSince", "updatedAt", '
    '"reviewers": [address], "reviewLinks": [{"reviewer", "linkId"}], "reason", "failedAt"} '
    "(absent values are null; a link id names a link, the link is only in the mail)"
)
# The shape each command prints with --json: a contract, also in README.md.
JSON_SHAPES = {
    "up": '{"running": bool, "pid": int|null, "hostPid": int|null, "state", "moto", '
    '"runner", "host", "review": URL, "stats": {"intakeInFlightPeak", '
    '"intakeMaxConcurrency", "intakeBatches", "intakeEmptyReceives", "hostRestarts", '
    '"journalBytes", "journalRecords", "journalFsyncs", "compactions"}, "recovery": {} '
    'after a clean stop, else {"uncleanStop", "at", "journalRecordsReplayed", '
    '"journalRecordsRefused", "tornRecordDropped", "snapshotGeneration", "executionsResumed", '
    '"callbacksRearmed", "startClaimsReleased", "messagesToRedeliver", "messagesQueued"}}',
    "down": '{"stopped": bool}',
    "status": 'the `up` object without "recovery"',
    "submit": '[{"documentId", "version", "runId", "path", "key", "bucket", "prefix"}]',
    "run": '[{"documentId", "version", "path", "status", "pages": int|null, '
    '"engines": [name], "docType", "sensitive": {detector: count}, "stage", '
    '"reviewLinks": [{"reviewer", "linkId"}], "reason", "cost": COST|null}], '
    "COST as in `show`; the links themselves are printed from the local mailbox",
    "backfill": "the rows of `run`",
    "jobs": '[{"jobName", "jobId", "status", "records": int, "succeeded": int|null, '
    '"failed": int|null, "createdAt", "modelId"}], newest last; succeeded and failed are the '
    "job's manifest counts, null until it ended",
    "pending": f"[ITEM, ...] or, when there is a next page, "
    f'{{"items": [ITEM, ...], "nextToken": str}}; ITEM = {LIST_ITEM}',
    "stuck": "as `pending`",
    "failed": "as `pending`",
    "show": '{"state": STATE|null, "history": [REPORT, ...]}; STATE has documentId, '
    "version, runId, runOrder, status, stage, seq, updatedAt, firstSeenAt, the summary "
    "fields reports carried (pages, engines, docType, sensitive, reason, resultKey, ...) and, "
    'once finalized or archived, "cost": {"docType", "operations", "retries", "stepMs", '
    '"memoryMb", "pages": {engine: n}, "textractCalls", "bedrockCalls", '
    '"bedrockInputTokens", "bedrockOutputTokens", "bedrockBatchCalls", '
    '"bedrockBatchInputTokens", "bedrockBatchOutputTokens", "analyzeExpensePages", "usdBy": '
    '{"durable", "lambda", "textract", "bedrock"}, "usd"}; an invoice or purchase order '
    'adds "fields": {name: {"value", "confidence", "page", "box": [x0, y0, x1, y1] (page-'
    'relative) or null}} (a corrected field adds "original", "correctedBy", "correctedAt") '
    'and "fieldChecks": [{"field", "code", "message"}] (a field the supplier registry or '
    'profile gave adds "source": "registry"|"profile", and the registry\'s vendor_name the '
    '"printed" name); with the supplier registry: "supplier": {"supplierId", "name", "by": '
    'id kind|"iban"|"name", "key", "score", "certain": bool}, "ibans": [{"iban" (masked), '
    '"valid", "owner": "issuer"|"other", "why", "page"}], "taxIds": [{"kind", "value", '
    '"valid"}], "profileFields": [name]; after triage "docType" is the '
    'reviewer\'s pick (the triage stage\'s "approved" REPORT has "docType" and "reviewer"); '
    'once enriched (after classify): "enrichment": {"mode": "on-demand"|'
    '"batch", "engine": "rules"|"bedrock", "status": "complete"|"incomplete", "key" (the '
    'full enrichment in S3), "jobId" (batch only), "reason" (incomplete only)} and, when '
    'complete, "summary": {"title", "abstract"} and "risk": {"level": "low"|"medium"|'
    '"high", "reasons": [{"code", "message", "page"}]}; REPORT = {"documentId", "version", '
    '"runId", "runOrder", "eventId", "stage", "status", "seq", "at", "cause", "payload"}',
    "reprocess": '{"documentId", "runId", "started": bool, "generation": int}',
    "mail": '[{"to": [address], "subject", "body", ...}] as the local SES accepted them',
    "dashboard": '{"url": str, "running": bool}',
    "inbox": '{"reviewer": address, "url": the inbox link, "expiresAt": epoch seconds, '
    '"pending": int (items waiting on the reviewer)}',
    "reviewers": '{"reviewer": address, "revoked": true, "revokedAt": epoch seconds (the '
    "first revocation's; revoking again changes nothing)}",
    "suppliers": "import: "
    + suppliers.JSON_SHAPES["import"]
    + "; list: "
    + suppliers.JSON_SHAPES["list"]
    + "; show: "
    + suppliers.JSON_SHAPES["show"]
    + "; remove: "
    + suppliers.JSON_SHAPES["remove"],
    "events": "[EVENT, ...]; with --follow one EVENT per line (JSON Lines). EVENT is "
    'EventBridge\'s envelope {"version", "id", "detail-type", "source": "docflow", '
    '"account", "time", "region", "resources", "detail": {"eventId" (de-duplicate on '
    'it), "documentId", "version", "runId", "status", "at", "reason", "resultKey", "key", '
    'and per type: finalized "summary", "fields", "cost"; archived "cost"; '
    'review-requested "stageIndex", "stageName", "reviewDeadline"; review-decided '
    '"stageIndex", "stageName", "decision", "decidedAt"}}',
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="docflow",
        description=(__doc__ or "").splitlines()[0],
        epilog="\n".join((__doc__ or "").splitlines()[2:14]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--state", default=".docflow", help="local stack folder")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, fn: Any, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=textwrap.fill(f"--json prints: {JSON_SHAPES[name]}", 88),
        )
        p.add_argument("--json", action="store_true", help="print JSON (shape below)")
        p.add_argument("--local", action="store_true", help="query the local stack")
        p.set_defaults(fn=fn)
        return p

    add("up", stack.cmd_up, "start the local stack")
    add("down", stack.cmd_down, "stop the local stack (its state is kept)")
    add("status", stack.cmd_status, "is the local stack running")
    p = add("submit", documents.cmd_submit, "upload documents and return at once")
    p.add_argument("paths", nargs="+")
    p.add_argument("--key")
    p = add(
        "run",
        documents.cmd_run,
        "upload documents and wait until each settles (progress on stderr: redrawn on a "
        "terminal, one line per change otherwise)",
    )
    p.add_argument("paths", nargs="+")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p = add(
        "backfill",
        piles.cmd_backfill,
        "upload a pile under the pile prefix (DOCFLOW_PILE_PREFIX, default backfill/) and wait "
        "like `run`: a batcher groups the documents into Bedrock batch inference jobs (at least "
        "DOCFLOW_PILE_MIN_RECORDS a job; a smaller pool goes on-demand after "
        "DOCFLOW_PILE_MAX_WAIT_SECONDS); prints the table and which job answered each",
    )
    p.add_argument("paths", nargs="+")
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p = add("jobs", piles.cmd_jobs, "Bedrock batch inference jobs, with status and record counts")
    p.add_argument("--limit", type=int, default=100)
    for name, fn, text in (
        ("pending", queries.cmd_pending, "documents waiting on a reviewer"),
        ("failed", queries.cmd_failed, "failed documents"),
    ):
        p = add(name, fn, text)
        p.add_argument("--limit", type=int, default=50)
        p.add_argument("--next-token")
    p = add("stuck", queries.cmd_stuck, "non-terminal documents not updated for a while")
    p.add_argument("--older-than", default="15m")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--next-token")
    p = add("show", queries.cmd_show, "a document's current state, cost and history")
    p.add_argument("document")
    p = add("reprocess", queries.cmd_reprocess, "a new run of a document's latest version")
    p.add_argument("document")
    add("mail", stack.cmd_mail, "review e-mails sent through the local SES")
    p = add("inbox", reviewers.cmd_inbox, "print a reviewer's inbox link (local stack)")
    p.add_argument("address")
    p = add(
        "reviewers",
        reviewers.cmd_reviewers,
        "revoke a reviewer: their inbox and review links answer 403 from now on",
    )
    p.add_argument("action", choices=["revoke"])
    p.add_argument("address")
    p = add(
        "suppliers",
        suppliers.cmd_suppliers,
        "the supplier registry: import a CSV (every row checked first; columns: id, name, "
        "aliases, vat, siret, siren, kvk, cnpj, gstin, abn, ein, iban, currency; `;` between "
        "several values), list, show or remove a supplier",
    )
    p.add_argument("action", choices=sorted(suppliers.ACTIONS))
    p.add_argument("target", nargs="?", help="the CSV file (import) or a supplier id")
    add("dashboard", stack.cmd_dashboard, "print the local operators' dashboard URL")
    p = add(
        "events",
        stack.cmd_events,
        "domain events the local stack's example consumer received (one per transition)",
    )
    p.add_argument("--follow", action="store_true", help="keep printing new events")
    p.add_argument(
        "--type",
        choices=["finalized", "archived", "failed", "review-requested", "review-decided"],
    )
    for action in sub.choices.values():
        action.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = int(args.fn(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        return stdout_closed()
    except KeyboardInterrupt:
        return 130
    except (ValueError, RuntimeError) as exc:
        print(f"docflow: {exc}", file=sys.stderr)
        return 2


__all__ = ["build_parser", "main"]
