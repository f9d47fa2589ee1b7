"""The reviewers' side of a link: look at it, decide once, or (machines) complete it signed.

The only code that resumes executions. Every refusal is a `ReviewRefused` carrying the HTTP
status the callback API answers; nothing is sent to the durable service unless the link is
genuine, unexpired, unused and claimed by this request.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from docflow.ids import DocumentRef
from docflow.readmodel.schema import RunIds, make_report
from docflow.readmodel.transitions import APPROVED, REJECTED
from docflow.reporting import Reporter
from docflow.review.access.keys import KeySource
from docflow.review.access.links import OPEN, SUPERSEDED, USED, AlreadyDecided, LinkStore
from docflow.review.access.refusals import (
    REJECT_REASONS,
    REVOKED_MESSAGE,
    SUPERSEDED_MESSAGE,
    ReviewRefused,
    stage_over,
)
from docflow.review.access.revocation import Revocations
from docflow.review.access.signing import Claims, TokenError, check_body_signature, verify
from docflow.review.stage.callbacks import CallbackGone, CallbackSender
from docflow.review.stage.decisions import decision_payload
from docflow.review.stage.inbox import InboxIndex
from docflow.review.stage.presence import ClaimStore
from docflow.review.stage.records import (
    DECIDED,
    StageClosed,
    StageStore,
    decision_of,
    tally,
)
from docflow.review.stage.register import RegisterStore
from docflow.review.stage.triage import UNCLASSIFIABLE, choices_of, machine_pick, type_problem

MAX_COMMENT = 1000
# A round's callback times out at `roundEndsAt`; from a little before, a callback that answers
# "gone" means the execution is between two rounds (its next one will read the votes), not
# that the run ended.
ROUND_SLACK_S = 2


@dataclass(frozen=True)
class LinkView:
    claims: Claims
    link: dict[str, Any]
    deadline: int | None = None  # when the stage times out
    stage: dict[str, Any] | None = None  # the stage record: reviewers, quorum, votes so far
    claim: dict[str, Any] | None = None  # who is looking at the document now (maybe us)

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
        claim_s: int = 15 * 60,
    ) -> None:
        self.keys, self.links, self.callbacks, self.reporter = keys, links, callbacks, reporter
        self.register = register or RegisterStore(links.table)
        self.stages = StageStore(links.table)
        self.claims = ClaimStore(links.table, claim_s)
        self.revocations = Revocations(links.table)
        self.inbox = InboxIndex(links.table)

    def _check(self, token: str, purpose: str) -> tuple[Claims, dict[str, Any]]:
        try:
            claims = verify(token, self.keys.ring())
        except TokenError as exc:
            raise ReviewRefused(exc.status, exc.code, str(exc)) from exc
        if claims.purpose != purpose:
            raise ReviewRefused(403, "wrong-door", "this link is not meant for this address")
        if self.revocations.is_revoked(claims.reviewer):
            raise ReviewRefused(403, "revoked", REVOKED_MESSAGE)
        link = self.links.get(token)
        bound = link is not None and (
            link.get("documentId"),
            link.get("version"),
            link.get("runId"),
        ) == (claims.document_id, claims.version, claims.run_id)
        if not bound or link is None:
            raise ReviewRefused(404, "unknown-link", "this link is not known here")
        if link.get("state") == USED:
            raise ReviewRefused(409, "already-used", "this link was already used", link)
        if link.get("state") == SUPERSEDED:
            raise ReviewRefused(409, "superseded", SUPERSEDED_MESSAGE, link)
        return claims, link

    def open(self, token: str) -> LinkView:
        """GET: show what is to be decided, keep the wait alive, and claim the document for
        this reviewer (or renew their claim; someone else's live claim stands). Decides
        nothing."""
        claims, link = self._check(token, "review")
        wait = self._refuse_if_stage_over(link)
        if not self._alive(link, wait):
            raise self._closed(link)
        deadline = int(wait["deadline"]) if wait.get("deadline") else None
        claim = self.claims.take(str(wait["pk"]), claims.reviewer) if wait.get("pk") else None
        return LinkView(claims, link, deadline, wait or None, claim)

    def release(self, token: str) -> LinkView:
        """POST from the page's release button: give this reviewer's claim back."""
        claims, link = self._check(token, "review")
        pk = str(link.get("stagePk") or "")
        if pk:
            self.claims.release(pk, claims.reviewer)
        return LinkView(claims, link)

    def access(self, token: str) -> LinkView:
        """Previews and the download: only while the link may still decide, so a reviewer's
        access to the document ends with the stage."""
        claims, link = self._check(token, "review")
        if link.get("state") != OPEN:
            raise ReviewRefused(409, "deciding", "a decision on this link is under way", link)
        self._refuse_if_stage_over(link)
        return LinkView(claims, link)

    def _wait(self, link: dict[str, Any]) -> dict[str, Any]:
        """The link's stage record (votes, current callback, ending); {} if it has none."""
        pk = str(link.get("stagePk") or link.get("waitPk") or "")
        return (self.register.get_wait(pk) if pk else None) or {}

    def _refuse_if_stage_over(self, link: dict[str, Any]) -> dict[str, Any]:
        wait = self._wait(link)
        if wait.get("ending"):
            self._wake(wait)
            raise self._closed(link, wait)
        return wait

    def _alive(self, link: dict[str, Any], wait: dict[str, Any]) -> bool:
        """Is the execution still waiting on this stage? A heartbeat to its current callback
        says so; "gone" near the end of a round means it is between rounds, which counts."""
        callback_id = wait.get("callbackId") or link.get("callbackId")
        if not callback_id:
            return False
        try:
            self.callbacks.heartbeat(str(callback_id))
        except CallbackGone:
            ends = int(wait.get("roundEndsAt") or 0)
            return bool(ends) and time.time() >= ends - ROUND_SLACK_S
        return True

    def _wake(self, wait: dict[str, Any]) -> None:
        """Send a decided stage's decision to its current callback if nobody has yet (the
        deciding request's own call failed): every later look at the stage retries it."""
        ending = wait.get("ending") or {}
        if ending.get("how") != DECIDED or wait.get("woken") or not wait.get("callbackId"):
            return
        decision = {k: v for k, v in ending.items() if k not in ("how", "at")}
        try:
            self.callbacks.success(str(wait["callbackId"]), json.dumps(decision).encode())
        except CallbackGone:
            pass  # nothing waits on it any more: the execution read the ending itself
        except Exception:
            return
        self.stages.mark_woken(str(wait["pk"]))

    def _closed(self, link: dict[str, Any], wait: dict[str, Any] | None = None) -> ReviewRefused:
        """How the stage ended, for a genuine link whose stage is over."""
        return stage_over(link, self._wait(link) if wait is None else wait)

    def link_facts(self, token: str) -> dict[str, Any]:
        """The link's stored facts whatever its state (after a decision, say); {} if none."""
        return self.links.get(token) or {}

    def link(self, token: str) -> dict[str, Any]:
        """The link's stored facts (what the page was built from), after the usual checks."""
        return self._check(token, "review")[1]

    def decide(
        self,
        token: str,
        approved: bool,
        comment: str,
        reason: str = "",
        corrections: dict[str, str] | None = None,
        doc_type: str = "",
    ) -> dict[str, Any]:
        """POST from the review page: consume the link once and resume the execution.
        `corrections`: validated field values (docflow.extract.corrections), with an approval.
        `doc_type`: a triage link's pick, one of its `typeChoices`, with an approval; "none of
        these" is a rejection for the reason `unclassifiable`."""
        claims, link = self._check(token, "review")
        choices = choices_of(link.get("summary"))
        none_of_these = bool(choices) and reason == UNCLASSIFIABLE
        if not approved and reason not in REJECT_REASONS and not none_of_these:
            raise ReviewRefused(400, "no-reason", "choose why you reject the document")
        if approved and (choices or doc_type):
            problem = type_problem(doc_type, choices, allow_none=False)
            if problem:
                raise ReviewRefused(400, "bad-doc-type", problem)
        decision: dict[str, Any] = {
            "approved": approved,
            "reviewer": claims.reviewer,
            "comment": comment.strip()[:MAX_COMMENT],
            "decidedAt": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if not approved:
            decision["rejectReason"] = reason
        if approved and corrections:
            decision["corrections"] = corrections
        if approved and doc_type:
            decision["docType"] = doc_type
        return self._complete(token, claims, decision)

    def machine(
        self,
        token: str,
        body: bytes,
        timestamp: str,
        signature: str,
        window_s: int,
        now: float | None = None,
    ) -> dict[str, Any]:
        """POST from a service: body signed over `<timestamp>.<body>` within a replay window.
        On a triage link an approval names the type, `"docType"`: one of the link's
        `typeChoices`, or `unclassifiable` to archive the document."""
        claims, link = self._check(token, "machine")
        now = time.time() if now is None else now
        try:
            sent_at = int(timestamp)
        except ValueError:
            raise ReviewRefused(
                400, "bad-timestamp", "X-Docflow-Timestamp must be epoch seconds"
            ) from None
        if abs(now - sent_at) > window_s:
            raise ReviewRefused(403, "stale-request", "the request is outside the replay window")
        ring = self.keys.ring()
        if not signature or not any(
            check_body_signature(k, timestamp, body, signature) for k in ring.keys.values()
        ):
            raise ReviewRefused(403, "bad-signature", "the request signature does not match")
        try:
            result = json.loads(body)
        except ValueError:
            raise ReviewRefused(400, "bad-json", "the body is not JSON") from None
        if not isinstance(result, dict) or not isinstance(result.get("approved"), bool):
            raise ReviewRefused(400, "bad-result", 'the body needs a boolean "approved"')
        decision = {
            "approved": result["approved"],
            "reviewer": claims.reviewer,
            "comment": str(result.get("comment", ""))[:MAX_COMMENT],
            "decidedAt": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        decision, problem = machine_pick(decision, result, choices_of(link.get("summary")))
        if problem:
            raise ReviewRefused(400, "bad-doc-type", problem)
        return self._complete(token, claims, decision)

    def _complete(self, token: str, claims: Claims, decision: dict[str, Any]) -> dict[str, Any]:
        """Claim the link, count its vote in the stage record, and wake the execution if the
        vote decided the stage. The vote is the durable part; the callback only wakes."""
        try:
            link = self.links.claim(token)
        except AlreadyDecided as exc:
            raise ReviewRefused(
                409, "already-used", "this link was already used", exc.link
            ) from exc
        pk = str(link.get("stagePk") or "")
        if not pk:
            return self._complete_alone(token, claims, link, decision)
        kept = ("approved", "comment", "rejectReason", "corrections", "docType")
        vote = {k: decision[k] for k in kept if k in decision}
        vote["at"] = decision["decidedAt"]
        try:
            wait = self.stages.get(pk) or {}
            if wait.get("ending") or not self._alive(link, wait):
                self.links.complete(token, {**decision, "delivery": "not-waiting"})
                raise self._closed(link, wait)
            try:
                item = self.stages.vote(pk, claims.reviewer, vote)
            except StageClosed as exc:
                self.links.complete(token, {**decision, "delivery": "not-waiting"})
                raise self._closed(link, exc.item) from None
        except ReviewRefused:
            raise
        except Exception:
            self.links.release(token)  # a passing failure before the vote: try again
            raise
        self.links.complete(token, decision)
        # Voted: the stage no longer waits on this reviewer (the others' items stay). A failure
        # here only leaves the item until the stage ends; the vote already counts.
        with contextlib.suppress(Exception):
            self.inbox.close(claims.run_id, claims.stage_index, [claims.reviewer], "voted")
        state = tally(item)
        if not state["decided"]:
            return {**decision, "stage": state}
        full = decision_of(item, claims.reviewer)
        written, item = self.stages.set_ending(pk, {"how": DECIDED, **full})
        ending = item.get("ending") or {}
        if ending.get("how") != DECIDED:
            raise self._closed(link, item)  # a newer run ended the stage first
        if written:
            self._report(claims, link, full)
            self._wake(item)
        return {**decision, "stage": state, "votes": full["votes"]}

    def _complete_alone(
        self, token: str, claims: Claims, link: dict[str, Any], decision: dict[str, Any]
    ) -> dict[str, Any]:
        """A link with no stage record (a hand-made machine link): it decides by itself."""
        try:
            self.callbacks.success(link["callbackId"], json.dumps(decision).encode("utf-8"))
        except CallbackGone:
            self.links.complete(token, {**decision, "delivery": "not-waiting"})
            raise self._closed(link) from None
        except Exception:
            self.links.release(token)  # a passing failure: the reviewer may try again
            raise
        self.links.complete(token, decision)
        if link.get("waitPk"):
            self.register.set_ending(
                str(link["waitPk"]),
                {
                    "how": "decided",
                    "approved": decision["approved"],
                    "reviewer": decision["reviewer"],
                    "decidedAt": decision["decidedAt"],
                },
            )
        self._report(claims, link, decision)
        return decision

    def _report(self, claims: Claims, link: dict[str, Any], decision: dict[str, Any]) -> None:
        """The decision in the read model at once; the orchestrator's own report of it has the
        same event id, so whichever lands second is a duplicate."""
        status = APPROVED if decision["approved"] else REJECTED
        reason = ""
        if not decision["approved"]:
            unclassifiable = decision.get("rejectReason") == UNCLASSIFIABLE
            reason = UNCLASSIFIABLE if unclassifiable else "rejected"
        fields = (link.get("summary") or {}).get("fields") or {}
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


def _doc_for(link: dict[str, Any], claims: Claims) -> RunIds:
    """The run the link belongs to, identified as the orchestrator identifies it."""
    return RunIds(claims.document_id, claims.version, link["runId"], link["runOrder"])
