"""The digest: one mail per period to each reviewer whose rules say `notify = "digest"`,
listing what waits on them, with their inbox link, instead of a mail per document (reminders
and escalations fold into it: the list marks what is overdue and what was escalated to them).

An idempotent job keyed by (reviewer, period), run on a schedule (the template's Schedule in
AWS, the local stack's loop): for each digest reviewer it

    1. reads their pending items (one Query of their inbox partition); nothing waiting, no mail;
    2. takes `DIGEST#<reviewer>#<period>` in the links table with a conditional put (it does
       not exist, or a send that began more than LEASE_S ago never finished: a crash);
    3. sends the mail, then marks the item `sent` (a later run that finds it adds one to
       its `heldBack` count instead).

So any number of runs in a period (retries, two schedulers, a restarted stack) send one mail
per reviewer; only a crash between the send and its mark can repeat it, after LEASE_S.
Periods are `floor(epoch / digest_every_seconds)`: the same boundaries on every machine.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from html import escape
from typing import NotRequired, TypedDict

from docflow.dynamo import ConditionFailed, Table
from docflow.review.access.inbox_links import InboxLinks
from docflow.review.access.keys import KeySource
from docflow.review.access.revocation import Revocations
from docflow.review.notify.mail import Mailer
from docflow.review.stage.inbox import DIGEST, InboxIndex, InboxItem

LEASE_S = 300
MAX_LISTED = 50
KEEP_S = 14 * 24 * 3600


class DigestOutcome(TypedDict):
    """What one reviewer got from a pass (the job's JSON answer): sent, or why not."""

    reviewer: str
    period: int
    sent: bool
    why: NotRequired[str]
    listed: NotRequired[int]


def digest_pk(reviewer: str, period: int) -> str:
    return f"DIGEST#{reviewer}#{period}"


class DigestJob:
    def __init__(
        self,
        table: str,
        keys: KeySource,
        mailer: Mailer,
        sender: str,
        base_url: str,
        inbox_ttl_s: int,
    ) -> None:
        self.table, self.keys, self.mailer = table, keys, mailer
        self.sender, self.base_url, self.inbox_ttl_s = sender, base_url.rstrip("/"), inbox_ttl_s
        self.index = InboxIndex(table)
        self.revocations = Revocations(table)
        self._table = Table(table)

    def run(
        self, reviewers: list[str], every_s: int, now: float | None = None
    ) -> list[DigestOutcome]:
        """One pass over the digest reviewers: what each got (or why not)."""
        now = time.time() if now is None else now
        period = int(now // every_s)
        return [self.send_one(reviewer, period, now) for reviewer in reviewers]

    def send_one(self, reviewer: str, period: int, now: float) -> DigestOutcome:
        out: DigestOutcome = {"reviewer": reviewer, "period": period, "sent": False}
        items = self.index.page(reviewer, limit=MAX_LISTED).items
        if not any(i.get("notify") == DIGEST for i in items):
            return {**out, "why": "nothing waiting"}
        if self.revocations.is_revoked(reviewer):
            return {**out, "why": "revoked"}
        if not self._take(reviewer, period, int(now)):
            # Counted, so an operator (and a test) can see the job ran and held back.
            self._table.update(
                {"pk": digest_pk(reviewer, period)}, "ADD heldBack :one", values={":one": 1}
            )
            return {**out, "why": "already sent this period"}
        token = InboxLinks(self.table).issue(reviewer, self.keys.ring(), self.inbox_ttl_s)
        subject, text, html = digest_email(items, f"{self.base_url}/inbox/{token}", now)
        self.mailer.send(self.sender, reviewer, subject, text, html)
        self._table.update(
            {"pk": digest_pk(reviewer, period)},
            "SET #s = :sent, sentAt = :now, listed = :n",
            names={"#s": "state"},
            values={":sent": "sent", ":now": int(now), ":n": len(items)},
        )
        return {**out, "sent": True, "listed": len(items)}

    def _take(self, reviewer: str, period: int, now: int) -> bool:
        try:
            self._table.put(
                {
                    "pk": digest_pk(reviewer, period),
                    "state": "sending",
                    "takenAt": now,
                    "expiresAt": now + KEEP_S,
                },
                condition="attribute_not_exists(pk) OR (#s = :sending AND takenAt < :stale)",
                names={"#s": "state"},
                values={":sending": "sending", ":stale": now - LEASE_S},
            )
        except ConditionFailed:
            return False
        return True


def _line(item: InboxItem, now: float) -> tuple[str, bool]:
    deadline = int(item.get("deadline") or 0)
    when = datetime.fromtimestamp(deadline, UTC).strftime("%d %b %H:%M UTC") if deadline else ""
    overdue = bool(deadline) and deadline < now
    extra = " (escalated to you)" if item.get("why") == "escalated" else ""
    due = f", OVERDUE since {when}" if overdue else (f", decide by {when}" if when else "")
    text = f"{item.get('docName')} ({item.get('docType')}), stage {item.get('stageName')}{due}"
    return text + extra, overdue


def digest_email(items: list[InboxItem], url: str, now: float) -> tuple[str, str, str]:
    lines = [_line(i, now) for i in items]
    overdue = sum(1 for _, late in lines if late)
    count = f"{len(items)}{'+' if len(items) >= MAX_LISTED else ''}"
    subject = f"[docflow] {count} documents wait for your review" + (
        f" ({overdue} overdue)" if overdue else ""
    )
    text = "\n".join(
        [
            "These documents are waiting for your review, oldest first:",
            "",
            *(f"- {line}" for line, _ in lines),
            "",
            f"Open your inbox: {url}",
            "Opening it decides nothing; each document has its own Approve and Reject.",
        ]
    )
    html = (
        "<p>These documents are waiting for your review, oldest first:</p><ul>"
        + "".join(
            f"<li>{'<b>' if late else ''}{escape(line)}{'</b>' if late else ''}</li>"
            for line, late in lines
        )
        + f'</ul><p><a href="{escape(url)}">Open your inbox</a></p>'
    )
    return subject, text, html
