"""The docflow pipeline as one durable execution per document version. Control flow only.

    received -> supersede older runs -> split -> read pages (map over batches) -> classify
             -> extract fields -> enrich (summary, risk)
             -> for each review stage: wait for its reviewers (a quorum, reminders and
                escalation in rounds of durable waits) -> approved? next : archive
             -> finalize
    anything unrecoverable -> failed, with a reason code

Every side effect is a named step in `docflow.pipeline`; this module only decides what runs
next, from checkpointed values, so it replays identically.
"""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import (
    CallbackSubmitterError,
    DurableContext,
    DurableOperationError,
    durable_execution,
)
from aws_durable_execution_sdk_python.config import (
    CompletionConfig,
    Duration,
    MapConfig,
    NestingType,
    StepConfig,
)
from aws_durable_execution_sdk_python.retries import (
    RetryDecision,
    RetryStrategyConfig,
    create_retry_strategy,
)
from aws_durable_execution_sdk_python.serdes import JsonSerDes

from docflow.errors import IntakeError
from docflow.extract.corrections import describe_corrections
from docflow.ids import DocumentRef
from docflow.observability import DocLogger, logger
from docflow.pipeline.classify import classify_document
from docflow.pipeline.enrich import add_usage, enrich_document
from docflow.pipeline.extract import (
    EXTRACT_STEP,
    apply_corrections,
    extract_fields,
    final_fields,
    with_fields,
)
from docflow.pipeline.finalize import archive_document, finalize_document
from docflow.pipeline.meter import run_meter
from docflow.pipeline.read_batch import read_page_batch
from docflow.pipeline.record import record_status
from docflow.pipeline.review_stage import wait_for_decision
from docflow.pipeline.serdes import BatchResultJson
from docflow.pipeline.split import split_document
from docflow.pipeline.supersede import (
    SUPERSEDED,
    end_older_runs,
    still_latest,
)
from docflow.readmodel.transitions import (
    APPROVED,
    ARCHIVED,
    CLASSIFIED,
    FAILED,
    FINALIZED,
    READING,
    RECEIVED,
)
from docflow.review.links import StageOver, SupersededRun
from docflow.runtime import runtime

# A page batch retries a few times with backoff; throttles are already absorbed inside it.
# Its summary is checkpointed as plain JSON: the typed envelope would double its size, and a
# 5,000-page document has 100 of them in the map's own checkpoint.
BATCH_STEP = StepConfig(
    serdes=JsonSerDes(),
    retry_strategy=create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=4,
            initial_delay=Duration.from_seconds(2),
            max_delay=Duration.from_seconds(60),
        )
    ),
)
_NOTIFY_BACKOFF = create_retry_strategy(
    RetryStrategyConfig(max_attempts=5, initial_delay=Duration.from_seconds(5))
)


def notify_retry(error: Exception, attempt: int) -> RetryDecision:
    """Mail and link writes are retried; a stage that a newer run superseded, or that a vote
    already decided, is not."""
    if isinstance(error, SupersededRun | StageOver):
        return RetryDecision.no_retry()
    return _NOTIFY_BACKOFF(error, attempt)


@durable_execution
def handler(event: Any, context: DurableContext) -> dict[str, Any]:
    try:
        doc = DocumentRef.from_event(event)
    except IntakeError as exc:
        logger.error("refused execution input", extra={"reason": exc.reason})
        return {"status": FAILED, "reason": exc.reason, "message": exc.message}
    context.set_logger(DocLogger(doc.log_keys()))
    try:
        return process(context, doc)
    except CallbackSubmitterError as exc:
        return fail(
            context, doc, "notify-failed", f"reviewers could not be notified: {exc.message}"
        )
    except DurableOperationError as exc:
        # A step that kept failing after its retries: the document fails, the run does not.
        return fail(context, doc, "internal-error", f"{exc.error_type}: {exc.message}")


def process(context: DurableContext, doc: DocumentRef) -> dict[str, Any]:
    record(
        context,
        doc,
        RECEIVED,
        "intake",
        {"bucket": doc.bucket, "key": doc.key, "etag": doc.content_tag},
    )

    # A newer version ends the reviews older runs wait on; a run that is itself older stops.
    older = context.step(end_older_runs(doc), name="supersede older runs")
    if not older["latest"]:
        return archive(context, doc, {}, SUPERSEDED)

    split = context.step(split_document(doc), name="split")
    if not split["ok"]:
        return fail(context, doc, split["reason"], split["message"])
    record(
        context,
        doc,
        READING,
        "read",
        {"pages": split["pages"], "bytes": split["bytes"], "batches": len(split["batches"])},
    )

    batches = read_pages(context, doc, split["batches"])
    if "error" in batches:
        return fail(context, doc, batches["error"]["reason"], batches["error"]["message"])

    found = context.step(classify_document(doc, batches["results"]), name="classify")
    summary, stages = document_summary(found), found["stages"]
    usage: dict[str, int] = {}  # what extraction spent (model tokens, AnalyzeExpense pages)
    if found.get("extract"):
        # Its stages (a `fields` review when a check fails) are checkpointed, like classify's.
        extracted = context.step(
            extract_fields(doc, found["docType"], split["batches"]), "extract", EXTRACT_STEP
        )
        summary, stages = with_fields(summary, extracted), [*stages, *extracted["stages"]]
        usage = extracted.get("usage", {})
    # Summary and risk: on-demand under the token budget, or a wait for a batch job (a pile).
    enriched = enrich_document(context, doc, found, split["batches"])
    summary, stages = {**summary, **enriched["shown"]}, [*stages, *enriched["stages"]]
    usage = add_usage(usage, enriched["usage"])
    record(context, doc, CLASSIFIED, "classify", {**summary, "stages": stages})

    # What a reviewer is shown besides the document: the route and earlier stages' decisions.
    route = [{"name": s["name"], "because": s.get("because", "")} for s in stages]
    decided: list[dict[str, Any]] = []
    for index, stage in enumerate(stages):
        shown = {**summary, "route": route, "decisions": list(decided)}
        decision = await_review(context, doc, index, stage, shown)
        if decision["status"] != APPROVED:
            ended = {"stage": decision["stage"], "decision": decision["status"]}
            return archive(context, doc, {**summary, **ended}, decision["reason"], batches, usage)
        decided.append(decision["record"])
        summary = apply_corrections(summary, decision)  # a reviewer's corrected fields
    # A click can race a newer version's cancel and win; the replaced content still stops here.
    if stages and not context.step(still_latest(doc), name="check newest run"):
        return archive(context, doc, summary, SUPERSEDED, batches, usage)

    # The run prices itself in its last step (operations, step time, pages by engine).
    meter = run_meter(context, batches["results"], summary["docType"], usage)
    done = context.step(finalize_document(doc, summary, meter), name="finalize")
    finished = {"resultKey": done["key"], "cost": done["cost"], **final_fields(summary)}
    record(context, doc, FINALIZED, "finalize", finished)
    return outcome(doc, FINALIZED, summary)


