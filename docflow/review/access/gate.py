"""The token gate: every request under a link passes here before anything is read or sent.

A token is genuine (signature, expiry), meant for this door (its purpose), held by a reviewer
who was not revoked, and bound to a stored link of the same document, version and run that is
neither used nor superseded; anything else is a `ReviewRefused` with the status to answer.
"""

from __future__ import annotations

from docflow.review.access.keys import KeySource
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.links import SUPERSEDED, USED, LinkStore
from docflow.review.access.refusals import REVOKED_MESSAGE, SUPERSEDED_MESSAGE, ReviewRefused
from docflow.review.access.revocation import Revocations
from docflow.review.access.signing import TokenClaims, TokenError, verify


class TokenGate:
    def __init__(self, keys: KeySource, links: LinkStore, revocations: Revocations) -> None:
        self.keys, self.links, self.revocations = keys, links, revocations

    def check(self, token: str, purpose: str) -> tuple[TokenClaims, LinkRecord]:
        """The token's claims and its stored link, or the refusal that says why not."""
        try:
            claims = verify(token, self.keys.ring())
        except TokenError as exc:
            raise ReviewRefused(exc.status, exc.code, str(exc)) from exc
        if claims.purpose != purpose:
            raise ReviewRefused(403, "wrong-door", "this link is not meant for this address")
        if self.revocations.is_revoked(claims.reviewer):
            raise ReviewRefused(403, "revoked", REVOKED_MESSAGE)
        link = self.links.get(token)
        bound = link is not None and (link.document_id, link.version, link.run_id) == (
            claims.document_id,
            claims.version,
            claims.run_id,
        )
        if not bound or link is None:
            raise ReviewRefused(404, "unknown-link", "this link is not known here")
        if link.state == USED:
            raise ReviewRefused(409, "already-used", "this link was already used", link)
        if link.state == SUPERSEDED:
            raise ReviewRefused(409, "superseded", SUPERSEDED_MESSAGE, link)
        return claims, link
