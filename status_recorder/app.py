"""The status recorder function: validates a report and applies it to the read model.

It is the only writer of the read model. On its schedules it also publishes the review
metrics the template's alarm watches (overdue reviews), from the pending-review index, and
runs the reconcile pass (documents whose execution ended without recording a terminal status).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict

from docflow import observability
from docflow.executions import LambdaExecutionStatuses
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.reconcile import reconcile
from docflow.readmodel.recorder import VerdictJson
from docflow.readmodel.schema import Report, ReportError
from docflow.reporting import recorder_for
from docflow.settings import load_settings
from docflow.telemetry import spans
from docflow.telemetry.context import INPUT_KEY as TRACEPARENT
from docflow.telemetry.context import TraceParent, for_run

INVALID = "invalid"
PART = "docflow.status-recorder"


class Problem(TypedDict):
    field: str
    message: str


class Refused(TypedDict):
    result: str  # "invalid"
    error: Problem


class ReviewMetrics(TypedDict):
    pendingReviews: int
    overdueReviews: int
    oldestPendingReviewSeconds: int


# A report's verdict, a refusal, a reconcile pass's counts, or the review metrics.
Answer = VerdictJson | Refused | dict[str, int] | ReviewMetrics


def handler(event: Any, context: Any = None) -> Answer:
    settings = load_settings()
    if isinstance(event, dict) and event.get("task") == "emit-review-metrics":
        return emit_review_metrics(ReadModel(settings.table_name))
    if isinstance(event, dict) and event.get("task") == "reconcile":
        return reconcile_pass(event)
    try:
        report = Report.parse(event)
    except ReportError as exc:
        observability.logger.warning("malformed report refused", extra={"field": exc.field})
        return {"result": INVALID, "error": {"field": exc.field, "message": str(exc)}}
    # Under the sender's span when it says which; else under the run's root, still its trace.
    carried = event.get(TRACEPARENT) if isinstance(event, dict) else None
    parent = TraceParent.parse(carried) or for_run(report.run_id, report.run_order)
    attributes = {
        "docflow.document_id": report.document_id,
        "docflow.run_id": report.run_id,
        "docflow.status": report.status,
        "docflow.stage": report.stage,
        "docflow.cause": report.cause,
    }
    try:
        with spans.span(PART, f"record {report.status}", parent, attributes):
            verdict = recorder_for(settings).record(report)
    finally:
        spans.flush()
    observability.logger.info(
        "report recorded",
        extra={
            "documentId": report.document_id,
            "runId": report.run_id,
            "status": report.status,
            "result": verdict.result,
        },
    )
    return verdict.to_dict()


def reconcile_pass(event: Mapping[str, object]) -> Refused | dict[str, int]:
    """Record `failed` for documents whose execution ended without saying so."""
    settings = load_settings()
    quiet = event.get("quietSeconds", settings.reconcile_quiet_s)
    if isinstance(quiet, bool) or not isinstance(quiet, int) or quiet < 0:
        return {"result": INVALID, "error": {"field": "quietSeconds", "message": "must be >= 0"}}
    result = reconcile(
        ReadModel(settings.table_name),
        recorder_for(settings),
        LambdaExecutionStatuses(settings.orchestrator_name),
        timedelta(seconds=quiet),
    )
    if result.recorded_failed:
        observability.logger.warning("ended executions reconciled", extra=result.to_dict())
        observability.count("ExecutionsReconciled", result.recorded_failed)
    return result.to_dict()


def emit_review_metrics(model: ReadModel, now: datetime | None = None) -> ReviewMetrics:
    """How many reviews are past their deadline, and how long the oldest has waited."""
    now = now or datetime.now(UTC)
    overdue, oldest_s, token, pending = 0, 0.0, None, 0
    while True:
        page = model.pending(limit=200, token=token)
        pending += len(page.items)
        for item in page.items:
            since = datetime.fromisoformat(item["pendingSince"])
            oldest_s = max(oldest_s, (now - since).total_seconds())
            deadline = item.get("reviewDeadline")
            if deadline and datetime.fromisoformat(deadline) < now:
                overdue += 1
        token = page.next_token
        if not token:
            break
    observability.count("PendingReviews", pending)
    observability.count("OverdueReviews", overdue)
    observability.count("OldestPendingReviewSeconds", round(oldest_s))
    return {
        "pendingReviews": pending,
        "overdueReviews": overdue,
        "oldestPendingReviewSeconds": round(oldest_s),
    }
