"""The review page's forms, read and answered: Approve / Reject (with a reason, a comment, field
corrections, a triage pick or a split) and Release. The body is parsed once into a
`DecisionForm`; the desk checks the link and every field of it. A form that is not complete
yet decides nothing: the desk's `FieldProblem` goes back on the page the reviewer was on, next
to the field it concerns; a complete one is counted, and from the inbox the answer offers the
reviewer's next item.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docflow.document.fields import fields_json
from docflow.document.shown import FieldValue
from docflow.extract.declarations.labels import BUILTIN_KINDS
from docflow.review.access.refusals import ALL_REASONS
from docflow.review.decision_form import DecisionForm, FieldProblem
from docflow.review.desk import Decided
from docflow.review.stage.masking import masked_value
from docflow.review.web.answers import Answer, DecidedJson, FormProblemJson
from docflow.review.web.field_inputs import field_label
from docflow.review.web.message_pages import decided_page, released_page
from docflow.review.web.views import ReviewViews


def decide(views: ReviewViews, token: str, body: str, inbox: str = "") -> Answer:
    """POST /review/{token}: the page's Approve or Reject. `inbox`: the inbox link of this
    browser (its cookie, never a form field), for the way back and the next item."""
    form = DecisionForm.parse(body)
    try:
        decided = views.desk.decide(token, form, views.routing.review_on, views.types)
    except FieldProblem as problem:
        page = views.review(token, 0, inbox=inbox, form=form, problem=problem)
        said: FormProblemJson = {"error": problem.code}
        if problem.errors:
            said["fields"] = problem.errors
        else:
            said["message"] = str(problem)
        return Answer(400, page.html, said)
    answer = decided.answer
    # From the inbox: offer the reviewer's next item (their own inbox link only).
    via, next_item = inbox, None
    if via and views.inbox.same_reviewer(via, answer["reviewer"]):
        stage = decided.link.stage_pk
        next_item = views.inbox.next_item(via, answer["reviewer"], stage)
    else:
        via = ""
    html = decided_page(answer, ALL_REASONS, next_item, "/inbox" if via else "", _shown(decided))
    data: DecidedJson = {"decision": answer}
    if next_item:
        data["next"] = next_item["url"]
    return Answer(200, html, data)


PROPOSED = (
    "proposed for the registry with the ids shown; an operator other than you approves the "
    "proposal, and until then nothing is registered"
)


def _shown(decided: Decided) -> list[tuple[str, str]]:
    """What the answer lists as decided: a split's documents, or the key fields as approved."""
    decision = decided.decision
    if decision.parts:
        return [(f"Document {i + 1}", f"pages {a}–{b}") for i, (a, b) in enumerate(decision.parts)]
    if not decision.approved:
        return []
    fields = fields_json(decided.link.shown.summary.fields or {})
    approved = _approved_values(fields, dict(decision.corrections))
    if decision.add_supplier:  # a proposal: the registry changes only when an operator says so
        approved.append(("Supplier", PROPOSED))
    return approved


def _approved_values(
    fields: Mapping[str, FieldValue], corrections: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """The key fields as approved (a correction in place of what was read), masked as the page
    showed them."""
    names = list(
        dict.fromkeys(
            n for n in (*BUILTIN_KINDS, *fields, *corrections) if n in fields or n in corrections
        )
    )
    return [(field_label(n), masked_value(_shown_value(n, fields, corrections))) for n in names]


def _shown_value(
    name: str, fields: Mapping[str, FieldValue], corrections: Mapping[str, Any]
) -> str:
    """A field's approved value in one line: a table by its count of rows."""
    corrected = corrections.get(name)
    found = fields.get(name) or {}
    rows = corrected if isinstance(corrected, list) else None
    if rows is None and corrected is None and isinstance(found.get("rows"), list):
        rows = found["rows"]
    if rows is not None:
        return f"{len(rows)} {'row' if len(rows) == 1 else 'rows'}"
    return str(corrected or found.get("value") or "")


def look(views: ReviewViews, token: str, inbox: str = "") -> Answer:
    """POST /review/{token}/presence: the page's "I'm reviewing this" button. The reviewer's
    first interaction with the page, so a GET (a mail scanner's prefetch) never says someone
    is looking; the answer is the page again, with the presence."""
    page = views.review(token, 0, inbox=inbox, look=True)
    return Answer(200, page.html, {"presence": page.view.presence})


def release(views: ReviewViews, token: str, inbox: str = "") -> Answer:
    """POST /review/{token}/release: the reviewer is no longer looking at the document."""
    view = views.desk.release(token)
    via = inbox
    if via and not views.inbox.same_reviewer(via, view.claims.reviewer):
        via = ""
    name = view.link.name
    html = released_page(name, "/inbox" if via else "")
    return Answer(200, html, {"released": True})
