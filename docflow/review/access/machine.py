"""A service's request on a machine link: signed over `<timestamp>.<body>` with one of the
current signing keys, sent within a replay window, with a JSON body that has a boolean
`approved`. What it decides is the desk's business; this only says whether to believe it."""

from __future__ import annotations

import json
from typing import Any

from docflow.review.access.keys import KeySource
from docflow.review.access.refusals import ReviewRefused
from docflow.review.access.signing import check_body_signature


def authenticate(
    keys: KeySource,
    body: bytes,
    timestamp: str,
    signature: str,
    window_s: int,
    now: float,
) -> dict[str, Any]:
    """The request's result (`{"approved", "comment"?, "docType"?}`), or a `ReviewRefused`."""
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise ReviewRefused(
            400, "bad-timestamp", "X-Docflow-Timestamp must be epoch seconds"
        ) from None
    if abs(now - sent_at) > window_s:
        raise ReviewRefused(403, "stale-request", "the request is outside the replay window")
    ring = keys.ring()
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
    return result
