"""What a route of the callback API answers, before it is an HTTP response: a status, the page,
and the same facts as JSON for a caller that asks for JSON (`Accept: application/json`).

The JSON shapes of the reviewers' door live here, one function each, so the routes only
choose one: a refusal (`{"error", "message", "decision"?}`), the review page
(`{"documentId", "stage", "waiting", "summary", "pages"}`) and the inbox
(`{"reviewer", "items": [{"open", "name", "docType", "stage", "why", "since", "deadline",
"overdue", "claim"}], "nextPage"}`; `claim` is who is looking at the item).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from docflow.review.access.link_record import LinkDecision, LinkRecord
from docflow.review.stage.stage_record import Presence
from docflow.review.votes import Counted
from docflow.review.web.inbox_views import InboxScreen
from docflow.review.web.message_pages import refusal_page
from docflow.review.web.views import ReviewScreen


class RefusalJson(TypedDict):
    """A refusal; `decision`: the one the link made already, when it was used."""

    error: str
    message: str
    decision: NotRequired[LinkDecision]


class FormProblemJson(TypedDict):
    """A form that decides nothing yet: a message per field, or one for the form."""

    error: str
    fields: NotRequired[dict[str, str]]
    message: NotRequired[str]


class ReviewJson(TypedDict):
    documentId: str
    stage: str
    waiting: bool
    summary: Mapping[str, object]  # the link's summary as stored (`LinkRecord.summary`)
    pages: list[int]


class InboxItemJson(TypedDict):
    open: str
    name: str
    folder: str
    docType: str
    stage: str
    why: str
    since: str
    deadline: str
    overdue: bool
    claim: str  # who is looking at it, since when ("" when nobody)


class InboxJson(TypedDict):
    reviewer: str
    items: list[InboxItemJson]
    nextPage: str | None


class DecidedJson(TypedDict):
    """A decision counted; `next`: the reviewer's next item, from the inbox."""

    decision: Counted
    next: NotRequired[str]


class PresenceJson(TypedDict):
    presence: Presence | None


class ReleasedJson(TypedDict):
    released: bool


# What a route answers a client that asks for JSON.
AnswerJson = (
    RefusalJson
    | FormProblemJson
    | ReviewJson
    | InboxJson
    | DecidedJson
    | PresenceJson
    | ReleasedJson
)


@dataclass(frozen=True)
class Answer:
    status: int
    html: str
    data: AnswerJson


def refusal(status: int, code: str, message: str, link: LinkRecord | None = None) -> Answer:
    earlier = link.decision if link else None
    data: RefusalJson = {"error": code, "message": message}
    if earlier:
        data["decision"] = earlier
    return Answer(status, refusal_page(status, message, link), data)


def review_answer(page: ReviewScreen) -> Answer:
    data: ReviewJson = {
        "documentId": page.view.claims.document_id,
        "stage": page.view.claims.stage_name,
        "waiting": True,
        "summary": page.view.link.summary,
        "pages": page.order,
    }
    return Answer(200, page.html, data)


def inbox_answer(screen: InboxScreen) -> Answer:
    data: InboxJson = {
        "reviewer": screen.reviewer,
        "items": [
            {
                "open": r.url,
                "name": r.name,
                "folder": r.folder,
                "docType": r.doc_type,
                "stage": r.stage,
                "why": r.why,
                "since": r.since_iso,  # ISO 8601 in JSON; the page shows its own format
                "deadline": r.deadline_iso,
                "overdue": r.overdue,
                "claim": r.presence,  # the JSON shape keeps its key
            }
            for r in screen.rows
        ],
        "nextPage": screen.next_page or None,
    }
    return Answer(200, screen.html, data)
