"""The reviewer's HTML pages, rendered from the templates beside this file (Jinja2, escaping on).

The review page is the whole decision on one screen: why the document is at this stage, its
pages (previews and masked text, the pages that caused the review first), earlier decisions,
a download of the original, and the form. No script, no external resource: the CSP allows
images from the page's own origin and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from docflow.active_content import said
from docflow.document import DocumentSummary
from docflow.document.shown import DuplicateHit
from docflow.review.access.refusals import ALL_REASONS
from docflow.review.stage.for_review import RouteStep
from docflow.review.stage.masking import Segment, masked_value
from docflow.review.stage.records import tally
from docflow.review.stage.stage_record import DecisionRecord, Presence
from docflow.review.stage.triage import NONE_OF_THESE, UNCLASSIFIABLE
from docflow.review.web.einvoice_view import InvoiceView
from docflow.review.web.evidence import PageFacts
from docflow.review.web.field_inputs import FieldRow, box_style, fields_rows
from docflow.review.web.page_records import Answered, Routing, Shown
from docflow.review.web.templating import env, when, when_iso
from docflow.settings import load_settings
from docflow.suppliers.shown import IN_DATA, routes_on, supplier_lines, supplier_offer

PAGE_WINDOW = 5  # pages per screen; the rest are a "Next pages" away
DOWNLOAD_MINUTES = 5
DETECTOR_NAMES = {
    "card_number": "a card number",
    "us_ssn": "a US social security number",
    "iban": "an IBAN",
    "email": "an e-mail address",
}


class EarlierShown(DuplicateHit, total=False):
    """A document this one may duplicate, as the page lists it: its dashboard page where the
    local stack serves one ("" in AWS), and whether it is an earlier version of this one."""

    href: str
    sameDocument: bool


class DecidedShown(DecisionRecord, total=False):
    """An earlier stage's decision in the "Earlier decisions" table: when, in the pages'
    format, and what it said in one line."""

    when: str
    said: str


@dataclass(frozen=True)
class ShownPage:
    number: int
    engine: str
    segments: list[Segment]
    findings: bool
    tags: list[dict[str, str]] = field(default_factory=list)
    # Where the key fields on this page were read: {name, label, style} for each outline.
    boxes: list[dict[str, str]] = field(default_factory=list)


def _pages_list(numbers: list[int], limit: int = 12) -> str:
    shown = ", ".join(str(n) for n in numbers[:limit])
    more = len(numbers) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def findings_lines(pages: list[PageFacts], routing: Routing, xml: bool = False) -> list[str]:
    """What the detectors found, by page; `xml`: an invoice sent as XML alone, whose one
    "page" is its data read as text, so what is found there is said to be in the data."""
    lines = []
    by_detector: dict[str, list[int]] = {}
    for page in pages:
        for detector, count in sorted(page.sensitive.items()):
            if count:
                by_detector.setdefault(detector, []).append(page.page)
    for detector, numbers in sorted(by_detector.items()):
        what = DETECTOR_NAMES.get(detector, detector)
        routed = " (this routes documents to review)" if detector in routing.review_on else ""
        where = IN_DATA if xml else f"on page {_pages_list(numbers)}"
        lines.append(f"{what[:1].upper()}{what[1:]} {where}{routed}.")
    low = [p.page for p in pages if p.low_confidence(routing.min_confidence)]
    if low:
        lines.append(
            f"OCR was unsure (confidence below {routing.min_confidence:g}) on "
            f"{'page' if len(low) == 1 else 'pages'} {_pages_list(low)}."
        )
    return lines


def _place_boxes(
    rows: list[FieldRow], order: list[int], window: list[int], base: str
) -> dict[int, list[dict[str, str]]]:
    """Give each boxed field its link (to its outline on this screen, or on the screen that
    shows its page) and return the outlines per page shown."""
    per_page: dict[int, list[dict[str, str]]] = {}
    for row in rows:
        page = row.page
        if not row.box or page is None or page not in order:
            row.box = ""
            continue
        anchor = f"#box-{row.name}"
        row.href = anchor if page in window else f"{base}?from={order.index(page)}{anchor}"
        if page in window:
            outline = {"name": row.name, "label": row.label, "style": row.box}
            per_page.setdefault(page, []).append(outline)
    return per_page


def _mismatch_boxes(
    invoice: InvoiceView | None, order: list[int], window: list[int], base: str
) -> tuple[dict[int, list[dict[str, str]]], dict[str, str]]:
    """A hybrid's disagreements: the outline of each page value, on its page, and the link
    to it from the side-by-side table (on this screen, or the screen that shows its page)."""
    per_page: dict[int, list[dict[str, str]]] = {}
    hrefs: dict[str, str] = {}
    for m in invoice.mismatches if invoice else []:
        style, name = box_style(m.box), f"mismatch-{m.field}"
        if not style or m.page not in order:
            continue
        here = m.page in window
        hrefs[m.field] = f"#box-{name}" if here else f"{base}?from={order.index(m.page)}#box-{name}"
        if here:
            outline = {"name": name, "label": f"{m.short} as printed", "style": style}
            back = {"kind": "mismatch", "href": f"#mismatch-{m.field}"}
            per_page.setdefault(m.page, []).append({**outline, **back})
    return per_page, hrefs


# Why a stage holds the document, said to its reviewer, by the stage's `because`.
_WHY = {
    "fields": "a key field needs a person's check (see Key fields)",
    "audit": "a sample of documents read from a supplier's learned profile: check every value "
    "(a correction here counts against the profile)",
    "sensitive": "a detector found sensitive data (see below)",
    "quality": "the text could not be read with confidence (see below)",
    "bank-details": "the account it asks to be paid on is not the supplier's registered one "
    "(see below)",
    "duplicate": "the same invoice may have been sent before: compare it with the earlier one",
    "possible-duplicate": "an invoice from the same supplier for the same total came within a "
    "week of this one: compare them (a supplier may bill the same total twice)",
    "duplicate-unchecked": "the duplicate check could not run: make sure it was not paid before",
    "unknown-type": "no document type fits it: a person picks its type",
    "match": "its order, its goods received or what is left of the order does not agree with "
    "it, or never came (see the order beside it)",
}


def _why(because: str, doc_type: str, findings: list[str]) -> str:
    if because in _WHY:
        return _WHY[because]
    if because == "type":
        return f"every document of type {doc_type} goes here"
    if because.startswith("risk: "):  # the enrich step's reasons, each with its page
        return f"the risk was rated high: {because.removeprefix('risk: ')} (marked on the pages)"
    if because.startswith("enrichment-incomplete"):
        return "the summary and risk could not be made: please assess the risk yourself"
    if because == "type-unsure":
        return f"it may not be of type {doc_type}: a person picks its type"
    return "named by the rules"


def _earlier(summary: DocumentSummary, document_id: str) -> list[EarlierShown]:
    """The documents this one may duplicate (`duplicateOf`), each linked to its dashboard page
    where the local stack serves one on this port; in AWS, its id is what a person looks up.
    An earlier version of this same document says so: approving replaces it."""
    local = bool(load_settings().local_runner_url)
    return [
        {
            **e,
            "href": f"/dashboard/doc/{quote(str(e['documentId']))}" if local else "",
            "sameDocument": e["documentId"] == document_id,
        }
        for e in summary.duplicate_of
        if e.get("documentId")
    ]


def _risk_tags(summary: DocumentSummary) -> dict[int, list[dict[str, str]]]:
    """The enrich step's risk reasons, as tags on the pages they point to."""
    tags: dict[int, list[dict[str, str]]] = {}
    for reason in (summary.risk or {}).get("reasons") or []:
        text = f"risk: {reason.get('message') or reason.get('code')}"
        tags.setdefault(int(reason.get("page", 1)), []).append({"kind": "alert", "text": text})
    return tags


