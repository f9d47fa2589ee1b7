"""A review stage's rounds and endings, the pure parts and the `settle review-<i>` step; the
rounds' durable waits are `docflow.flows.review`.

Reminders and escalation are the execution's own timers, not a polling job: a stage waits in
rounds, each a `wait_for_callback` whose timeout runs to the stage's next planned event
(reminder n at n x remind_after, escalation at escalate_after, the stage timeout last). When a
round's wait times out, the next round's submitter makes its callback the stage's current one
and sends that event's e-mail; nothing runs, and nothing is billed, in between. The plan is a
pure function of the checkpointed stage, so replays take the same rounds.

Votes live in the stage record (`docflow.review.stage.records`), not in the callback: the deciding
vote wakes the current callback, and a vote that lands between two rounds is found by the next
round (its registration is refused, `StageOver`) or by the stage's last step (`settle`), which
writes `timed-out` only if the tally is still open. So a click that races a timer is never
lost, and never counted twice.

Operations: a round is 3 (the wait's context, its callback, the submitter step); a stage is
3 x rounds, plus 1 for `settle review-<i>` when no callback brought the decision, plus the
decision's report. Rounds = 1 + reminders + (1 if escalating at a time no reminder falls on).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aws_durable_execution_sdk_python import CallbackSubmitterError, StepContext, durable_step
from aws_durable_execution_sdk_python.config import Duration
from aws_durable_execution_sdk_python.retries import (
    RetryDecision,
    RetryStrategyConfig,
    create_retry_strategy,
)

from docflow.document.fields import fields_json
from docflow.extract.declarations.model import TypeDecl
from docflow.ids import DocumentRef
from docflow.readmodel.transitions import APPROVED, REJECTED
from docflow.review.access.links import StageOver, SupersededRun
from docflow.review.stage.decision import Decision, DecisionError, unclassifiable
from docflow.review.stage.decision_history import decision_payload
from docflow.review.stage.for_review import ForReview
from docflow.review.stage.records import StageStore, stage_pk
from docflow.review.stage.stage_record import DecisionRecord
from docflow.review.stage.triage import UNCLASSIFIABLE
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime


@dataclass(frozen=True)
class StageEnd:
    """How a stage ended: `status` (approved, rejected, timed out, archived), the reason for
    anything but an approval, and the decision when a reviewer's came back."""

    status: str
    reason: str = ""
    decision: Decision | None = None


@dataclass(frozen=True)
class Reviewed:
    """A stage as the orchestrator goes on from it: how it ended, the stage's name, and what
    the history recorded of the decision (`record`, shown to later stages' reviewers)."""

    status: str
    reason: str
    stage: str
    decision: Decision | None = None
    record: DecisionRecord | None = None


_NOTIFY_BACKOFF = create_retry_strategy(
    RetryStrategyConfig(max_attempts=5, initial_delay=Duration.from_seconds(5))
)


def notify_retry(error: Exception, attempt: int) -> RetryDecision:
    """The submitter's retries: mail and link writes are retried; a stage that a newer run
    superseded, or that a vote already decided, is not."""
    if isinstance(error, SupersededRun | StageOver):
        return RetryDecision.no_retry()
    return _NOTIFY_BACKOFF(error, attempt)


def review_rounds(routed: RoutedStage) -> list[dict[str, int]]:
    """The stage's waits: `{"round", "waitSeconds", "reminder", "escalate"}` each, where
    `reminder` and `escalate` say what the round sends when it starts."""
    stage = routed.stage
    timeout = stage.timeout_seconds
    events: dict[int, dict[str, int]] = {}
    every, count = stage.remind_after_seconds, stage.max_reminders
    for n in range(1, count + 1):
        if every and n * every < timeout:
            events.setdefault(n * every, {})["reminder"] = n
    escalate = stage.escalate_after_seconds
    if escalate and stage.escalate_to and escalate < timeout:
        events.setdefault(escalate, {})["escalate"] = 1
    starts = [0, *sorted(events)]
    ends = [*sorted(events), timeout]
    return [
        {
            "round": k,
            "waitSeconds": end - start,
            "reminder": events.get(start, {}).get("reminder", 0),
            "escalate": events.get(start, {}).get("escalate", 0),
        }
        for k, (start, end) in enumerate(zip(starts, ends, strict=True))
    ]


def round_name(index: int, round_number: int) -> str:
    return f"review-{index}" if round_number == 0 else f"review-{index}-r{round_number}"


def decision_record(
    index: int, stage: RoutedStage, ended: StageEnd, shown: ForReview
) -> DecisionRecord:
    """What the history keeps of a stage's decision (`shown`: what the reviewer saw)."""
    fields = fields_json(shown.summary.fields or {})
    return decision_payload(index, stage.name, ended.status, ended.reason, ended.decision, fields)


def decided(
    raw: Any,
    choices: Sequence[str] | None,
    split_pages: int | None = None,
    decl: TypeDecl | None = None,
) -> StageEnd:
    """The reviewers' answer (a callback's result or the stage's ending). Anything but an
    explicit, valid approval rejects: an invalid decision for `invalid-decision`. `decl`: the
    document type's declared fields, which the corrections are checked by."""
    try:
        decision = Decision.parse(raw, choices, split_pages, decl)
    except DecisionError as exc:
        return StageEnd(REJECTED, "invalid-decision", exc.decision)
    if decision.approved:
        return StageEnd(APPROVED, "", decision)
    reason = UNCLASSIFIABLE if unclassifiable(decision, choices) else "rejected"
    return StageEnd(REJECTED, reason, decision)  # UNCLASSIFIABLE: triage's "none of these"


@durable_step
def settle_stage(step: StepContext, doc: DocumentRef, index: int) -> dict[str, Any]:
    """How the stage ended, from its record: a decision that landed between rounds stands;
    otherwise the stage is recorded as timed out, and later votes are refused."""
    ending = StageStore(runtime().settings.links_table).settle(stage_pk(doc.run_id, index))
    step.logger.info("review stage settled", extra={"stage": index, "how": ending.get("how")})
    return ending


def raised(exc: CallbackSubmitterError, error: type[Exception]) -> bool:
    """Which error failed the submitter. The SDK (3.0.0) keeps only the step error's message on
    the CallbackSubmitterError (its type is the SDK's, its cause a StepError), so docflow's
    submitter errors put their name first in the message."""
    return (exc.message or "").startswith(f"{error.__name__}:")
