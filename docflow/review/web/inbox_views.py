"""What the callback API shows under an inbox link: the reviewer's pending items, and the
"next" item after a decision.

Every answer first checks the inbox link (signature, expiry, purpose, stored hash) and the
reviewer's revocation; a refused link lists nothing and answers 403. Items come from one
consistent Query of the reviewer's partition of the inbox table and one BatchGetItem of their
stage records (who is looking, and endings whose closing of the item has not finished); each item's
review link is re-minted from its slot's key id and nonce, never read from storage.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass

from docflow.review.access.inbox_links import InboxLinks, InboxRefused
from docflow.review.access.keys import KeySource
from docflow.review.access.refusals import REVOKED_MESSAGE
from docflow.review.access.revocation import Revocations
from docflow.review.access.signing import KeyRing, TokenClaims, mint
from docflow.review.stage.inbox import InboxIndex, InboxItem, PageKey, inbox_pk, stage_of
from docflow.review.stage.presence import live_presence
from docflow.review.stage.stage_record import StageRecord
from docflow.review.web.inbox_page import InboxRow, inbox_page, row

MAX_FILTER = 64
# Earlier pages' cursors (see inbox_page): URL-safe base64 or `~`, joined by `.`.
_BACK = re.compile(r"(?:[A-Za-z0-9_-]+|~)(?:\.(?:[A-Za-z0-9_-]+|~))*|")


@dataclass(frozen=True)
class InboxChoices:
    """What the filters offer: the rules file's stage names and document types. Empty, the
    filters are free text."""

    stages: tuple[str, ...] = ()
    types: tuple[str, ...] = ()


@dataclass(frozen=True)
class InboxScreen:
    reviewer: str
    html: str
    rows: list[InboxRow]
    next_page: str
    items_read: int


def encode_page(key: PageKey | None) -> str:
    if not key:
        return ""
    raw = json.dumps(key, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def decode_page(text: str, reviewer: str) -> PageKey | None:
    """A page cursor handed out for this reviewer's inbox, or ValueError (answered 400)."""
    if not text:
        return None
    try:
        key = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (ValueError, binascii.Error) as exc:
        raise ValueError("not a page of this inbox") from exc
    if (
        not isinstance(key, dict)
        or set(key) != {"pk", "sk"}
        or not all(isinstance(v, str) for v in key.values())
        or key["pk"] != inbox_pk(reviewer)
    ):
        raise ValueError("not a page of this inbox")
    return PageKey(pk=key["pk"], sk=key["sk"])


def review_token(item: InboxItem, reviewer: str, ring: KeyRing) -> str | None:
    """The reviewer's review link for the item's stage, re-minted from its slot; None when
    the key that signed it has left the key ring (the link no longer verifies anyway)."""
    if str(item.get("kid", "")) not in ring.keys:
        return None
    claims = TokenClaims(
        document_id=str(item["documentId"]),
        version=str(item["version"]),
        run_id=str(item["runId"]),
        stage_index=int(item["stageIndex"]),
        stage_name=str(item["stageName"]),
        reviewer=reviewer,
        expires_at=int(item["linkExpiresAt"]),
        nonce=str(item["nonce"]),
    )
    return mint(claims, KeyRing(current=str(item["kid"]), keys=ring.keys))


class InboxViews:
    def __init__(
        self,
        keys: KeySource,
        table: str,
        inbox_table: str | None = None,
        choices: InboxChoices | None = None,
    ) -> None:
        self.keys = keys
        self.choices = choices or InboxChoices()
        self.links = InboxLinks(table)
        self.index = InboxIndex(table, inbox_table)
        self.revocations = Revocations(table)

    def reviewer(self, token: str) -> str:
        reviewer = self.links.check(token, self.keys.ring())
        if self.revocations.is_revoked(reviewer):
            raise InboxRefused("revoked", REVOKED_MESSAGE)
        return reviewer

    def _items(
        self, reviewer: str, start: PageKey | None, stage: str, doc_type: str, limit: int
    ) -> tuple[list[tuple[InboxItem, StageRecord]], str, int]:
        """(item, its stage record) for the live items of one page, the next page's cursor,
        and the items DynamoDB read."""
        page = self.index.page(reviewer, start, stage, doc_type, limit)
        records = self.index.records([stage_of(i) for i in page.items])
        live = []
        for item in page.items:
            record = records.get(stage_of(item), {})
            if record and not record.get("ending"):
                live.append((item, record))
        return live, encode_page(page.next_key), page.items_read + len(page.items)

    def page(
        self,
        token: str,
        stage: str = "",
        doc_type: str = "",
        cursor: str = "",
        at: int = 0,
        back: str = "",
    ) -> InboxScreen:
        reviewer = self.reviewer(token)
        stage, doc_type = stage[:MAX_FILTER], doc_type[:MAX_FILTER]
        start = decode_page(cursor, reviewer)
        live, next_page, read = self._items(reviewer, start, stage, doc_type, 20)
        ring = self.keys.ring()
        rows = []
        for item, record in live:
            minted = review_token(item, reviewer, ring)
            if minted:
                url = f"/review/{minted}"  # no inbox credential in a review URL
                rows.append(row(item, url, live_presence(record), reviewer))
        html = inbox_page(
            reviewer=reviewer,
            base=f"/inbox/{token}",
            rows=rows,
            at=at,
            stage=stage,
            doc_type=doc_type,
            page=cursor,
            next_page=next_page,
            stage_choices=self.choices.stages,
            type_choices=self.choices.types,
            back=back if _BACK.fullmatch(back) else "",
        )
        return InboxScreen(reviewer, html, rows, next_page, read)

    def same_reviewer(self, token: str, reviewer: str) -> bool:
        """Is this a working inbox link of this reviewer?"""
        try:
            return self.reviewer(token) == reviewer
        except InboxRefused:
            return False

    def next_item(self, token: str, reviewer: str, after: str = "") -> dict[str, str] | None:
        """After a decision: the reviewer's oldest item still waiting (not `after`, the stage
        just decided), as `{"url", "name"}`."""
        live, _, _ = self._items(reviewer, None, "", "", 5)
        ring = self.keys.ring()
        for item, _record in live:
            minted = review_token(item, reviewer, ring)
            if minted and stage_of(item) != after:
                return {"url": f"/review/{minted}", "name": item["docName"]}
        return None
