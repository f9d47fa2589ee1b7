"""Counting one reviewer's vote: spend the link's single use, add the vote to the stage record,
and when the vote decides the stage, write the stage's ending, report the decision to the read
model and wake the execution. The vote is the durable part; the callback only wakes.

One of the desk's jobs (`docflow.review.desk` composes them); beside the door because it uses
both rooms below it, the stage records and the links.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import cast

from docflow.document.fields import fields_json
from docflow.readmodel.schema import RunIds, make_report
from docflow.readmodel.transitions import APPROVED, REJECTED
from docflow.reporting import Reporter
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.links import AlreadyDecided, LinkStore
from docflow.review.access.refusals import ReviewRefused
from docflow.review.access.signing import TokenClaims
from docflow.review.stage.callbacks import CallbackGone, CallbackSender
from docflow.review.stage.decision import Decision
from docflow.review.stage.decision_history import decision_payload
from docflow.review.stage.inbox import InboxIndex
from docflow.review.stage.liveness import Liveness
from docflow.review.stage.records import DECIDED, StageClosed, StageStore, decision_of, tally
from docflow.review.stage.register import RegisterStore
from docflow.review.stage.stage_record import DecisionJson, StageRecord, Tally
from docflow.review.stage.triage import UNCLASSIFIABLE

# How the stage ended, as a refusal, for a genuine link whose stage is over (the desk's).
Closed = Callable[[LinkRecord, StageRecord | None], ReviewRefused]


class Counted(DecisionJson, total=False):
    """A vote's answer: the decision's JSON, where the stage stands (`stage`) and, once the
    vote decided it, every vote of the stage (`votes`)."""

    stage: Tally


class VoteCounter:
    def __init__(
        self,
        links: LinkStore,
        stages: StageStore,
        register: RegisterStore,
        inbox: InboxIndex,
        callbacks: CallbackSender,
        liveness: Liveness,
        reporter: Reporter,
        closed: Closed,
    ) -> None:
        self.links, self.stages, self.register, self.inbox = links, stages, register, inbox
        self.callbacks, self.liveness, self.reporter = callbacks, liveness, reporter
        self._closed = closed

    def count(self, token: str, claims: TokenClaims, decision: Decision) -> Counted:
        """Spend the link, count its vote in the stage record, and wake the execution if the
        vote decided the stage. Answers the decision's JSON with where the stage stands."""
        try:
            link = self.links.spend(token)
        except AlreadyDecided as exc:
            raise ReviewRefused(
                409, "already-used", "this link was already used", exc.link
            ) from exc
        pk = link.stage_pk
        if not pk:
            return self._count_alone(token, claims, link, decision)
        said = decision.to_json()
        try:
            wait = self.stages.get(pk) or {}
            if wait.get("ending") or not self.liveness.alive(wait, link.callback_id):
                self.links.complete(token, said, delivery="not-waiting")
                raise self._closed(link, wait)
            try:
                item = self.stages.vote(pk, claims.reviewer, decision.as_vote())
            except StageClosed as exc:
                self.links.complete(token, said, delivery="not-waiting")
                raise self._closed(link, exc.item) from None
        except ReviewRefused:
            raise
        except Exception:
            self.links.refund(token)  # a passing failure before the vote: try again
            raise
        self.links.complete(token, said)
        # Voted: the stage no longer waits on this reviewer (the others' items stay). A failure
        # here only leaves the item until the stage ends; the vote already counts.
        with contextlib.suppress(Exception):
            self.inbox.close(claims.run_id, claims.stage_index, [claims.reviewer], "voted")
        state = tally(item)
        if not state["decided"]:
            return Counted(**said, stage=state)
        full = decision_of(item, claims.reviewer)
        written, item = self.stages.set_ending(pk, {"how": DECIDED, **full.to_json()})
        ending = item.get("ending") or {}
        if ending.get("how") != DECIDED:
            raise self._closed(link, item)  # a newer run ended the stage first
        if written:
            self._report(claims, link, full)
            self.liveness.wake(item)
        return cast("Counted", {**said, "stage": state, "votes": full.to_json()["votes"]})

    def _count_alone(
        self, token: str, claims: TokenClaims, link: LinkRecord, decision: Decision
    ) -> Counted:
        """A link with no stage record (a hand-made machine link): it decides by itself."""
        said = decision.to_json()
        try:
            self.callbacks.success(link.callback_id, decision.wire())
        except CallbackGone:
            self.links.complete(token, said, delivery="not-waiting")
            raise self._closed(link, None) from None
        except Exception:
            self.links.refund(token)  # a passing failure: the reviewer may try again
            raise
        self.links.complete(token, said)
        if link.wait_pk:
            self.register.set_ending(link.wait_pk, decision.as_ending())
        self._report(claims, link, decision)
        return Counted(**said)

    def _report(self, claims: TokenClaims, link: LinkRecord, decision: Decision) -> None:
        """The decision in the read model at once; the orchestrator's own report of it has the
        same event id, so whichever lands second is a duplicate."""
        status = APPROVED if decision.approved else REJECTED
        reason = ""
        if not decision.approved:
            unclassifiable = decision.reject_reason == UNCLASSIFIABLE
            reason = UNCLASSIFIABLE if unclassifiable else "rejected"
        # As the orchestrator's copy of this report reads them (review_rounds), so both say
        # the same.
        fields = fields_json(link.shown.summary.fields or {})
        payload = decision_payload(
            claims.stage_index, claims.stage_name, status, reason, decision, fields
        )
        report = make_report(
            _doc_for(link, claims),
            status,
            f"review-{claims.stage_index}",
            payload=payload,
            stage_index=claims.stage_index,
            cause="callback-api",
        )
        try:
            self.reporter.report(report)
        except Exception:
            return


def _doc_for(link: LinkRecord, claims: TokenClaims) -> RunIds:
    """The run the link belongs to, identified as the orchestrator identifies it."""
    return RunIds(claims.document_id, claims.version, link.run_id, link.run_order)
