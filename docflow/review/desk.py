"""The reviewers' side of a link: look at it, decide once, or (machines) complete it signed.

The only code that resumes executions. Every refusal is a `ReviewRefused` carrying the HTTP
status the callback API answers; nothing is sent to the durable service unless the link is
genuine, unexpired, unused and claimed by this request.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from botocore.exceptions import ClientError

from docflow import aws
from docflow.readmodel.schema import RunIds, make_report
from docflow.readmodel.transitions import APPROVED, REJECTED
from docflow.reporting import Reporter
from docflow.review.keys import KeySource
from docflow.review.links import USED, AlreadyDecided, LinkStore
from docflow.review.signing import Claims, TokenError, check_body_signature, verify

MAX_COMMENT = 1000


class ReviewRefused(Exception):
    def __init__(
        self, status: int, code: str, message: str, link: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.link = status, code, link


class CallbackGone(Exception):
    """The execution is no longer waiting on this callback (decided, timed out, finished)."""


class CallbackSender(Protocol):
    def success(self, callback_id: str, result: bytes) -> None: ...

    def heartbeat(self, callback_id: str) -> None: ...


class LambdaCallbackSender:
    """SendDurableExecutionCallback* through the Lambda API (the real service or the runner)."""

    _GONE = frozenset(
        {
            "ResourceNotFoundException",
            "InvalidParameterValueException",
            "ConflictException",
            "CallbackTimeoutException",
            "IllegalStateException",
        }
    )

    def success(self, callback_id: str, result: bytes) -> None:
        self._call("send_durable_execution_callback_success", CallbackId=callback_id, Result=result)

    def heartbeat(self, callback_id: str) -> None:
        self._call("send_durable_execution_callback_heartbeat", CallbackId=callback_id)

    def _call(self, operation: str, **args: Any) -> None:
        try:
            getattr(aws.client("lambda"), operation)(**args)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in self._GONE:
                raise CallbackGone(str(exc.response["Error"].get("Code"))) from exc
            raise


@dataclass(frozen=True)
class LinkView:
    claims: Claims
    link: dict[str, Any]
    waiting: bool  # False when the heartbeat found the execution no longer waiting


class ReviewDesk:
    def __init__(
        self, keys: KeySource, links: LinkStore, callbacks: CallbackSender, reporter: Reporter
    ) -> None:
        self.keys, self.links, self.callbacks, self.reporter = keys, links, callbacks, reporter

    def _check(self, token: str, purpose: str) -> tuple[Claims, dict[str, Any]]:
        try:
            claims = verify(token, self.keys.ring())
        except TokenError as exc:
            raise ReviewRefused(exc.status, exc.code, str(exc)) from exc
        if claims.purpose != purpose:
            raise ReviewRefused(403, "wrong-door", "this link is not meant for this address")
        link = self.links.get(token)
        if link is None or link.get("documentId") != claims.document_id:
            raise ReviewRefused(404, "unknown-link", "this link is not known here")
        if link.get("state") == USED:
            raise ReviewRefused(409, "already-used", "this link was already used", link)
        return claims, link

    def open(self, token: str) -> LinkView:
        """GET: show what is to be decided and keep the wait alive. Decides nothing."""
        claims, link = self._check(token, "review")
        try:
            self.callbacks.heartbeat(link["callbackId"])
            waiting = True
        except CallbackGone:
            waiting = False
        return LinkView(claims, link, waiting)

    def decide(self, token: str, approved: bool, comment: str) -> dict[str, Any]:
        """POST from the review page: consume the link once and resume the execution."""
        claims, _ = self._check(token, "review")
        decision = {
            "approved": approved,
            "reviewer": claims.reviewer,
            "comment": comment.strip()[:MAX_COMMENT],
            "decidedAt": datetime.now(UTC).isoformat(timespec="seconds"),
        }
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
        """POST from a service: body signed over `<timestamp>.<body>` within a replay window."""
        claims, _ = self._check(token, "machine")
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
        return self._complete(token, claims, decision)

    def _complete(self, token: str, claims: Claims, decision: dict[str, Any]) -> dict[str, Any]:
        try:
            link = self.links.claim(token)
        except AlreadyDecided as exc:
            raise ReviewRefused(
                409, "already-used", "this link was already used", exc.link
            ) from exc
        try:
            self.callbacks.success(link["callbackId"], json.dumps(decision).encode("utf-8"))
        except CallbackGone as exc:
            self.links.complete(token, {**decision, "outcome": "not-waiting"})
            raise ReviewRefused(
                409, "not-waiting", "this document is no longer waiting for this review"
            ) from exc
        except Exception:
            self.links.release(token)  # a passing failure: the reviewer may try again
            raise
        self.links.complete(token, decision)
        self._report(claims, link, decision)
        return decision

    def _report(self, claims: Claims, link: dict[str, Any], decision: dict[str, Any]) -> None:
        """The decision in the read model at once; the orchestrator's own report of it has the
        same event id, so whichever lands second is a duplicate."""
        doc = _doc_for(link, claims)
        status = APPROVED if decision["approved"] else REJECTED
        payload = {
            "stageIndex": claims.stage_index,
            "stageName": claims.stage_name,
            "decision": status,
            "reviewer": decision["reviewer"],
            "decidedAt": decision["decidedAt"],
        }
        if decision["comment"]:
            payload["comment"] = decision["comment"]
        if not decision["approved"]:
            payload["reason"] = "rejected"
        report = make_report(
            doc,
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
