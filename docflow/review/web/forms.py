"""The review page's forms, read and answered: Approve / Reject (with a reason, a comment, field
corrections or a triage pick) and Release. A form that is not complete yet decides nothing: its
error goes back on the page the reviewer was on, next to the field it concerns; a complete
one goes to the desk, and from the inbox the answer offers the reviewer's next item.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from docflow.extract.corrections import validate_corrections
from docflow.extract.fields import FIELD_KINDS
from docflow.ids import display_name
from docflow.review.access.refusals import (
    OTHER_NEEDS_COMMENT,
    REJECT_REASONS,
    other_without_comment,
)
from docflow.review.stage.split import parts_from_starts, split_of, split_problem
from docflow.review.stage.triage import UNCLASSIFIABLE, choices_of, type_problem
from docflow.review.web.answers import Answer, refusal
from docflow.review.web.evidence import masked_value
from docflow.review.web.message_pages import decided_page, released_page
from docflow.review.web.pages import field_label
from docflow.review.web.views import ReviewViews
from docflow.rules.detectors import find_all

MAX_FIELDS = 5_100  # a split page's checkboxes (up to the pages a packet may have) and a few


def _reject_problem(reason: str, comment: str) -> tuple[str, str] | None:
    if reason not in REJECT_REASONS:
        return "no-reason", "Choose why you reject the document"
    if other_without_comment(reason, comment):
        return "no-comment", OTHER_NEEDS_COMMENT
    return None


def decide(views: ReviewViews, token: str, body: str, inbox: str = "") -> Answer:
    """POST /review/{token}: the page's Approve or Reject. `inbox`: the inbox link of this
    browser (its cookie, never a form field), for the way back and the next item."""
    # A split page sends a checkbox a document; the body's own limit bounds the fields.
    form = parse_qs(body, max_num_fields=MAX_FIELDS)
    choice = (form.get("decision") or [""])[0]
    reason = (form.get("reason") or [""])[0]
    comment = (form.get("comment") or [""])[0]
    submitted = {k[6:]: v[0].strip() for k, v in form.items() if k.startswith("field.")}
    add_supplier = choice == "approve" and (form.get("addSupplier") or [""])[0] == "yes"
    if choice not in ("approve", "reject"):
        return refusal(400, "no-decision", "choose Approve or Reject")
    refused = _reject_problem(reason, comment) if choice == "reject" else None
    if refused:
        # The error goes next to the field it concerns, on the page the reviewer was on.
        code, message = refused
        page = views.review(token, 0, error=message, reason=reason, comment=comment, inbox=inbox)
        return Answer(400, page.html, {"error": code, "message": message})
    summary = (views.desk.link(token).get("summary") or {}) if choice == "approve" else {}
    if split_of(summary):
        return _decide_split(views, token, form, comment, summary, inbox)
    doc_type = (form.get("docType") or [""])[0]
    choices = choices_of(summary)
    if choices:  # triage: the type is a required choice, its error next to it
        problem = type_problem(doc_type, choices)
        if problem:
            page = views.review(
                token,
                0,
                error=problem,
                comment=comment,
                type_error=problem,
                doc_type=doc_type,
                inbox=inbox,
            )
            return Answer(400, page.html, {"error": "bad-doc-type", "message": problem})
        if doc_type == UNCLASSIFIABLE:  # "none of these": archived as unclassifiable
            decision = views.desk.decide(token, False, comment, UNCLASSIFIABLE)
            return Answer(200, decided_page(decision, REJECT_REASONS), {"decision": decision})
    corrections: dict[str, str] = {}
    if choice == "approve" and submitted and not choices:
        fields = summary.get("fields") or {}
        # A value sent back as the page showed it (masked, when a detector found something in
        # it) is no correction.
        shown = {k: masked_value(str((fields.get(k) or {}).get("value") or "")) for k in fields}
        corrections, errors = validate_corrections(
            fields, {k: v for k, v in submitted.items() if v and v != shown.get(k)}
        )
        errors |= detected_in(corrections, views.routing.review_on)
        if errors:  # a bad value decides nothing; each message sits by its field
            page = views.review(
                token,
                0,
                error="Correct the values marked below",
                comment=comment,
                submitted_fields=submitted,
                field_errors=errors,
                inbox=inbox,
                add_supplier=add_supplier,
            )
            return Answer(400, page.html, {"error": "bad-fields", "fields": errors})
    picked = doc_type if choices else ""
    decision = views.desk.decide(
        token,
        choice == "approve",
        comment,
        reason,
        corrections,
        doc_type=picked,
        add_supplier=add_supplier and not choices,
    )
    # From the inbox: offer the reviewer's next item (their own inbox link only).
    via, next_item = inbox, None
    if via and views.inbox.same_reviewer(via, decision["reviewer"]):
        link = views.desk.link_facts(token)
        next_item = views.inbox.next_item(via, decision["reviewer"], str(link.get("stagePk")))
    else:
        via = ""
    approved = _approved_values(summary, corrections) if choice == "approve" else []
    if decision.get("addSupplier"):
        approved.append(("Supplier", "added to the registry with the ids shown"))
    html = decided_page(decision, REJECT_REASONS, next_item, "/inbox" if via else "", approved)
    data: dict[str, Any] = {"decision": decision}
    if next_item:
        data["next"] = next_item["url"]
    return Answer(200, html, data)


def _decide_split(
    views: ReviewViews,
    token: str,
    form: dict[str, list[str]],
    comment: str,
    summary: dict[str, Any],
    inbox: str,
) -> Answer:
    """A split page's Approve: the ticked pages make the documents; a split that leaves a page
    out (or names a page the packet does not have) comes back with the reviewer's ticks and
    the error next to them, and decides nothing."""
    pages = int(split_of(summary)["pages"])
    raw = form.get("start") or []
    starts = sorted({int(v) for v in raw if v.isdigit() and len(v) < 7})
    problem = ""
    if len(starts) < len(raw) or any(not 1 <= s <= pages for s in starts):
        problem = f"Tick pages of this packet only (1 to {pages})"
    parts = parts_from_starts(starts, pages)
    problem = problem or split_problem(parts, pages)
    if problem:
        kept = [s for s in starts if 1 <= s <= pages]
        page = views.review(
            token, 0, comment=comment, starts=kept, split_error=problem, inbox=inbox
        )
        return Answer(400, page.html, {"error": "bad-split", "message": problem})
    decision = views.desk.decide(token, True, comment, parts=parts)
    shown = [(f"Document {i + 1}", f"pages {a}–{b}") for i, (a, b) in enumerate(parts)]
    html = decided_page(decision, REJECT_REASONS, None, "/inbox" if inbox else "", shown)
    return Answer(200, html, {"decision": decision})


def detected_in(corrections: dict[str, str], review_on: tuple[str, ...]) -> dict[str, str]:
    """A correction holding a number the detectors route to review (a card, an SSN) is refused
    by its field: the decision would carry it whole into the run's history and the record. An
    IBAN may be a field's value (a payee's), so it is not refused here."""
    detectors = tuple(d for d in review_on if d != "iban")
    return {
        name: f"this holds a {found[0].detector.replace('_', ' ')}: no field keeps one"
        for name, value in corrections.items()
        if detectors and (found := find_all(value, detectors))
    }


def _approved_values(summary: dict[str, Any], corrections: dict[str, str]) -> list[tuple[str, str]]:
    """The key fields as approved (a correction in place of what was read), masked as the page
    showed them."""
    fields = summary.get("fields") or {}
    names = [n for n in FIELD_KINDS if n in fields or n in corrections]
    return [
        (
            field_label(n),
            masked_value(str(corrections.get(n) or (fields.get(n) or {}).get("value") or "")),
        )
        for n in names
    ]


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
    name = str(view.link.get("docName") or display_name(str(view.link.get("key", ""))))
    html = released_page(name, "/inbox" if via else "")
    return Answer(200, html, {"released": True})
