"""The review hand-off: the wait_for_callback submitter of one round of a review stage. The
reviewer's answer is read as a `Decision` (`review_rounds.decided`)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from aws_durable_execution_sdk_python.context import durable_wait_for_callback
from aws_durable_execution_sdk_python.types import WaitForCallbackContext

from docflow.ids import DocumentRef
from docflow.readmodel.schema import make_report
from docflow.readmodel.transitions import PENDING_REVIEW
from docflow.review.stage.for_review import ForReview
from docflow.review.stage.requests import ReviewRequest
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime


@durable_wait_for_callback
def request_review(
    callback_id: str,
    ctx: WaitForCallbackContext,
    doc: DocumentRef,
    index: int,
    stage: RoutedStage,
    shown: ForReview,
    round_: dict[str, int] | None = None,
) -> None:
    """Runs as a step: one round of the stage (`review_rounds.review_rounds`). Round 0 sends the
    links, then reports the document as pending review; a later round makes its callback the
    stage's current one and sends its reminder or escalation.

    Both halves are idempotent (the notifier keys its mail by stage, reviewer and kind; the
    report's event id is fixed by the stage index), so a retried submitter repeats nothing.
    The report names links by id only: the links themselves live in the reviewers' mailboxes.
    Raises `SupersededRun` (not retried) when a newer run of the document already exists, and
    `StageOver` (not retried) when a later round finds the stage already decided.
    """
    rt = runtime()
    r = round_ or {}
    if stage.choices:
        # A triage stage: the types the reviewer picks from travel with the link.
        shown = replace(shown, choices=tuple(stage.choices))
    request = ReviewRequest(
        doc,
        index,
        stage,
        callback_id,
        shown.to_json(),
        round=int(r.get("round", 0)),
        reminder=int(r.get("reminder", 0)),
        escalate=bool(r.get("escalate", 0)),
        wait_s=int(r.get("waitSeconds", 0)),
    )
    links = rt.notifier.request_review(request)
    if request.round:
        ctx.logger.info(
            "review round",
            extra={"stage": stage.name, "round": request.round, "reminder": request.reminder},
        )
        return
    deadline = datetime.now(UTC) + timedelta(seconds=stage.stage.timeout_seconds)
    report = make_report(
        doc,
        PENDING_REVIEW,
        f"review-{index}",
        stage_index=index,
        payload={
            "stageIndex": index,
            "stageName": stage.name,
            "reviewers": list(stage.stage.reviewers),
            "reviewLinks": links,
            "reviewDeadline": deadline.isoformat(timespec="seconds"),
            # A duplicate found after the classified report (a corrected number): its link.
            **({"duplicateOf": list(earlier)} if (earlier := shown.summary.duplicate_of) else {}),
        },
    )
    rt.reporter.report(report)
    ctx.logger.info("review requested", extra={"stage": stage.name, "reviewers": len(links)})
