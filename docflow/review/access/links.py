"""Review links: minting them once per (run, stage, reviewer) and storing what they stand for.
(`docflow.review.notify.link_notifier` mails them.)

Two kinds of item in the links table:
    SLOT#<sha(run id#stage)>#<sha(reviewer)>  the link's non-secret parts (key id, nonce,
                                              expiry) and `sent`, the e-mails that went out
                                              ("request", "remind-<n>", "escalated"); while
                                              the stage waits on the reviewer, also their
                                              inbox item (`docflow.review.stage.inbox`)
    LINK#<sha(token)>                         what the link stands for: the stage record it
                                              votes in (`stagePk`), the document and stage,
                                              and its state (open -> deciding -> used, or
                                              superseded when a newer version replaced it)
The read model, logs and metrics name a link only by `link_id`, a 12-character prefix of the
token's hash. (The stage's votes and current callback are in `stages`, the document's newest
run in `register`.) Nothing stored is a working link: a token can be re-minted only with the
signing key, and every round of a stage re-mints the very same token from its slot (HMAC is
deterministic), so a reminder carries the link of the first e-mail, and a retried round sends
no e-mail twice and no second, different link.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from docflow.dynamo import ConditionFailed, Table
from docflow.review.access.link_record import LinkDecision, LinkItem, LinkRecord
from docflow.review.access.signing import KeyRing, TokenClaims, mint, new_nonce, token_hash
from docflow.review.stage.inbox import LinkSlot, slot_pk
from docflow.review.stage.records import stage_pk
from docflow.review.stage.requests import ReviewRequest
from docflow.review.stage.stage_record import DecisionJson
from docflow.telemetry import spans

OPEN, DECIDING, USED, SUPERSEDED = "open", "deciding", "used", "superseded"
# A link's single use that was spent but never completed (the process died mid-decision) may be
# spent again after this. The stored attribute keeps its name, `claimedAt`.
SPEND_TIMEOUT_S = 60
# Used links stay readable a while after expiry, so a second click still says "already used".
KEEP_AFTER_EXPIRY_S = 30 * 24 * 3600


def link_id(token: str) -> str:
    """What the read model, logs and metrics may say about a link: a short hash of it."""
    return token_hash(token)[:12]


class SupersededRun(Exception):
    """A newer run of the document exists: this stage's links were closed, none mailed."""


class StageOver(Exception):
    """The stage already has an ending (a vote decided it between two waits, or a newer run
    superseded it): the execution reads the ending instead of waiting again."""


class AlreadyDecided(Exception):
    def __init__(self, link: LinkRecord | None) -> None:
        super().__init__("the link was already used")
        self.link = link


@dataclass(frozen=True)
class IssuedLink:
    reviewer: str
    token: str
    sent: frozenset[str]  # the e-mails that already went out with this link

    slot_pk: str = ""  # the link's slot, which is also the reviewer's inbox item

    @property
    def pk(self) -> str:
        return f"LINK#{token_hash(self.token)}"


