"""The reviewers' desk, the door the callback API knocks on: look at a link, decide once, or
(machines) complete it signed.

The only code that resumes executions. Every refusal is a `ReviewRefused` carrying the HTTP
status the callback API answers; nothing is sent to the durable service unless the link is
genuine, unexpired, unused and its single use spent by this request. The desk composes five
jobs, each in its own module: the token gate (`access.gate`, passed once per request), every
check of a page's form against its link (`review.decision_form`), the execution's liveness
(`stage.liveness`), counting a vote to the stage's ending and its report (`review.votes`), and
a machine request's authentication (`access.machine`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from docflow.extract.declarations.model import TypeDecl
from docflow.ids import event_id
from docflow.readmodel.schema import Report, RunIds
from docflow.readmodel.transitions import DOWNLOADED, seq_for
from docflow.reporting import Reporter
from docflow.review.access.gate import TokenGate
from docflow.review.access.keys import IntegrationSecrets, KeySource
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.links import OPEN, LinkStore
from docflow.review.access.machine import Secrets, SeenSignatures, authenticate
from docflow.review.access.refusals import ReviewRefused, stage_over
from docflow.review.access.revocation import Revocations
from docflow.review.access.signing import TokenClaims
from docflow.review.decision_form import DecisionForm, FieldProblem, checked_decision
from docflow.review.link_view import LinkView
from docflow.review.stage.callbacks import CallbackSender
from docflow.review.stage.decision import Decision, machine_pick
from docflow.review.stage.inbox import InboxIndex
from docflow.review.stage.liveness import Liveness
from docflow.review.stage.presence import PresenceStore, live_presence
from docflow.review.stage.records import StageStore
from docflow.review.stage.register import RegisterStore
from docflow.review.stage.split import clean_parts, split_of, split_problem
from docflow.review.stage.stage_record import StageRecord
from docflow.review.stage.triage import choices_of
from docflow.review.votes import Counted, VoteCounter
from docflow.settings import load_settings
from docflow.telemetry import spans
from docflow.telemetry.context import TraceParent, for_run

PART = "docflow.callback-api"


def click_parent(link: LinkRecord) -> TraceParent:
    """The span a decision hangs under: the notifying step's, which the link kept, or the
    run's root (a link minted before tracing was on)."""
    kept = TraceParent.parse(link.trace_parent or None)
    return kept or for_run(link.run_id, link.run_order)


def click_facts(claims: TokenClaims, approved: bool) -> dict[str, str | int]:
    """What a decision's span says: which run and stage, and which way; not who, not why."""
    return {
        "docflow.document_id": claims.document_id,
        "docflow.run_id": claims.run_id,
        "docflow.stage": f"review-{claims.stage_index}",
        "docflow.stage_name": claims.stage_name,
        "docflow.decision": "approved" if approved else "rejected",
    }


@dataclass(frozen=True)
class Decided:
    """A page's decision, counted: the answer the vote gave (the decision's JSON and where the
    stage stands), the decision itself and the link it was made on."""

    answer: Counted
    decision: Decision
    link: LinkRecord


