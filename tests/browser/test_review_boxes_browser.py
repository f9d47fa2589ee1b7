"""Where each key field was read, in a real Chromium at a phone's and a desktop's width: the
outline over the page preview at the field's box, the link beside the field that scrolls to it and
marks it (CSS `:target`, no script), and the triage form's error beside its field (the page as
rendered: tests/review/test_review_boxes.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from docflow.rules.model import DEFAULT_RULES, load_rules
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support import screenshots
from tests.support.aws import Stack
from tests.support.browser import chromium, not_blank
from tests.support.review_desk import Desk, call, open_desk
from tests.support.review_server import serve_review_pages

SHOTS = screenshots.folder()
# Red: the marked (`:target`) outline; the others are a quiet blue.
MARKED = "rgb(212, 53, 28)"


@pytest.fixture
def desk(stack: Stack, shipped_rules: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "120")  # a browser on a busy machine is slow
    load_settings.cache_clear()
    with open_desk(stack) as opened:
        yield opened


@pytest.mark.browser
def test_a_click_on_a_field_marks_its_box_in_a_real_browser(desk: Desk, tmp_path: Path) -> None:
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

    with serve_review_pages() as origin, chromium() as browser:
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
        # Each type of the shipped rules file, and "none of these".
        types = len(load_rules(DEFAULT_RULES).types)
        assert page.locator('input[name="docType"]').count() == types + 1
        page.click("button.approve")
        page.wait_for_selector(".error-summary")
        error = page.locator("#doctype .error-message")
        assert error.inner_text() == "Choose the document's type" and error.is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.locator(".group:has(#doctype)").screenshot(path=str(shots / "review-triage-error.png"))
    assert not desk.callbacks.sent  # looking and a refused form decide nothing