class LinkStore:
    def __init__(self, table: str) -> None:
        self.table = table
        # One table, two kinds of item.
        self._slots: Table[LinkSlot] = Table(table)
        self._links: Table[LinkItem] = Table(table)

    def _replace_slot(self, old: LinkSlot, fresh: LinkSlot) -> LinkSlot:
        """A slot whose key id is gone gets `fresh`'s key id, nonce and expiry, and forgets
        the mails sent with its old link, unless another issuer did it first. An update, not a
        put: the slot is also the reviewer's inbox item, whose other attributes stay."""
        try:
            return self._slots.update(
                {"pk": fresh["pk"]},
                "SET kid = :kid, nonce = :nonce, linkExpiresAt = :until, expiresAt = :keep"
                " REMOVE sent",
                condition="kid = :old",
                values={
                    ":kid": fresh["kid"],
                    ":nonce": fresh["nonce"],
                    ":until": fresh["linkExpiresAt"],
                    ":keep": fresh["expiresAt"],
                    ":old": str(old.get("kid")),
                },
            )
        except ConditionFailed as failed:
            return self._slots.held(failed) or fresh

    def issue(self, request: ReviewRequest, reviewer: str, ring: KeyRing, ttl_s: int) -> IssuedLink:
        """The reviewer's link for this stage: minted once, re-minted identically after."""
        slot_pk = _slot_pk(request, reviewer)
        expires_at = int(time.time()) + ttl_s
        fresh: LinkSlot = {
            "pk": slot_pk,
            "kid": ring.current,
            "nonce": new_nonce(),
            "linkExpiresAt": expires_at,
            "expiresAt": expires_at + KEEP_AFTER_EXPIRY_S,
        }
        if self._slots.put_new(fresh):
            slot = fresh
        else:
            slot = self._slots.get({"pk": slot_pk}) or fresh
            if str(slot.get("kid")) not in ring.keys:
                # Its key was retired from the ring: the old link cannot verify any more, so
                # the reminder carries a fresh one (minted once: two issuers agree on it).
                slot = self._replace_slot(slot, fresh)
        claims = TokenClaims(
            document_id=request.doc.document_id,
            version=request.doc.version,
            run_id=request.doc.run_id,
            stage_index=request.stage_index,
            stage_name=request.stage_name,
            reviewer=reviewer,
            expires_at=int(slot["linkExpiresAt"]),
            nonce=str(slot["nonce"]),
        )
        token = mint(claims, KeyRing(current=str(slot["kid"]), keys=ring.keys))
        # The notifying step's span: the reviewer's click, days later, is a span under it.
        notifying = spans.current()
        stage = stage_pk(request.doc.run_id, request.stage_index)
        link = LinkRecord(
            pk=f"LINK#{token_hash(token)}",
            document_id=request.doc.document_id,
            version=request.doc.version,
            run_id=request.doc.run_id,
            run_order=request.doc.run_order,
            bucket=request.doc.bucket,
            key=request.doc.key,
            doc_name=request.doc.display_name,
            stage_index=request.stage_index,
            stage_name=request.stage_name,
            reviewer=reviewer,
            reviewers=(*request.stage.stage.reviewers, *request.stage.stage.escalate_to),
            summary=request.summary,
            stage_pk=stage,
            wait_pk=stage,
            state=OPEN,
            expires_at=int(slot["linkExpiresAt"]) + KEEP_AFTER_EXPIRY_S,
            trace_parent=notifying.header() if notifying is not None else "",
        )
        self._links.put_new(link.to_item())  # the same token again: already there
        return IssuedLink(
            reviewer=reviewer,
            token=token,
            sent=frozenset(slot.get("sent", ())),
            slot_pk=slot_pk,
        )

    def mark_sent(self, request: ReviewRequest, reviewer: str, tags: set[str]) -> None:
        self._slots.update(
            {"pk": _slot_pk(request, reviewer)},
            "ADD sent :tags",
            typed_values={":tags": {"SS": sorted(tags)}},
        )

    def close_superseded(self, pk: str) -> None:
        """A newer version replaced the document: the link stops working, unless a click
        already holds it (that click's callback then races the cancel; one of them wins)."""
        with contextlib.suppress(ConditionFailed):
            self._links.update(
                {"pk": pk},
                "SET #s = :superseded",
                condition="#s = :open",
                names={"#s": "state"},
                values={":superseded": SUPERSEDED, ":open": OPEN},
            )

    def get(self, token: str) -> LinkRecord | None:
        item = self._links.get({"pk": f"LINK#{token_hash(token)}"})
        return LinkRecord.from_item(item) if item else None

    def spend(self, token: str) -> LinkRecord:
        """Spend the link's single use on a decision; exactly one concurrent caller wins."""
        now = int(time.time())
        try:
            item = self._links.update(
                {"pk": f"LINK#{token_hash(token)}"},
                "SET #s = :deciding, claimedAt = :now",
                condition=(
                    "attribute_exists(pk) AND "
                    "(#s = :open OR (#s = :deciding AND claimedAt < :stale))"
                ),
                names={"#s": "state"},
                values={
                    ":deciding": DECIDING,
                    ":open": OPEN,
                    ":now": now,
                    ":stale": now - SPEND_TIMEOUT_S,
                },
            )
        except ConditionFailed as failed:
            held = self._links.held(failed)
            stored = LinkRecord.from_item(held) if held else None
            raise AlreadyDecided(stored) from failed
        return LinkRecord.from_item(item)

    def complete(self, token: str, decision: DecisionJson, delivery: str = "") -> None:
        """Record the decision the link made; `delivery` "not-waiting" when the stage was
        over before the vote could count."""
        made: LinkDecision = {**decision, "delivery": delivery} if delivery else {**decision}
        self._links.update(
            {"pk": f"LINK#{token_hash(token)}"},
            "SET #s = :used, decision = :decision",
            names={"#s": "state"},
            values={":used": USED, ":decision": made},
        )

    def refund(self, token: str) -> None:
        """Give a spent link its use back when the callback could not be sent for a passing
        reason; nothing to give back if another click has spent it since."""
        with contextlib.suppress(ConditionFailed):
            self._links.update(
                {"pk": f"LINK#{token_hash(token)}"},
                "SET #s = :open REMOVE claimedAt",
                condition="#s = :deciding",
                names={"#s": "state"},
                values={":open": OPEN, ":deciding": DECIDING},
            )


def _slot_pk(request: ReviewRequest, reviewer: str) -> str:
    """One link per (run, stage, reviewer), whichever round asks for it."""
    return slot_pk(request.doc.run_id, request.stage_index, reviewer)