def _tags(page: PageFacts, routing: Routing) -> list[dict[str, str]]:
    tags = []
    for detector, count in sorted(page.sensitive.items()):
        if count:
            kind = "alert" if detector in routing.review_on else ""
            name = DETECTOR_NAMES.get(detector, detector)
            tags.append({"kind": kind, "text": f"{name} ×{count}" if count > 1 else name})
    if page.low_confidence(routing.min_confidence):
        tags.append({"kind": "warn", "text": f"OCR confidence {page.confidence:.0f}"})
    if page.engine == "blank":  # no engine read it: there was nothing to read
        tags.append({"kind": "", "text": "blank, not read"})
    elif page.engine != "textlayer":
        tags.append({"kind": "", "text": f"read by {page.engine}"})
    return tags


def review_page(shown_doc: Shown, answered: Answered | None = None) -> str:
    answered = answered or Answered()
    link, base, pages, order = shown_doc.link, shown_doc.base, shown_doc.pages, shown_doc.order
    shown_from, texts, routing = shown_doc.shown_from, shown_doc.texts, shown_doc.routing
    invoice, stage, decl = shown_doc.invoice, shown_doc.stage, shown_doc.decl
    match = shown_doc.match
    submitted_fields, field_errors = answered.fields, answered.field_errors
    for_review = link.shown
    summary = for_review.summary
    doc_type = summary.doc_type or "unknown"
    # The issuer's own IBANs route nowhere (docflow.suppliers.ownership): not said to.
    review_on = routes_on(routing.review_on, summary, for_review.sent_for_sensitive)
    routing = Routing(review_on, routing.min_confidence)
    data_only = invoice is not None and invoice.source == "xml"
    findings = [*findings_lines(pages, routing, data_only), *supplier_lines(summary)]
    stage_index = link.stage_index
    route_spec = for_review.route or (RouteStep(name=link.stage_name, because=""),)
    route = [
        {
            "name": step["name"],
            "why": _why(step["because"], doc_type, findings),
            "current": i == stage_index,
        }
        for i, step in enumerate(route_spec)
    ]
    facts = {p.page: p for p in pages}
    risky = _risk_tags(summary)
    window = order[shown_from : shown_from + PAGE_WINDOW]
    # A triage page asks for the type only: the picked type's fields are read afterwards.
    choices = list(for_review.choices)
    rows = []
    if not choices:
        submitted = submitted_fields or {}
        rows = fields_rows(summary, submitted, field_errors or {}, decl, answered.tables)
    boxes = _place_boxes(rows, order, window, base)
    outlined, mismatch_links = _mismatch_boxes(invoice, order, window, base)
    shown = [
        ShownPage(
            number=n,
            engine=facts[n].engine if n in facts else "",
            segments=texts.get(n, []),
            findings=any(s.detector for s in texts.get(n, [])),
            tags=[*(_tags(facts[n], routing) if n in facts else []), *risky.get(n, [])],
            boxes=[*boxes.get(n, []), *outlined.get(n, [])],
        )
        for n in window
    ]
    # Who is asked now (escalation widens it), and for a quorum stage where the votes stand.
    record = stage or {}
    asked = record.get("reviewers") or link.reviewers
    others = [r for r in asked if r != link.reviewer]
    quorum = ""
    if record.get("quorumSet"):
        state = tally(record)
        quorum = (
            f"{state['quorum']} approvals of {state['reviewers']} reviewers; "
            f"{state['approvals']} so far"
            + (f", {state['rejections']} rejected" if state["rejections"] else "")
        )
    name = link.name
    return env.get_template("review.html").render(
        title=f"Review {name}",
        name=name,
        base=base,
        stage=link.stage_name,
        stage_number=stage_index + 1,
        route=route,
        doc_type=doc_type,
        page_count=len(order),
        reviewer=link.reviewer,
        others=", ".join(others),
        quorum=quorum,
        deadline=when(shown_doc.deadline) if shown_doc.deadline else "",
        findings=findings,
        decisions=[_decided(d, field_labels(rows)) for d in for_review.decisions],
        earlier=_earlier(summary, link.document_id),
        pages=shown,
        shown_from=shown_from,
        window=PAGE_WINDOW,
        more=shown_from + PAGE_WINDOW < len(order),
        flagged=shown_doc.flagged,
        # Pages with no ink (engine `blank`): nothing to read on them, said once at the top.
        blank_pages=[p.page for p in pages if p.engine == "blank"],
        reasons=list(shown_doc.reasons.items()),
        error=answered.error,
        field_rows=rows,
        # "Add this supplier": a fields review of an issuer the registry does not know yet.
        supplier_offer=supplier_offer(summary) if rows else [],
        add_supplier=answered.add_supplier,
        field_labels=field_labels(rows),
        # Treasury judges an account it sees by its last four: the page says where it is whole.
        bank_stage=for_review.because(stage_index) == "bank-details",
        field_errors=field_errors or {},
        type_choices=choices,
        none_of_these=(UNCLASSIFIABLE, NONE_OF_THESE),
        type_error=answered.type_error,
        doc_type_picked=answered.doc_type_picked,
        chosen_reason=answered.chosen_reason,
        comment=answered.comment,
        download_minutes=DOWNLOAD_MINUTES,
        # Active content in the original (the split's flag): said by its download, and
        # `unknown` said as "could not be fully checked" (docflow/active_content.py).
        active_content=list(summary.active_content),
        active_said=said(summary.active_content),
        presence=_presence_line(shown_doc.presence, link.reviewer),
        presence_mine=shown_doc.presence is not None
        and shown_doc.presence["reviewer"] == link.reviewer,
        # The way back names no inbox link: `/inbox` answers from the browser's cookie.
        inbox_url="/inbox" if shown_doc.inbox else "",
        # No fragment: a page opened at a fragment skips `autofocus`, and the focus is the point.
        ask_approve=_here(base, confirm="approve"),
        ask_reject=_here(base, confirm="reject"),
        back=_here(base),
        confirm=answered.confirm if answered.confirm in ("approve", "reject") else "",
        # An e-invoice's data (docs/einvoice.md): the invoice itself when it came as XML alone.
        invoice=invoice,
        mismatch_links=mismatch_links,
        # The match stage: the invoice beside its order and receipts (docs/matching.md).
        match=match,
    )