class ReviewDesk:
    def __init__(
        self,
        keys: KeySource,
        links: LinkStore,
        callbacks: CallbackSender,
        reporter: Reporter,
        register: RegisterStore | None = None,
        presence_s: int = 15 * 60,
        integrations: Secrets | None = None,
    ) -> None:
        self.keys, self.links, self.callbacks, self.reporter = keys, links, callbacks, reporter
        # Each machine integration's own secret (`access.keys.IntegrationSecrets`).
        self.integrations = integrations or IntegrationSecrets(load_settings())
        self.register = register or RegisterStore(links.table)
        self.stages = StageStore(links.table)
        self.presence = PresenceStore(links.table, presence_s)
        self.gate = TokenGate(keys, links, Revocations(links.table))
        self.liveness = Liveness(callbacks, self.register, self.stages)
        self.votes = VoteCounter(
            links,
            self.stages,
            self.register,
            InboxIndex(links.table),
            callbacks,
            self.liveness,
            reporter,
            self._closed,
        )

    def open(self, token: str, look: bool = False) -> LinkView:
        """Show what is to be decided and keep the wait alive; decides nothing.

        Only `look` (a POST: the page's "I'm reviewing this" button) marks this reviewer as
        looking at the document, or renews their presence (someone else's live presence
        stands): a GET may be a mail scanner's prefetch, which must not tell colleagues that
        someone is on it. A GET shows whoever is looking."""
        claims, link = self.gate.check(token, "review")
        return self._shown(claims, link, look)

    def _shown(self, claims: TokenClaims, link: LinkRecord, look: bool = False) -> LinkView:
        """The page's view of a checked link: the stage's deadline, record and presence."""
        wait = self._refuse_if_stage_over(link)
        if not self.liveness.alive(wait, link.callback_id):
            raise self._closed(link)
        deadline = int(wait["deadline"]) if wait.get("deadline") else None
        presence = live_presence(wait) if wait else None
        if look and wait.get("pk"):
            presence = self.presence.take(str(wait["pk"]), claims.reviewer)
        return LinkView(claims, link, deadline, wait or None, presence)

    def release(self, token: str) -> LinkView:
        """POST from the page's release button: this reviewer is no longer looking."""
        claims, link = self.gate.check(token, "review")
        if link.stage_pk:
            self.presence.release(link.stage_pk, claims.reviewer)
        return LinkView(claims, link)

    def access(self, token: str) -> LinkView:
        """Previews and the download: only while the link may still decide, so a reviewer's
        access to the document ends with the stage."""
        claims, link = self.gate.check(token, "review")
        if link.state != OPEN:
            raise ReviewRefused(409, "deciding", "a decision on this link is under way", link)
        self._refuse_if_stage_over(link)
        return LinkView(claims, link)

    def record_download(self, view: LinkView) -> None:
        """The download of the original in the document's history: who, at which stage, which
        object (bucket, key, version), when; never the token. One entry per click (the event
        id names the reviewer and the second)."""
        claims, link = view.claims, view.link
        at = datetime.now(UTC).isoformat(timespec="seconds")
        seq = seq_for(DOWNLOADED, claims.stage_index)
        doc = RunIds(claims.document_id, claims.version, link.run_id, link.run_order)
        self.reporter.report(
            Report(
                document_id=doc.document_id,
                version=doc.version,
                run_id=doc.run_id,
                run_order=doc.run_order,
                event_id=event_id(doc.run_id, DOWNLOADED, f"{claims.reviewer}#{at}"),
                stage=f"review-{claims.stage_index}",
                status=DOWNLOADED,
                seq=seq,
                at=at,
                cause="callback-api",
                payload={
                    "reviewer": claims.reviewer,
                    "stageIndex": claims.stage_index,
                    "stageName": claims.stage_name,
                    "bucket": link.bucket,
                    "key": link.key,
                },
            )
        )

    def _wait_of(self, link: LinkRecord) -> StageRecord:
        """The link's stage record; {} if it has none."""
        return self.liveness.wait_of(link.stage_pk or link.wait_pk)

    def _refuse_if_stage_over(self, link: LinkRecord) -> StageRecord:
        wait = self._wait_of(link)
        if wait.get("ending"):
            self.liveness.wake(wait)
            raise self._closed(link, wait)
        return wait

    def _closed(self, link: LinkRecord, wait: StageRecord | None = None) -> ReviewRefused:
        """How the stage ended, for a genuine link whose stage is over."""
        return stage_over(link, self._wait_of(link) if wait is None else wait)

    def decide(
        self,
        token: str,
        form: DecisionForm,
        review_on: tuple[str, ...] = (),
        types: Mapping[str, TypeDecl] | None = None,
    ) -> Decided:
        """POST from the review page: check the link once, check the form against it (every
        check: `decision_form`), consume the link's single use and resume the execution. A form
        that does not pass raises a `FieldProblem` carrying the page's view of the link, so the
        page comes back with the message beside its field and nothing is decided. `types`: the
        rules file's declared fields per type; corrections are checked by the document's."""
        claims, link = self.gate.check(token, "review")
        decl = (types or {}).get(str(link.summary.get("docType", "")))
        try:
            decision = checked_decision(form, link, claims.reviewer, review_on, decl)
        except FieldProblem as problem:
            problem.view = self._shown(claims, link)
            raise
        facts = click_facts(claims, decision.approved)
        with spans.span(PART, "review decision", click_parent(link), facts):
            answer = self.votes.count(token, claims, decision)
        return Decided(answer, decision, link)

    @staticmethod
    def _checked_parts(link: LinkRecord, approved: bool, parts: Any) -> list[list[int]] | None:
        """A split link's approval needs parts that hold every page once; no other link may
        carry parts (the API answers 400, `bad-split`, and nothing is decided)."""
        split = split_of(link.summary)
        if not split:
            if parts:
                raise ReviewRefused(400, "bad-split", "parts are only for a split stage")
            return None
        if not approved:
            return None
        problem = split_problem(parts, int(split["pages"]))
        if problem:
            raise ReviewRefused(400, "bad-split", problem)
        return clean_parts(parts)

    def machine(
        self,
        token: str,
        body: bytes,
        timestamp: str,
        signature: str,
        window_s: int,
        now: float | None = None,
    ) -> Counted:
        """POST from a service: signed with its integration's own secret over
        `<timestamp>.<token hash>.<body>`, within a replay window, never seen before.
        On a triage link an approval names the type, `"docType"`: one of the link's
        `typeChoices`, or `unclassifiable` to archive the document."""
        claims, link = self.gate.check(token, "machine")
        now = time.time() if now is None else now
        result = authenticate(
            self.integrations,
            SeenSignatures(self.links.table),
            claims.reviewer,
            token,
            body,
            timestamp,
            signature,
            window_s,
            now,
        )
        comment = str(result.get("comment", ""))
        parts = self._checked_parts(link, bool(result["approved"]), result.get("parts"))
        decision = Decision.made(result["approved"], claims.reviewer, comment, parts=parts)
        decision, problem = machine_pick(decision, result, choices_of(link.summary))
        if problem:
            raise ReviewRefused(400, "bad-doc-type", problem)
        facts = click_facts(claims, bool(result["approved"]))
        with spans.span(PART, "machine decision", click_parent(link), facts):
            return self.votes.count(token, claims, decision)
