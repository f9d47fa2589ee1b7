"""The inbox page: a reviewer's pending items as the callback API renders them.

No script (the review pages' CSP): the keys are `accesskey`s on ordinary links, and the
selected item is a link with `autofocus`, so Enter opens it. `j`/`k` are links to the same
page with the next or previous item selected (see the README for each browser's modifier).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from docflow.review.stage.inbox import InboxItem, since_of
from docflow.review.stage.stage_record import Presence
from docflow.review.web.templating import env, when, when_iso

WHY = {
    "fields": "a key field needs a check",
    "type": "every document of its type is reviewed here",
    "sensitive": "sensitive data was found",
    "quality": "the text could not be read with confidence",
    "escalated": "escalated to you: nobody decided in time",
    "rules": "named by the rules",
    # A triage stage's reasons (docflow.classify): which type it is, a person says.
    "unknown-type": "no document type fits: pick one",
    "type-unsure": "the type is unsure: pick one",
}


@dataclass(frozen=True)
class InboxRow:
    url: str  # the reviewer's own review link for the stage, with the way back to the inbox
    name: str
    doc_type: str
    stage: str
    why: str
    since: str
    deadline: str
    overdue: bool
    presence: str  # "" or who is looking at it, since when
    folder: str = ""  # the upload's folder ("" at the bucket's top): same names told apart
    # The same two times in ISO 8601, for the JSON answer ("" when unknown).
    since_iso: str = ""
    deadline_iso: str = ""


def presence_text(presence: Presence | None, me: str) -> str:
    if not presence:
        return ""
    who = "You are" if presence.get("reviewer") == me else f"{presence.get('reviewer')} is"
    return f"{who} looking at this since {when(int(presence.get('since', 0)))}"


def row(item: InboxItem, url: str, presence: Presence | None, me: str) -> InboxRow:
    deadline = int(item.get("deadline") or 0)
    since = since_of(item)
    return InboxRow(
        url=url,
        name=str(item.get("docName", "")),
        folder=str(item.get("docFolder", "")),
        doc_type=str(item.get("docType", "")),
        stage=str(item.get("stageName", "")),
        why=WHY.get(str(item.get("why", "")), str(item.get("why", ""))),
        since=when_iso(since) if since else "",
        since_iso=since,
        deadline_iso=(
            datetime.fromtimestamp(deadline, UTC).isoformat(timespec="seconds") if deadline else ""
        ),
        deadline=when(deadline) if deadline else "",
        overdue=bool(deadline) and deadline < time.time(),
        presence=presence_text(presence, me),
    )


def inbox_page(
    *,
    reviewer: str,
    base: str,
    rows: list[InboxRow],
    at: int,
    stage: str,
    doc_type: str,
    page: str,
    next_page: str,
    stage_choices: Sequence[str] = (),
    type_choices: Sequence[str] = (),
    back: str = "",
) -> str:
    """`back` holds the cursors of the pages before this one (the cursors only go forward), so
    `k` on a page's first item goes on to the previous page's last."""

    def here(**changes: Any) -> str:
        params = {"stage": stage, "type": doc_type, "page": page, "back": back, **changes}
        query = urlencode({k: v for k, v in params.items() if v not in ("", None)})
        return f"{base}?{query}" if query else base

    at = min(max(at, 0), max(len(rows) - 1, 0))
    onward = here(page=next_page, at=0, back=_pushed(back, page)) if next_page else ""
    earlier, before = _popped(back)
    # On a page's last item j goes on to the next page's first; on its first, k goes back to
    # the previous page's last.
    down = here(at=at + 1) if at + 1 < len(rows) else onward
    backward = here(page=earlier, at=LAST, back=before) if back else ""
    up = here(at=at - 1) if at > 0 else backward
    return env.get_template("inbox.html").render(
        title="Your inbox",
        reviewer=reviewer,
        base=base,
        rows=rows,
        at=at,
        stage=stage,
        doc_type=doc_type,
        stage_choices=_with_current(stage_choices, stage),
        type_choices=_with_current(type_choices, doc_type),
        down=down,
        up=up,
        first=here(page="", at=0, back="") if page else "",
        next_page=onward,
        more=bool(next_page),
    )


def _with_current(choices: Sequence[str], current: str) -> list[str]:
    """The choices, and the filter in use if a hand-made URL asked for another."""
    if not choices:
        return []
    return [*choices, current] if current and current not in choices else list(choices)


# `back` is the earlier pages' cursors, oldest first, joined by `.` (not in a cursor's
# URL-safe base64); `~` stands for the first page, whose cursor is empty. At most BACK_PAGES.
BACK_PAGES = 20
LAST = 999  # "the last item", clamped to the page's length


def _pushed(back: str, page: str) -> str:
    cursors = [*(back.split(".") if back else []), page or "~"]
    return ".".join(cursors[-BACK_PAGES:])


def _popped(back: str) -> tuple[str, str]:
    """(the previous page's cursor, the cursors before it)."""
    cursors = back.split(".") if back else []
    if not cursors:
        return "", ""
    last = cursors[-1]
    return ("" if last == "~" else last), ".".join(cursors[:-1])