def field_labels(rows: list[FieldRow]) -> dict[str, str]:
    return {r.name: r.label for r in rows}


def _decided(decision: DecisionRecord, labels: dict[str, str]) -> DecidedShown:
    """An earlier stage's decision as the "Earlier decisions" table shows it: when in the
    pages' format, and what it said: the fields it corrected (masked as on the page), the
    reason it gave, its comment."""
    said = []
    corrected = decision.get("corrections") or {}
    if corrected:
        values = [
            f"{labels.get(name, name)} to {masked_value(str((c or {}).get('value') or ''))}"
            for name, c in sorted(corrected.items())
        ]
        said.append(f"corrected {', '.join(values)}")
    if decision.get("rejectReason"):
        reason = str(decision["rejectReason"])
        said.append(f"reason: {ALL_REASONS.get(reason, reason)}")
    if decision.get("comment"):
        said.append(str(decision["comment"]))
    return {
        **decision,
        "when": when_iso(str(decision.get("decidedAt") or "")),
        "said": "; ".join(said),
    }


def _here(base: str, **more: str) -> str:
    query = urlencode({k: v for k, v in more.items() if v})
    return f"{base}?{query}" if query else base


def _presence_line(presence: Presence | None, me: str) -> str:
    if not presence:
        return ""
    since = when(int(presence.get("since", 0)))
    if presence.get("reviewer") == me:
        return f"You are looking at this since {since}; other reviewers see that."
    return f"{presence.get('reviewer')} is looking at this since {since}."
