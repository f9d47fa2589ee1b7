"""The audit sample's secret: which documents read on a learned profile a person checks anyway.

The sample must be blind to what an uploader controls. A hash of the bucket and key (the
document id) is a function of the file name: whoever uploads can compute it, choose a name
that is never sampled, and send any bytes under it. So the sample is an HMAC-SHA256, under a
key nobody outside docflow holds, of the document's content tag (the ETag S3 gives its
bytes; its version id where the tag is unknown) and its version: new bytes under the same
name are a new draw, and the same version answers the same on every run and replay.

The key is derived from the review-link signing key ring (`docflow.review.access.keys`: the
template's `SigningSecret` in AWS, the secret the local stack generates locally), with
HKDF-SHA256 (RFC 5869) under a purpose label of its own. One secret to provision, rotate and
guard; the derived key signs nothing (a review token is an HMAC under the ring's key itself,
never under this one) and reveals nothing of the ring's key. Rotating the ring re-keys the
sample, which is what a rotation after a leak should do; a run's answer is its checkpoint
and the ledger's (`docflow.suppliers.audit`), so documents already sampled stay so.
docs/security.md says why a derived key rather than a second secret.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Protocol

PURPOSE = b"docflow audit sample v1"
BUCKETS = 10000  # the rate is known to a hundredth of a percent
_HASH_LEN = 32


class SigningRing(Protocol):
    """The review links' key ring as this module needs it (`docflow.review.access.signing.
    KeyRing`, which the pipeline's audit step reads: the suppliers room does not import the
    review room, which imports it)."""

    @property
    def current(self) -> str: ...

    @property
    def keys(self) -> Mapping[str, bytes]: ...


def hkdf_sha256(ikm: bytes, info: bytes, salt: bytes = b"", length: int = _HASH_LEN) -> bytes:
    """RFC 5869's HKDF with SHA-256: extract (HMAC of the input key under the salt, a zero
    salt by default), then expand under `info`. The standard library's `hmac` is the whole of
    it; tests/suppliers/test_audit_sample.py checks it against the RFC's test vectors."""
    if not 0 < length <= 255 * _HASH_LEN:
        raise ValueError("HKDF can derive 1 to 8160 bytes")
    prk = hmac.new(salt or bytes(_HASH_LEN), ikm, hashlib.sha256).digest()
    out, block = b"", b""
    counter = 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def sample_key(ring: SigningRing) -> bytes:
    """The audit sample's key, derived from the ring's current signing key."""
    return hkdf_sha256(ring.keys[ring.current], PURPOSE)


def draw(key: bytes, content: str, version: str) -> int:
    """The document's draw, 0..BUCKETS-1: an HMAC of its content tag and version."""
    message = f"{content}\x1f{version}".encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % BUCKETS


def sampled(key: bytes, content: str, version: str, rate: float) -> bool:
    """Whether the document is in the audit's sample at `rate` (0..1)."""
    return draw(key, content, version) < round(rate * BUCKETS)
