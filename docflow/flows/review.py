"""A review stage's durable waits: rounds of `wait_for_callback`, then how the stage ended.

Reminders and escalation are the execution's own timers, not a polling job: a stage waits in
rounds, each a `wait_for_callback` whose timeout runs to the stage's next planned event
(`docflow.pipeline.review_rounds.review_rounds`). When a round's wait times out, the next
round's submitter makes its callback the stage's current one and sends that event's e-mail;
nothing runs, and nothing is billed, in between. Operations per stage:

    review-<i>, review-<i>-r<k>    each round: its context, its callback, its submitter step
    settle review-<i>              when no callback brought the decision
"""

from __future__ import annotations

from aws_durable_execution_sdk_python import (
    CallbackExternalError,
    CallbackSubmitterError,
    CallbackTimeoutError,
    DurableContext,
)
from aws_durable_execution_sdk_python.config import Duration, WaitForCallbackConfig

from docflow.ids import DocumentRef
from docflow.pipeline.review_callback import request_review
from docflow.pipeline.review_rounds import (
    StageEnd,
    decided,
    notify_retry,
    raised,
    review_rounds,
    round_name,
    settle_stage,
)
from docflow.pipeline.supersede import SUPERSEDED, SUPERSEDED_ERROR
from docflow.readmodel.transitions import ARCHIVED, REJECTED, TIMED_OUT
from docflow.review.access.links import StageOver, SupersededRun
from docflow.review.stage.for_review import ForReview
from docflow.review.stage.records import DECIDED
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime


def wait_for_decision(
    context: DurableContext,
    doc: DocumentRef,
    index: int,
    stage: RoutedStage,
    shown: ForReview,
) -> StageEnd:
    """Run the stage's rounds; how it ended."""
    rounds = review_rounds(stage)
    choices = stage.choices  # a triage stage's types; None for any other stage
    pages = stage.split_pages  # a split stage's page count; None for any other stage
    # Corrections are checked by the type's declaration, from the rules file this function
    # version holds: a replay reads the same file, so it decides the same way.
    decl = runtime().rules.fields.for_type(shown.summary.doc_type)
    # A heartbeat timeout would end a round early; it keeps today's meaning on a single wait.
    heartbeat = stage.stage.heartbeat_seconds if len(rounds) == 1 else 0
    for plan in rounds:
        config = WaitForCallbackConfig(
            timeout=Duration.from_seconds(plan["waitSeconds"]),
            heartbeat_timeout=Duration.from_seconds(heartbeat) if heartbeat else Duration(),
            retry_strategy=notify_retry,
        )
        try:
            raw = context.wait_for_callback(
                request_review(doc, index, stage, shown, plan),
                name=round_name(index, plan["round"]),
                config=config,
            )
            return decided(raw, choices, pages, decl)
        except CallbackTimeoutError:
            continue  # the next round reminds or escalates; after the last, settle
        except CallbackExternalError as exc:
            if exc.data == SUPERSEDED_ERROR:
                return StageEnd(ARCHIVED, SUPERSEDED)
            return StageEnd(REJECTED, "review-failed")
        except CallbackSubmitterError as exc:
            if raised(exc, SupersededRun):
                return StageEnd(ARCHIVED, SUPERSEDED)
            if not raised(exc, StageOver):
                raise
            break  # a vote decided the stage between two rounds (or a newer run ended it)
    ending = context.step(settle_stage(doc, index), name=f"settle review-{index}")
    if ending.get("how") == DECIDED:
        return decided(ending, choices, pages, decl)
    if ending.get("how") == SUPERSEDED:
        return StageEnd(ARCHIVED, SUPERSEDED)
    return StageEnd(TIMED_OUT, "review-timeout")
