"""Where each key field was read, on the review page: an outline over the page preview at the
field's box, a link beside the field that scrolls to it and marks it (CSS `:target`, no
script), a corrected field that keeps its box, and "position not known" where an engine gave
none. The page as rendered, and in a real Chromium at a phone's and a desktop's width."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from docflow.local.tools import pdfgen as pdfs
from docflow.pipeline.extract import apply_corrections
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.refusals import REJECT_REASONS
from docflow.review.stage.decision import Decision
from docflow.review.web.evidence import PageFacts
from docflow.review.web.pages import Routing, box_style, review_page
from docflow.settings import load_settings
from tests.support import screenshots
from tests.support.aws import Stack
from tests.support.browser import launch, not_blank
from tests.support.review_desk import Desk, call, open_desk
from tests.support.review_server import serve_review_pages

SHOTS = screenshots.folder()
# Red: the marked (`:target`) outline; the others are a quiet blue.
MARKED = "rgb(212, 53, 28)"


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
        {"fields": fields},
        Decision(
            True,
            "a@example.com",
            decided_at="2026-11-30T10:00:00+00:00",
            corrections={"total_amount": "100.00"},
        ),
    )
    corrected = summary["fields"]["total_amount"]
    assert (corrected["value"], corrected["original"], corrected["box"]) == (
        "100.00",
        "99.00",
        [0.6, 0.5, 0.75, 0.52],
    )
    html = render(summary["fields"], pages=7)
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


@pytest.fixture
def desk(stack: Stack, shipped_rules: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "120")  # a browser on a busy machine is slow
    load_settings.cache_clear()
    with open_desk(stack) as opened:
        yield opened


@pytest.mark.browser
def test_a_click_on_a_field_marks_its_box_in_a_real_browser(desk: Desk, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    shots = SHOTS or tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    doc = desk.stack.upload("in/smudged.pdf", pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL))
    unknown = desk.stack.upload(
        "in/statement.pdf", pdfs.text_pdf("NORTHWIND TRADING LTD\nStatement of account")
    )
    desk.start(doc)
    desk.start(unknown)
    (token,) = desk.links(doc, stage=0)
    (triage,) = desk.links(unknown, stage=0)
    summary = json.loads(call("GET", f"/review/{token}", accept="application/json")["body"])
    boxes = {n: f["box"] for n, f in summary["summary"]["fields"].items() if f.get("box")}
    assert {"invoice_number", "currency", "vendor_name"} <= set(boxes)

    with serve_review_pages() as origin, sync_playwright() as p:
        browser = launch(p)
        for size, width, height in (("phone", 390, 844), ("desktop", 1280, 800)):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{origin}/review/{token}")
            img = page.locator("#page-1 img")
            page.wait_for_function(
                "el => el.complete && el.naturalWidth > 0", arg=img.element_handle()
            )
            assert page.locator("#page-1 .box").count() == len(boxes)
            sheet = img.bounding_box()
            for name, (x0, y0, x1, y1) in boxes.items():
                outline = page.locator(f"#box-{name}")
                assert outline.is_visible(), f"{size}: {name}"
                at = outline.bounding_box()
                # Over the preview exactly where the box says (a pixel of rounding allowed).
                assert abs(at["x"] - (sheet["x"] + x0 * sheet["width"])) <= 1.5, name
                assert abs(at["y"] - (sheet["y"] + y0 * sheet["height"])) <= 1.5, name
                assert abs(at["width"] - (x1 - x0) * sheet["width"]) <= 1.5, name
                assert abs(at["height"] - (y1 - y0) * sheet["height"]) <= 1.5, name

            page.click('a.where[href="#box-invoice_number"]')
            marked = page.locator("#box-invoice_number")
            assert page.evaluate("location.hash") == "#box-invoice_number"
            assert marked.evaluate("el => el.matches(':target')")
            assert marked.evaluate("el => getComputedStyle(el).outlineColor") == MARKED
            assert page.locator("#box-invoice_number span").is_visible()  # its name, on it
            other = page.locator("#box-currency")
            assert other.evaluate("el => getComputedStyle(el).outlineColor") != MARKED
            seen = marked.bounding_box()  # scrolled into view
            assert seen["y"] >= 0 and seen["y"] + seen["height"] <= height, size
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot = shots / f"review-box-{size}.png"
            page.screenshot(path=str(shot))
            assert not_blank(shot.read_bytes())
            page.close()

        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(f"{origin}/review/{triage}")
        assert page.locator('input[name="docType"]').count() == 6  # five types and "none"
        page.click("button.approve")
        page.wait_for_selector(".error-summary")
        error = page.locator("#doctype .error-message")
        assert error.inner_text() == "Choose the document's type" and error.is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.locator(".group:has(#doctype)").screenshot(path=str(shots / "review-triage-error.png"))
        browser.close()
    assert not desk.callbacks.sent  # looking and a refused form decide nothing
