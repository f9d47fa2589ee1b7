"""The split stage's page: a packet's pages as thumbnails with the proposed boundaries, where a
reviewer moves, adds or removes boundaries and approves (one decision on one page, no script).

Each thumbnail has a checkbox, "A new document starts here", ticked where docflow proposes a
document starts; the unsure boundaries are marked and say why docflow was unsure. The form
sends the ticked pages (`start`); the page, the desk and the orchestrator each check that every
page is in exactly one document (`docflow.review.stage.split`). A form that leaves a page out
comes back with the reviewer's ticks and the error next to the boxes, and decides nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NotRequired, TypedDict

from docflow.review.access.link_record import LinkRecord
from docflow.review.stage.split import split_of
from docflow.review.stage.stage_record import Presence
from docflow.review.web.pages import _here, _presence_line
from docflow.review.web.templating import env, when

# The engines' reason codes (docflow.packets) as a reviewer reads them.
REASONS = {
    "first-page": "the packet's first page",
    "counter-restart": "its page counter starts again at 1",
    "counter-continues": "its page counter goes on from the page before",
    "counter-later": "its page counter says it is not a first page",
    "title": "a title at the top",
    "new-number": "a document number the pages before did not print",
    "same-number": "the same document number as the pages before",
    "new-issuer": "a tax id or IBAN the pages before did not print",
    "same-issuer": "the same issuer's tax id or IBAN as the pages before",
    "previous-total": "the page before ends with a total",
    "layout-change": "another page size or orientation",
    "new-header": "another letterhead",
    "same-header": "the same letterhead as the page before",
    "type-change": "its words are of another type than the pages before",
    "repeat": "it repeats the page before (a copy)",
    "blank": "a blank page",
    "refused": "the page cannot be read",
    "model": "the model's call",
    "model-skipped": "the model said nothing of it",
}
MAX_REASONS = 4


def split_page(
    *,
    link: LinkRecord,
    base: str,
    calls: Sequence[dict[str, Any]],
    deadline: int | None,
    starts: Sequence[int] | None = None,
    error: str = "",
    presence: Presence | None = None,
    reasons: dict[str, str] | None = None,
    chosen_reason: str = "",
    comment: str = "",
    reject_error: str = "",
    inbox: str = "",
) -> str:
    """`calls`: the plan's page calls (`{"page", "docType", "start", "reasons"}`, from S3; may
    be empty); `starts`: the pages the reviewer ticked, when the form comes back with an error
    (None: the proposal's)."""
    summary = link.summary
    split = split_of(summary)
    pages = int(split["pages"])
    proposed = [list(p) for p in split.get("parts") or []]
    unsure = {int(p) for p in split.get("unsure") or []}
    ticked = set(starts) if starts is not None else {int(p[0]) for p in proposed}
    by_page = {int(c["page"]): c for c in calls}
    cards = [_card(n, by_page.get(n), n in ticked, n in unsure) for n in range(1, pages + 1)]
    document = 0
    for card in cards:  # which document each page is in, as the ticks stand
        document += card["ticked"]
        card["document"] = document
    name = link.name
    return env.get_template("split.html").render(
        title=f"Split {name}",
        name=name,
        base=base,
        pages=pages,
        cards=cards,
        parts=[_part_line(p) for p in proposed],
        unsure=sorted(unsure),
        reviewer=link.reviewer,
        deadline=when(deadline) if deadline else "",
        error=error,
        reject_error=reject_error,
        reasons=list((reasons or {}).items()),
        chosen_reason=chosen_reason,
        comment=comment,
        presence=_presence_line(presence, link.reviewer),
        presence_mine=presence is not None and presence["reviewer"] == link.reviewer,
        inbox_url="/inbox" if inbox else "",
        back=_here(base),
    )


class Card(TypedDict):
    """A page's thumbnail: its tick, whether the proposal was unsure, the type and start score
    the plan gave it, why, and (as the ticks stand) which document it is in."""

    page: int
    ticked: bool
    unsure: bool
    type: str
    score: int | None
    why: str
    document: NotRequired[int]


def _card(page: int, call: dict[str, Any] | None, ticked: bool, unsure: bool) -> Card:
    call = call or {}
    said = [REASONS.get(str(r), str(r)) for r in call.get("reasons") or []]
    return {
        "page": page,
        "ticked": ticked,
        "unsure": unsure,
        "type": str(call.get("docType") or "").replace("-", " "),
        "score": round(float(call["start"]) * 100) if "start" in call else None,
        "why": "; ".join(said[:MAX_REASONS]),
    }


def _part_line(part: list[Any]) -> str:
    first, last = int(part[0]), int(part[1])
    kind = str(part[2]).replace("-", " ") if len(part) > 2 and part[2] else "document"
    pages = f"page {first}" if first == last else f"pages {first}–{last}"
    return f"{kind.capitalize()}, {pages}"
