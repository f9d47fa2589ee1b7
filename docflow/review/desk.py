"""The reviewers' desk, the door the callback API knocks on: look at a link, decide once, or
(machines) complete it signed.

The only code that resumes executions. Every refusal is a `ReviewRefused` carrying the HTTP
status the callback API answers; nothing is sent to the durable service unless the link is
genuine, unexpired, unused and its single use spent by this request. The desk composes four
jobs, each in its own module: the token gate (`access.gate`), the execution's liveness
(`stage.liveness`), counting a vote to the stage's ending and its report (`review.votes`), and
a machine request's authentication (`access.machine`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from docflow.ids import DocumentRef, event_id
from docflow.readmodel.schema import Report, RunIds
from docflow.readmodel.transitions import DOWNLOADED, seq_for
from docflow.reporting import Reporter
from docflow.review.access.gate import TokenGate
from docflow.review.access.keys import IntegrationSecrets, KeySource
from docflow.review.access.links import OPEN, LinkStore
from docflow.review.access.machine import Secrets, SeenSignatures, authenticate
from docflow.review.access.refusals import (
    OTHER_NEEDS_COMMENT,
    REJECT_REASONS,
    ReviewRefused,
    other_without_comment,
    stage_over,
)
from docflow.review.access.revocation import Revocations
from docflow.review.access.signing import TokenClaims
from docflow.review.stage.callbacks import CallbackSender
from docflow.review.stage.decision import Decision, machine_pick
from docflow.review.stage.inbox import InboxIndex
from docflow.review.stage.liveness import Liveness
from docflow.review.stage.presence import PresenceStore, live_presence
from docflow.review.stage.records import StageStore
from docflow.review.stage.register import RegisterStore
from docflow.review.stage.split import clean_parts, split_of, split_problem
from docflow.review.stage.triage import UNCLASSIFIABLE, choices_of, type_problem
from docflow.review.votes import VoteCounter
from docflow.settings import load_settings
from docflow.suppliers.shown import supplier_offer
from docflow.telemetry import spans
from docflow.telemetry.context import TraceParent, for_run

PART = "docflow.callback-api"


def click_parent(link: dict[str, Any]) -> TraceParent:
    """The span a decision hangs under: the notifying step's, which the link kept, or the
    run's root (a link minted before tracing was on)."""
    kept = TraceParent.parse(link.get("traceParent"))
    return kept or for_run(str(link.get("runId", "")), str(link.get("runOrder", "")))


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
class LinkView:
    claims: TokenClaims
    link: dict[str, Any]
    deadline: int | None = None  # when the stage times out
    stage: dict[str, Any] | None = None  # the stage record: reviewers, quorum, votes so far
    presence: dict[str, Any] | None = None  # who is looking at the document now (maybe us)

    @property
    def doc(self) -> DocumentRef:
        """The document version the link is bound to (its S3 object and artifacts)."""
        return DocumentRef(
            bucket=str(self.link["bucket"]),
            key=str(self.link["key"]),
            version_id=str(self.link["version"]),
        )


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
        wait = self._refuse_if_stage_over(link)
        if not self.liveness.alive(link, wait):
            raise self._closed(link)
        deadline = int(wait["deadline"]) if wait.get("deadline") else None
        presence = live_presence(wait) if wait else None
        if look and wait.get("pk"):
            presence = self.presence.take(str(wait["pk"]), claims.reviewer)
        return LinkView(claims, link, deadline, wait or None, presence)

    def release(self, token: str) -> LinkView:
        """POST from the page's release button: this reviewer is no longer looking."""
        claims, link = self.gate.check(token, "review")
        pk = str(link.get("stagePk") or "")
        if pk:
            self.presence.release(pk, claims.reviewer)
        return LinkView(claims, link)

    def access(self, token: str) -> LinkView:
        """Previews and the download: only while the link may still decide, so a reviewer's
        access to the document ends with the stage."""
        claims, link = self.gate.check(token, "review")
        if link.get("state") != OPEN:
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
        doc = RunIds(claims.document_id, claims.version, link["runId"], link["runOrder"])
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
                    "bucket": str(link.get("bucket", "")),
                    "key": str(link.get("key", "")),
                },
            )
        )

    def _refuse_if_stage_over(self, link: dict[str, Any]) -> dict[str, Any]:
        wait = self.liveness.wait_of(link)
        if wait.get("ending"):
            self.liveness.wake(wait)
            raise self._closed(link, wait)
        return wait

    def _closed(self, link: dict[str, Any], wait: dict[str, Any] | None = None) -> ReviewRefused:
        """How the stage ended, for a genuine link whose stage is over."""
        return stage_over(link, self.liveness.wait_of(link) if wait is None else wait)

    def link_facts(self, token: str) -> dict[str, Any]:
        """The link's stored facts whatever its state (after a decision, say); {} if none."""
        return self.links.get(token) or {}

    def link(self, token: str) -> dict[str, Any]:
        """The link's stored facts (what the page was built from), after the usual checks."""
        return self.gate.check(token, "review")[1]

    def decide(
        self,
        token: str,
        approved: bool,
        comment: str,
        reason: str = "",
        corrections: dict[str, str] | None = None,
        doc_type: str = "",
        parts: list[list[int]] | None = None,
        add_supplier: bool = False,
    ) -> dict[str, Any]:
        """POST from the review page: consume the link once and resume the execution.
        `corrections`: validated field values (docflow.extract.corrections), with an approval.
        `doc_type`: a triage link's pick, one of its `typeChoices`, with an approval; "none of
        these" is a rejection for the reason `unclassifiable`. `parts`: a split link's
        documents, every page of the packet in exactly one, with an approval. `add_supplier`:
        register the issuer with the checked ids the page offered, with an approval."""
        claims, link = self.gate.check(token, "review")
        if add_supplier and not supplier_offer(link.get("summary") or {}):
            raise ReviewRefused(400, "no-supplier-offer", "this document offers no supplier to add")
        parts = self._checked_parts(link, approved, parts)
        choices = choices_of(link.get("summary"))
        none_of_these = bool(choices) and reason == UNCLASSIFIABLE
        if not approved and reason not in REJECT_REASONS and not none_of_these:
            raise ReviewRefused(400, "no-reason", "choose why you reject the document")
        if not approved and other_without_comment(reason, comment):
            raise ReviewRefused(400, "no-comment", OTHER_NEEDS_COMMENT)
        if approved and (choices or doc_type):
            problem = type_problem(doc_type, choices, allow_none=False)
            if problem:
                raise ReviewRefused(400, "bad-doc-type", problem)
        decision = Decision.made(
            approved,
            claims.reviewer,
            comment.strip(),
            reason,
            corrections,
            doc_type=doc_type,
            parts=parts,
            add_supplier=add_supplier,
        )
        with spans.span(PART, "review decision", click_parent(link), click_facts(claims, approved)):
            return self.votes.count(token, claims, decision)

    @staticmethod
    def _checked_parts(link: dict[str, Any], approved: bool, parts: Any) -> list[list[int]] | None:
        """A split link's approval needs parts that hold every page once; no other link may
        carry parts (the API answers 400, `bad-split`, and nothing is decided)."""
        split = split_of(link.get("summary"))
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
    ) -> dict[str, Any]:
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
        decision, problem = machine_pick(decision, result, choices_of(link.get("summary")))
        if problem:
            raise ReviewRefused(400, "bad-doc-type", problem)
        facts = click_facts(claims, bool(result["approved"]))
        with spans.span(PART, "machine decision", click_parent(link), facts):
            return self.votes.count(token, claims, decision)
