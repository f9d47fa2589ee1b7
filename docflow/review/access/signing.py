"""Signed review tokens: HMAC-SHA256 over a compact claim set, with a key id for rotation.

    v1.<kid>.<base64url(claims JSON)>.<base64url(HMAC-SHA256(key, "v1.<kid>.<claims>"))>

Everything is URL-safe (no `+ / =`). The callback id is never in a token; it is stored
server-side under the token's hash. Verification compares signatures in constant time and
checks the key id against the key ring, so a rotated key and its predecessor both verify.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any, TypedDict

_TOKEN_RE = re.compile(r"^v1\.([A-Za-z0-9_-]{1,32})\.([A-Za-z0-9_-]{1,2048})\.([A-Za-z0-9_-]{43})$")
MAX_TOKEN_LENGTH = 2200
PURPOSES = ("review", "machine", "inbox")


class TokenError(Exception):
    """A token that must be refused; `status` is the HTTP status the callback API answers."""

    status = 400
    code = "malformed"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class MalformedToken(TokenError):
    status, code = 400, "malformed"


class BadSignature(TokenError):
    status, code = 403, "bad-signature"


class UnknownKey(TokenError):
    status, code = 403, "unknown-key"


class ExpiredToken(TokenError):
    status, code = 410, "expired"


@dataclass(frozen=True)
class KeyRing:
    """Signing keys by id; `current` signs, every key in `keys` verifies."""

    current: str
    keys: dict[str, bytes]

    def __post_init__(self) -> None:
        if self.current not in self.keys:
            raise ValueError("the current key id is not in the key ring")
        for kid, key in self.keys.items():
            if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", kid):
                raise ValueError(f"key id {kid!r} must be 1-32 URL-safe characters")
            if len(key) < 32:
                raise ValueError(f"key {kid!r} is shorter than 32 bytes")

    @classmethod
    def from_json(cls, raw: str) -> KeyRing:
        """`{"current": "k2", "k1": "<secret>", "k2": "<secret>"}`: the shape the template's
        generated secret has, so rotation is "add a key, point current at it"."""
        doc = json.loads(raw)
        if not isinstance(doc, dict) or not isinstance(doc.get("current"), str):
            raise ValueError("the key ring must be a JSON object with a 'current' key id")
        keys = {kid: str(value).encode("utf-8") for kid, value in doc.items() if kid != "current"}
        return cls(current=doc["current"], keys=keys)

    @staticmethod
    def generate_json(kid: str = "k1", previous: str | None = None) -> str:
        """A new key ring document; with `previous`, its keys keep verifying."""
        doc: dict[str, str] = json.loads(previous) if previous else {}
        doc[kid] = secrets.token_urlsafe(48)
        doc["current"] = kid
        return json.dumps(doc)


class WireClaims(TypedDict):
    """A token's claims as signed: one letter a claim, to keep links short."""

    d: str
    v: str
    r: str
    i: int
    s: str
    u: str
    e: int
    n: str
    p: str


@dataclass(frozen=True)
class TokenClaims:
    document_id: str
    version: str
    run_id: str
    stage_index: int
    stage_name: str
    reviewer: str
    expires_at: int
    nonce: str
    # "review" (a person's link to one stage), "machine" (completed by a service, not a
    # person), or "inbox" (a reviewer's list of what waits on them: no document in it).
    # A link is accepted only at the door of its own purpose.
    purpose: str = "review"

    def to_wire(self) -> WireClaims:
        return {
            "d": self.document_id,
            "v": self.version,
            "r": self.run_id,
            "i": self.stage_index,
            "s": self.stage_name,
            "u": self.reviewer,
            "e": self.expires_at,
            "n": self.nonce,
            "p": self.purpose,
        }

    @classmethod
    def from_wire(cls, wire: Any) -> TokenClaims:
        try:
            claims = cls(
                document_id=str(wire["d"]),
                version=str(wire["v"]),
                run_id=str(wire["r"]),
                stage_index=int(wire["i"]),
                stage_name=str(wire["s"]),
                reviewer=str(wire["u"]),
                expires_at=int(wire["e"]),
                nonce=str(wire["n"]),
                purpose=str(wire.get("p", "review")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedToken("the token's claims are incomplete") from exc
        if claims.purpose not in PURPOSES:
            raise MalformedToken("the token's purpose is unknown")
        return claims


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(key: bytes, signed_part: str) -> str:
    return _b64(hmac.new(key, signed_part.encode("ascii"), hashlib.sha256).digest())


def mint(claims: TokenClaims, ring: KeyRing) -> str:
    body = _b64(json.dumps(claims.to_wire(), separators=(",", ":"), sort_keys=True).encode())
    signed = f"v1.{ring.current}.{body}"
    return f"{signed}.{_sign(ring.keys[ring.current], signed)}"


def verify(token: str, ring: KeyRing, now: float | None = None) -> TokenClaims:
    """The token's claims, or a TokenError saying why not (signature before anything else)."""
    if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH:
        raise MalformedToken("the link is not a docflow review link")
    match = _TOKEN_RE.match(token)
    if not match:
        raise MalformedToken("the link is not a docflow review link")
    kid, body, signature = match.groups()
    key = ring.keys.get(kid)
    if key is None:
        raise UnknownKey("the link was signed with a key this service does not know")
    expected = _sign(key, f"v1.{kid}.{body}")
    if not hmac.compare_digest(expected.encode("ascii"), signature.encode("ascii")):
        raise BadSignature("the link's signature does not match")
    try:
        wire = json.loads(_unb64(body))
    except (ValueError, binascii.Error) as exc:
        raise MalformedToken("the link's claims cannot be read") from exc
    claims = TokenClaims.from_wire(wire)
    if claims.expires_at <= (time.time() if now is None else now):
        raise ExpiredToken("the link has expired")
    return claims


def token_hash(token: str) -> str:
    """What the server stores a token under: a leaked table does not leak working links."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_nonce() -> str:
    return secrets.token_urlsafe(12)


def sign_body(key: bytes, timestamp: str, token: str, body: bytes) -> str:
    """Machine callbacks: HMAC-SHA256 over `<timestamp>.<token hash>.<body>`, hex-encoded.
    The link's token hash is signed too, so a signed body cannot be replayed on another link
    of the same integration."""
    signed = f"{timestamp}.{token_hash(token)}.".encode("ascii") + body
    return hmac.new(key, signed, hashlib.sha256).hexdigest()


def check_body_signature(
    key: bytes, timestamp: str, token: str, body: bytes, signature: str
) -> bool:
    return hmac.compare_digest(sign_body(key, timestamp, token, body), signature.strip().lower())
