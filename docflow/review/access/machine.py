"""A service's request on a machine link: signed with that integration's own secret over
`<timestamp>.<token hash>.<body>`, sent within a replay window, never seen before, with a
JSON body that has a boolean `approved`. What it decides is the desk's business; this only
says whether to believe it.

A signature is remembered until its window ends (a conditional put in the links table, with a
TTL), so the same signed request sent twice is refused even before the link's single use
would refuse it, and even on a link that does not spend its use (a refused body).
"""

from __future__ import annotations

import json
from typing import Protocol, Required, TypedDict

from docflow.dynamo import ConditionFailed, Table
from docflow.review.access.refusals import ReviewRefused
from docflow.review.access.signing import check_body_signature


class MachineResult(TypedDict, total=False):
    """A machine's body: `approved` checked here; the rest as sent, which the desk checks
    (a comment, a split's parts, a triage pick)."""

    approved: Required[bool]
    comment: object
    parts: object
    docType: object


class Secrets(Protocol):
    def secret_for(self, integration: str) -> bytes | None: ...


class SeenSignatures:
    """Signatures already accepted, each kept until its replay window ends."""

    def __init__(self, table: str) -> None:
        self.table = table

    def first_time(self, signature: str, until: int) -> bool:
        try:
            # UpdateItem creates the item as a put would, under the permission the callback
            # API already has on this table.
            Table(self.table).update(
                {"pk": f"MSIG#{signature}"},
                "SET expiresAt = :until",
                condition="attribute_not_exists(pk)",
                values={":until": until},
            )
        except ConditionFailed:
            return False
        return True


def authenticate(
    secrets: Secrets,
    seen: SeenSignatures,
    integration: str,
    token: str,
    body: bytes,
    timestamp: str,
    signature: str,
    window_s: int,
    now: float,
) -> MachineResult:
    """The request's result (`{"approved", "comment"?, "docType"?}`), or a `ReviewRefused`."""
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise ReviewRefused(
            400, "bad-timestamp", "X-Docflow-Timestamp must be epoch seconds"
        ) from None
    if abs(now - sent_at) > window_s:
        raise ReviewRefused(403, "stale-request", "the request is outside the replay window")
    key = secrets.secret_for(integration)
    if not key or not signature or not check_body_signature(key, timestamp, token, body, signature):
        raise ReviewRefused(403, "bad-signature", "the request signature does not match")
    if not seen.first_time(signature.strip().lower(), sent_at + window_s + 1):
        raise ReviewRefused(409, "replayed", "this signed request was already received")
    try:
        result: MachineResult = json.loads(body)
    except ValueError:
        raise ReviewRefused(400, "bad-json", "the body is not JSON") from None
    if not isinstance(result, dict) or not isinstance(result.get("approved"), bool):
        raise ReviewRefused(400, "bad-result", 'the body needs a boolean "approved"')
    return result
