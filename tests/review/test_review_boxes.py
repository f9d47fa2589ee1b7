"""Where each key field was read, on the review page: an outline over the page preview at the
field's box, a link beside the field that scrolls to it and marks it (CSS `:target`, no
script), a corrected field that keeps its box, and "position not known" where an engine gave
none: the page as rendered (in a real Chromium: tests/browser/test_review_boxes_browser.py)."""

from __future__ import annotations

import re

from docflow.document import DocumentSummary
from docflow.pipeline.extract import apply_corrections
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.refusals import REJECT_REASONS
from docflow.review.stage.decision import Decision
from docflow.review.web.evidence import PageFacts
from docflow.review.web.page_records import Routing, Shown
from docflow.review.web.pages import box_style, review_page


def render(fields: dict, pages: int = 1, shown_from: int = 0) -> str:
    facts = [PageFacts(n, "textlayer", 100.0, {}) for n in range(1, pages + 1)]
    link = LinkRecord.from_item(
        {
            "pk": "LINK#T",
            "summary": {"docType": "invoice", "pages": pages, "fields": fields, "fieldChecks": []},
            "stageIndex": 0,
            "stageName": "fields",
            "key": "in/invoice.pdf",
            "reviewer": "accounts@example.com",
        }
    )
    return review_page(
        Shown(
            link=link,
            base="/review/T",
            pages=facts,
            order=[p.page for p in facts],
            shown_from=shown_from,
            texts={},
            routing=Routing((), 40.0),
            deadline=None,
            flagged=0,
            reasons=REJECT_REASONS,
        )
    )


def section(html: str, page: int) -> str:
    match = re.search(rf'<section class="page" id="page-{page}">(.*?)</section>', html, re.S)
    assert match, f"page {page} is not on this screen"
    return match.group(1)


def test_each_field_shows_its_box_and_a_corrected_field_keeps_it() -> None:
    fields = {
        "invoice_number": {
            "value": "INV-7",
            "confidence": 0.95,
            "page": 1,
            "box": [0.1, 0.05, 0.3, 0.07],
        },
        "total_amount": {
            "value": "99.00",
            "confidence": 0.6,
            "page": 1,
            "box": [0.6, 0.5, 0.75, 0.52],
        },
        # The bedrock engine reads values without saying where.
        "vendor_name": {"value": "Acme", "confidence": 0.9, "page": 1, "box": None},
        "due_date": {
            "value": "2026-04-03",
            "confidence": 0.9,
            "page": 7,
            "box": [0.1, 0.2, 0.2, 0.22],
        },
    }
    summary = apply_corrections(
        DocumentSummary.from_json({"docType": "invoice", "fields": fields}),
        Decision(
            True,
            "a@example.com",
            decided_at="2026-11-30T10:00:00+00:00",
            corrections={"total_amount": "100.00"},
        ),
    )
    corrected = summary.to_json()["fields"]["total_amount"]
    assert (corrected["value"], corrected["original"], corrected["box"]) == (
        "100.00",
        "99.00",
        [0.6, 0.5, 0.75, 0.52],
    )
    html = render(summary.to_json()["fields"], pages=7)
    page_1 = section(html, 1)
    assert (
        '<a class="box" id="box-invoice_number" href="#field-invoice_number" '
        'style="left:10.00%;top:5.00%;width:20.00%;height:2.00%"'
    ) in page_1
    assert 'id="box-total_amount"' in page_1 and "left:60.00%;top:50.00%" in page_1
    assert 'id="box-vendor_name"' not in html
    # Each boxed field links to its outline; the one on a page of the next screen goes there.
    assert 'href="#box-invoice_number">Show where it was read on page 1</a>' in html
    assert 'href="#box-total_amount"' in html
    assert 'href="/review/T?from=6#box-due_date">Show where it was read on page 7</a>' in html
    vendor = html[html.index('for="field-vendor_name"') : html.index('id="field-vendor_name"')]
    assert "position not known" in vendor
    assert html.count("position not known") == 1


def test_boxes_that_cannot_be_drawn_are_left_out() -> None:
    for bad in (None, [], [0.1, 0.2, 0.3], [0.5, 0.5, 0.4, 0.6], ["a", 0, 1, 1], "0,0,1,1"):
        assert box_style(bad) == "", bad
    assert box_style([-0.1, 0, 1.2, 0.5]) == "left:0.00%;top:0.00%;width:100.00%;height:50.00%"
