"""Documents whose execution ended without saying so: found, and recorded as failed.

An execution normally reports its own end: every path through the orchestrator, failures
included, records a terminal state in a step. A few ends happen outside the handler: the
service fails an execution whose invocations keep crashing, times out one that outlived its
execution timeout, or an operator stops one. The read model would then show the document in
progress for ever. The recorder's scheduled reconcile pass looks at documents that have been
quiet for a while, asks Lambda for their execution's status, and records `failed` for those
whose execution is over, with the report's usual event id, so a late report from the run
itself and this one are the same history entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from docflow.readmodel.items import DocumentState
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.recorder import StatusRecorder
from docflow.readmodel.schema import Report, RunIds, make_report
from docflow.readmodel.transitions import AWAITING_MATCH, ENRICHING, FAILED, PENDING_REVIEW

# Execution status -> the reason the document failed.
ENDED = {
    "FAILED": "execution-failed",
    "TIMED_OUT": "execution-timed-out",
    "STOPPED": "execution-stopped",
}


class ExecutionStatuses(Protocol):
    def status(self, execution_name: str) -> str | None:
        """RUNNING, SUCCEEDED, FAILED, TIMED_OUT or STOPPED; None if there is no such run."""
        ...


@dataclass
class ReconcileResult:
    examined: int = 0
    awaiting_review: int = 0
    awaiting_job: int = 0
    awaiting_match: int = 0
    running: int = 0
    recorded_failed: int = 0
    unknown: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "examined": self.examined,
            "awaitingReview": self.awaiting_review,
            "awaitingJob": self.awaiting_job,
            "awaitingMatch": self.awaiting_match,
            "running": self.running,
            "recordedFailed": self.recorded_failed,
            "unknown": self.unknown,
        }


def reconcile(
    model: ReadModel,
    recorder: StatusRecorder,
    executions: ExecutionStatuses,
    quiet_for: timedelta,
    now: datetime | None = None,
    max_checks: int = 1000,
) -> ReconcileResult:
    """One pass, oldest first; at most `max_checks` Lambda calls, the rest wait for the next."""
    now = now or datetime.now(UTC)
    result = ReconcileResult()
    token = None
    while True:
        page = model.stuck(quiet_for, limit=100, token=token, now=now)
        for item in page.items:
            if _review_still_open(item, now):
                # Quiet by design: the run waits on a callback whose timeout has not come.
                result.awaiting_review += 1
                continue
            if _job_wait_still_open(item, now):
                # A pile document waiting for its batch inference job, which takes hours.
                result.awaiting_job += 1
                continue
            if _match_wait_still_open(item, now):
                # An invoice waiting for its order or goods receipt, up to its deadline.
                result.awaiting_match += 1
                continue
            if result.examined >= max_checks:
                return result
            result.examined += 1
            status = executions.status(str(item["runId"]))
            if status is None:
                result.unknown += 1
            elif status in ENDED:
                recorder.record(_failed_report(item, status))
                result.recorded_failed += 1
            else:
                result.running += 1
        token = page.next_token
        if not token:
            return result


def _review_still_open(item: DocumentState, now: datetime) -> bool:
    deadline = item.get("reviewDeadline")
    return (
        item.get("status") == PENDING_REVIEW
        and bool(deadline)
        and datetime.fromisoformat(str(deadline)) > now
    )


def _match_wait_still_open(item: DocumentState, now: datetime) -> bool:
    deadline = (item.get("awaiting") or {}).get("deadline")
    return (
        item.get("status") == AWAITING_MATCH
        and bool(deadline)
        and datetime.fromisoformat(str(deadline)) > now
    )


def _job_wait_still_open(item: DocumentState, now: datetime) -> bool:
    if item.get("status") != ENRICHING:
        return False
    seconds = (item.get("enrichment") or {}).get("waitSeconds")
    if not isinstance(seconds, int | float):
        return False
    since = datetime.fromisoformat(str(item["updatedAt"]))
    return since + timedelta(seconds=float(seconds)) > now


def _failed_report(item: DocumentState, status: str) -> Report:
    run = RunIds(
        document_id=str(item["documentId"]),
        version=str(item["version"]),
        run_id=str(item["runId"]),
        run_order=str(item["runOrder"]),
    )
    reason = ENDED[status]
    message = f"the execution ended {status} without recording a terminal status"
    return make_report(
        run, FAILED, "failed", payload={"reason": reason, "message": message}, cause="reconciler"
    )