def read_pages(context: DurableContext, doc: DocumentRef, plan: list[list[int]]) -> dict[str, Any]:
    """Every batch runs (no fail-fast); then any batch that failed fails the document."""
    done = context.map(
        plan,
        lambda ctx, batch, index, _: ctx.step(
            read_page_batch(doc, index, batch[0], batch[1]),
            name=f"batch-{index}",
            config=BATCH_STEP,
        ),
        name="read pages",
        config=MapConfig(
            max_concurrency=runtime().settings.page_concurrency,
            completion_config=CompletionConfig.all_completed(),
            # Flat: one operation per batch instead of two, which keeps big documents in budget.
            nesting_type=NestingType.FLAT,
            serdes=BatchResultJson(),
            item_serdes=JsonSerDes(),
        ),
    )
    results: list[dict[str, Any]] = []
    for item in sorted(done.all, key=lambda i: i.index):
        if item.error is not None or item.result is None:
            message = item.error.message if item.error else "no result"
            return {
                "error": {"reason": "page-read-failed", "message": f"batch {item.index}: {message}"}
            }
        if "error" in item.result:
            return {"error": item.result["error"]}
        results.append(item.result)
    return {"results": results}


def await_review(
    context: DurableContext,
    doc: DocumentRef,
    index: int,
    stage: dict[str, Any],
    summary: dict[str, Any],
) -> dict[str, Any]:
    """Wait, with no compute billed, for this stage's decision; record what came back.

    The waiting, in rounds when the stage reminds or escalates, is `wait_for_decision`.
    """
    ended = wait_for_decision(context, doc, index, stage, summary, notify_retry)
    status, reason, decision = ended["status"], ended["reason"], ended["decision"]
    if status == ARCHIVED:
        return {"status": ARCHIVED, "reason": reason, "stage": str(stage["name"])}
    payload = {"stageIndex": index, "stageName": str(stage["name"]), "decision": status}
    payload.update(
        {
            k: decision[k]
            for k in ("reviewer", "comment", "decidedAt", "rejectReason", "votes")
            if decision.get(k)
        }
    )
    if decision.get("corrections"):
        payload["corrections"] = describe_corrections(
            summary.get("fields", {}), decision["corrections"]
        )
    if reason:
        payload["reason"] = reason
    record(context, doc, status, f"review-{index}", payload, stage_index=index)
    kept = {k: decision[k] for k in ("corrections", "reviewer", "decidedAt") if k in decision}
    return {
        "status": status,
        "reason": reason,
        "stage": str(stage["name"]),
        "record": payload,
        **kept,
    }


def archive(
    context: DurableContext,
    doc: DocumentRef,
    summary: dict[str, Any],
    reason: str,
    batches: dict[str, Any] | None = None,
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Archive the document (an upsert keyed by version), priced like a finalize, and say why."""
    results = (batches or {}).get("results", [])
    meter = run_meter(context, results, summary.get("docType"), usage)
    done = context.step(
        archive_document(doc, {**summary, "reason": reason}, meter), name="archive"
    )
    payload = {"archiveKey": done["key"], "reason": reason, "cost": done["cost"]}
    record(context, doc, ARCHIVED, "archive", payload)
    shown = {k: v for k, v in summary.items() if k not in ("stage", "decision")}
    return outcome(doc, ARCHIVED, shown, reason=reason)


def record(
    context: DurableContext,
    doc: DocumentRef,
    status: str,
    stage: str,
    payload: dict[str, Any] | None = None,
    stage_index: int | None = None,
) -> None:
    suffix = f" {stage}" if stage_index is not None else ""
    context.step(
        record_status(doc, status, stage, payload, stage_index), name=f"record {status}{suffix}"
    )


def fail(context: DurableContext, doc: DocumentRef, reason: str, message: str) -> dict[str, Any]:
    record(context, doc, FAILED, "failed", {"reason": reason, "message": message[:500]})
    return outcome(doc, FAILED, {}, reason=reason, message=message[:500])


def document_summary(found: dict[str, Any]) -> dict[str, Any]:
    keys = ("docType", "confidence", "sensitive", "lowConfidence", "pages", "engines")
    return {k: found[k] for k in keys}


def outcome(doc: DocumentRef, status: str, summary: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The execution's result: small, JSON-native, enough for `docflow run` to print."""
    return {
        "documentId": doc.document_id,
        "version": doc.version,
        "runId": doc.run_id,
        "status": status,
        **summary,
        **extra,
    }
