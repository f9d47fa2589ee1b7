"""Inbox links: one signed link per reviewer to the list of what waits on them.

The token is a review token (`docflow.review.access.signing`: same format, same key ring, same
rotation) with purpose "inbox", the reviewer's address, an expiry and a nonce, and no document:
the review desk refuses it as a review link and the inbox refuses review links. Two items in the
links table, as for review links:

    INBOXSLOT#<sha(reviewer)>   the link's non-secret parts (key id, nonce, expiry), so the
                                digest and `docflow inbox` re-mint the very same link until it
                                nears its expiry; then a new slot, a new link
    INBOXLINK#<sha(token)>      the reviewer the link stands for, until it expires (TTL)

Nothing stored is a working link: a token can be re-minted only with the signing key.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from typing import Required, TypedDict

from docflow.dynamo import ConditionFailed, Table
from docflow.review.access.signing import (
    KeyRing,
    TokenClaims,
    TokenError,
    mint,
    new_nonce,
    token_hash,
    verify,
)

INBOX = "inbox"


class InboxRefused(Exception):
    """An inbox link that lists nothing: 403 whatever the reason (tampered, expired, another
    purpose, unknown, revoked), so a guesser learns nothing from the status."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = 403, code


class InboxSlot(TypedDict):
    """`INBOXSLOT#`: what re-mints the reviewer's inbox link (module docstring)."""

    pk: str
    kid: str
    nonce: str
    linkExpiresAt: int
    expiresAt: int


class InboxLinkItem(TypedDict, total=False):
    """`INBOXLINK#`: the reviewer a live inbox link stands for."""

    pk: Required[str]
    reviewer: str
    expiresAt: int


def _slot_pk(reviewer: str) -> str:
    return f"INBOXSLOT#{hashlib.sha256(reviewer.encode('utf-8')).hexdigest()}"


def inbox_claims(reviewer: str, expires_at: int, nonce: str) -> TokenClaims:
    return TokenClaims(
        document_id="",
        version="",
        run_id="",
        stage_index=0,
        stage_name="",
        reviewer=reviewer,
        expires_at=expires_at,
        nonce=nonce,
        purpose=INBOX,
    )


class InboxLinks:
    def __init__(self, table: str) -> None:
        self.table = table
        # One table, two kinds of item.
        self._slots: Table[InboxSlot] = Table(table)
        self._links: Table[InboxLinkItem] = Table(table)

    def issue(self, reviewer: str, ring: KeyRing, ttl_s: int) -> str:
        """The reviewer's inbox link: the same one while more than half its life is left."""
        now = int(time.time())
        pk = _slot_pk(reviewer)
        slot = self._slots.get({"pk": pk})
        # A slot whose key id was retired from the ring cannot mint a link that verifies.
        retired = slot is not None and str(slot.get("kid")) not in ring.keys
        if slot is None or retired or int(slot["linkExpiresAt"]) - now < ttl_s // 2:
            fresh: InboxSlot = {
                "pk": pk,
                "kid": ring.current,
                "nonce": new_nonce(),
                "linkExpiresAt": now + ttl_s,
                "expiresAt": now + ttl_s,
            }
            old = slot["linkExpiresAt"] if slot else 0
            try:  # two issuers at once: one new slot, and both mint from it
                self._slots.put(
                    fresh,
                    condition="attribute_not_exists(pk) OR linkExpiresAt = :old",
                    values={":old": old},
                )
                slot = fresh
            except ConditionFailed as failed:
                slot = self._slots.held(failed) or fresh
        claims = inbox_claims(reviewer, int(slot["linkExpiresAt"]), str(slot["nonce"]))
        token = mint(claims, KeyRing(current=str(slot["kid"]), keys=ring.keys))
        self._links.put(
            {
                "pk": f"INBOXLINK#{token_hash(token)}",
                "reviewer": reviewer,
                "expiresAt": int(slot["linkExpiresAt"]),
            }
        )
        return token

    def revoke(self, token: str, ring: KeyRing) -> str | None:
        """End this one inbox link (a forwarded or leaked one): its stored hash goes, and so
        does the reviewer's slot if it still mints this link, so the next digest hands out a
        new one. The reviewer's review links and their other inbox links keep working
        (revoking the reviewer is `access.revocation`). Returns the reviewer the link named,
        or None for a link that no longer verifies or is no inbox link."""
        self._links.delete({"pk": f"INBOXLINK#{token_hash(token)}"})
        try:
            claims = verify(token, ring)
        except TokenError:
            return None  # expired or foreign: nothing mints it any more
        if claims.purpose != INBOX:
            return None
        with contextlib.suppress(ConditionFailed):  # the slot mints a newer link already
            self._slots.delete(
                {"pk": _slot_pk(claims.reviewer)},
                condition="nonce = :nonce",
                values={":nonce": claims.nonce},
            )
        return claims.reviewer

    def check(self, token: str, ring: KeyRing) -> str:
        """The reviewer an inbox link names, or InboxRefused."""
        try:
            claims = verify(token, ring)
        except TokenError as exc:
            raise InboxRefused(exc.code, "this inbox link cannot be used") from exc
        if claims.purpose != INBOX:
            raise InboxRefused("wrong-door", "this link is not an inbox link")
        stored = self._links.get({"pk": f"INBOXLINK#{token_hash(token)}"})
        if stored is None or stored.get("reviewer") != claims.reviewer:
            raise InboxRefused("unknown-link", "this inbox link is not known here")
        return claims.reviewer
