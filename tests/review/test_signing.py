"""Signed review tokens: round trip, tampering, expiry, rotation, malformed input."""

from __future__ import annotations

import base64
import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docflow.review.access.signing import (
    BadSignature,
    ExpiredToken,
    KeyRing,
    MalformedToken,
    TokenClaims,
    TokenError,
    UnknownKey,
    mint,
    verify,
)

RING = KeyRing.from_json(KeyRing.generate_json("k1"))
CLAIMS = TokenClaims(
    "d-1", "v1", "doc-1", 0, "legal", "legal@example.com", int(time.time()) + 3600, "nonce-1"
)


def reencode(token: str, **changes: object) -> str:
    """Change claims without re-signing: what an attacker holding a link can do."""
    version, kid, body, sig = token.split(".")
    wire = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    wire.update(changes)
    new_body = base64.urlsafe_b64encode(json.dumps(wire).encode()).rstrip(b"=").decode()
    return ".".join([version, kid, new_body, sig])


def test_round_trip() -> None:
    token = mint(CLAIMS, RING)
    assert verify(token, RING) == CLAIMS
    assert all(c.isalnum() or c in "-_." for c in token)  # nothing a URL needs escaped


@pytest.mark.parametrize("field", ["d", "v", "r", "i", "s", "u", "e", "n", "p"])
def test_tampering_with_any_claim_breaks_the_signature(field: str) -> None:
    token = mint(CLAIMS, RING)
    new_value = {"i": 1, "e": CLAIMS.expires_at + 10**6, "p": "machine"}.get(field, "evil")
    with pytest.raises(BadSignature):
        verify(reencode(token, **{field: new_value}), RING)


def test_tampered_signature_and_key_id() -> None:
    token = mint(CLAIMS, RING)
    flipped = token[:-1] + ("A" if token[-1] != "A" else "B")
    with pytest.raises(BadSignature):
        verify(flipped, RING)
    with pytest.raises(UnknownKey):
        verify(token.replace("v1.k1.", "v1.k9.", 1), RING)


def test_expired() -> None:
    token = mint(TokenClaims(**{**CLAIMS.__dict__, "expires_at": int(time.time()) - 1}), RING)
    with pytest.raises(ExpiredToken) as caught:
        verify(token, RING)
    assert caught.value.status == 410


def test_rotation_keeps_old_links_working() -> None:
    old_ring_doc = KeyRing.generate_json("k1")
    old = KeyRing.from_json(old_ring_doc)
    rotated = KeyRing.from_json(KeyRing.generate_json("k2", previous=old_ring_doc))
    old_token, new_token = mint(CLAIMS, old), mint(CLAIMS, rotated)
    assert new_token.startswith("v1.k2.")
    assert verify(old_token, rotated) == CLAIMS  # signed before rotation, still good
    assert verify(new_token, rotated) == CLAIMS
    with pytest.raises(UnknownKey):
        verify(new_token, old)  # the old ring never learned k2
    retired = KeyRing(current="k2", keys={"k2": rotated.keys["k2"]})
    with pytest.raises(UnknownKey):
        verify(old_token, retired)  # dropping k1 retires its links


def test_a_foreign_key_with_the_same_id_is_refused() -> None:
    other = KeyRing.from_json(KeyRing.generate_json("k1"))
    with pytest.raises(BadSignature):
        verify(mint(CLAIMS, other), RING)


@pytest.mark.parametrize(
    "bad",
    ["", "v1", "v2.k1.abc.def", "v1.k1..sig", "v1.k1.a.b.c", "v1.k1.%%%." + "A" * 43, "x" * 5000],
)
def test_malformed(bad: str) -> None:
    with pytest.raises(MalformedToken):
        verify(bad, RING)


@given(st.text(max_size=300))
def test_random_text_is_never_accepted(text: str) -> None:
    with pytest.raises(TokenError):
        verify(text, RING)


def test_short_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="shorter than 32"):
        KeyRing(current="k1", keys={"k1": b"short"})
