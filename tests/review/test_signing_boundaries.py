"""The edges of link signing that mutation testing found untested (bench/README.md, "Mutation
testing"): the longest token read, the nonce's and a generated key's size, key ids with
capitals, the token's wire form, base64 that ends in a character `rstrip` could eat, and the
words each refusal says (a reviewer reads them on the refusal page; an operator reads the key
ring's)."""

from __future__ import annotations

import base64
import json
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from docflow.review.access.signing import (
    MAX_TOKEN_LENGTH,
    BadSignature,
    ExpiredToken,
    KeyRing,
    MalformedToken,
    TokenClaims,
    UnknownKey,
    _b64,
    _unb64,
    mint,
    new_nonce,
    verify,
)


def exactly(message: str) -> str:
    return f"^{re.escape(message)}$"


RING = KeyRing(current="k1", keys={"k1": b"k" * 32})
NOW = 1_800_000_000


def claims(reviewer: str = "ap@example.com", expires_at: int = NOW + 3600) -> TokenClaims:
    return TokenClaims("doc-1", "v1", "run-1", 0, "fields", reviewer, expires_at, "nonce")


def test_a_token_whose_claims_fill_the_pattern_is_read_a_longer_one_is_not() -> None:
    # The reviewer's address grows the body a character or two at a time: find one whose
    # body is exactly the 2,048 characters the token's pattern allows.
    def body(token: str) -> str:
        return token.split(".")[2]

    longest = next(
        t
        for n in range(1000, 2000)
        if len(body(t := mint(claims("a" * n + "@x.org"), RING))) == 2048
    )
    assert verify(longest, RING, now=NOW).reviewer.endswith("@x.org")
    assert len(longest) < MAX_TOKEN_LENGTH  # the length check only spares the pattern a flood
    n = len(verify(longest, RING, now=NOW).reviewer)
    longer = mint(claims("a" * (n - 5) + "@x.org"), RING)
    assert len(body(longer)) > 2048
    with pytest.raises(MalformedToken, match=exactly("the link is not a docflow review link")):
        verify(longer, RING, now=NOW)


def test_each_refusal_says_why() -> None:
    token = mint(claims(), RING)
    with pytest.raises(MalformedToken, match=exactly("the link is not a docflow review link")):
        verify(token[:40] + "A" * MAX_TOKEN_LENGTH + token[40:], RING, now=NOW)  # a flood
    with pytest.raises(MalformedToken, match=exactly("the link is not a docflow review link")):
        verify("v2." + token[3:], RING, now=NOW)
    other = KeyRing(current="k9", keys={"k9": b"k" * 32})
    with pytest.raises(
        UnknownKey, match=exactly("the link was signed with a key this service does not know")
    ):
        verify(token, other, now=NOW)
    with pytest.raises(BadSignature, match=exactly("the link's signature does not match")):
        verify(token[:-2] + ("AA" if token[-2:] != "AA" else "BB"), RING, now=NOW)
    with pytest.raises(ExpiredToken, match=exactly("the link has expired")):
        verify(mint(claims(expires_at=NOW), RING), RING, now=NOW)


def test_the_key_ring_says_what_is_wrong_with_it() -> None:
    with pytest.raises(ValueError, match=exactly("the current key id is not in the key ring")):
        KeyRing(current="k2", keys={"k1": b"k" * 32})
    with pytest.raises(
        ValueError, match=exactly("the key ring must be a JSON object with a 'current' key id")
    ):
        KeyRing.from_json('{"k1": "' + "k" * 32 + '"}')


def test_key_ids_may_have_capitals() -> None:
    ring = KeyRing(current="Key-2026_A", keys={"Key-2026_A": b"k" * 32})
    assert verify(mint(claims(), ring), ring, now=NOW).run_id == "run-1"


def test_a_nonce_carries_96_bits_and_a_generated_key_384() -> None:
    nonce = new_nonce()
    assert len(base64.urlsafe_b64decode(nonce)) == 12 and len(nonce) == 16
    ring = json.loads(KeyRing.generate_json())
    assert ring["current"] == "k1"  # the id docs/security.md's rotation starts from
    assert len(base64.urlsafe_b64decode(ring["k1"])) == 48


def test_the_body_is_the_claims_as_compact_json_with_sorted_keys() -> None:
    """One wire form: the same claims make the same token, as short as JSON makes it."""
    body = mint(claims(), RING).split(".")[2]
    wire = claims().to_wire()
    assert _unb64(body) == json.dumps(wire, separators=(",", ":"), sort_keys=True).encode()


@given(st.binary(max_size=64))
@example(b"\x00\x00\x17")  # "AAAX": a last character `rstrip` must leave alone
def test_base64_without_padding_round_trips(data: bytes) -> None:
    encoded = _b64(data)
    assert "=" not in encoded and _unb64(encoded) == data
