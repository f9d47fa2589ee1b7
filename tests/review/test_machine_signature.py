"""A machine request (#31.7): signed with its integration's own secret over the timestamp, the
link's token hash and the body; the same signature twice is refused."""

from __future__ import annotations

import json
import time

import pytest

from docflow.review.access.machine import SeenSignatures, authenticate
from docflow.review.access.refusals import ReviewRefused
from docflow.review.access.signing import sign_body
from docflow.settings import load_settings
from tests.support.aws import Stack

SECRETS = {"service:indexer": b"i" * 40, "service:sorter": b"s" * 40}


class Secrets:
    def secret_for(self, integration: str) -> bytes | None:
        return SECRETS.get(integration)


def check(integration: str, token: str, body: bytes, ts: str, signature: str) -> dict:
    seen = SeenSignatures(load_settings().links_table)
    return authenticate(Secrets(), seen, integration, token, body, ts, signature, 300, time.time())


def test_signature_binds_the_link_the_integration_and_is_used_once(stack: Stack) -> None:
    body = json.dumps({"approved": True}).encode()
    now = str(int(time.time()))
    signature = sign_body(SECRETS["service:indexer"], now, "token-a", body)

    # Another link of the same integration: the token hash is signed, so it does not match.
    with pytest.raises(ReviewRefused) as other_link:
        check("service:indexer", "token-b", body, now, signature)
    assert other_link.value.code == "bad-signature"
    # Another integration's secret does not sign for this one.
    with pytest.raises(ReviewRefused) as other_service:
        check("service:sorter", "token-a", body, now, signature)
    assert other_service.value.code == "bad-signature"

    assert check("service:indexer", "token-a", body, now, signature)["approved"] is True
    with pytest.raises(ReviewRefused) as replayed:  # the same request again, in its window
        check("service:indexer", "token-a", body, now, signature)
    assert (replayed.value.status, replayed.value.code) == (409, "replayed")
