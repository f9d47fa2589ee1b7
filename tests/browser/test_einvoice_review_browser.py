"""An e-invoice's review page in a real Chromium at a desktop's and a phone's width (#46.5): an
XRechnung that arrived as XML alone reads as an invoice, its broken rules beside what they
concern; a hybrid Factur-X whose XML pays another account than its printed page shows both,
side by side, and its link marks the printed IBAN's outline on the page preview
(the page as rendered: tests/review/test_einvoice_page.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docflow.settings import load_settings
from tests.support import screenshots
from tests.support.aws import Stack
from tests.support.browser import chromium, not_blank
from tests.support.einvoice_review import (
    KOSIT_CII,
    PRINTED_IBAN,
    EInvoiceDesk,
    box_of,
    breaking_rules,
    einvoice_desk,
    hybrid_paying,
    put_einvoice,
    put_pages,
    rule_checks,
    stored_einvoice,
    summary_einvoice,
    xml_fields,
)
from tests.support.review_server import serve_review_pages

SHOTS = screenshots.folder()
SIZES = (("desktop", 1280, 900), ("phone", 390, 844))
MARKED = "rgb(212, 53, 28)"


@pytest.fixture
def desk(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> Iterator[EInvoiceDesk]:
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "120")
    load_settings.cache_clear()
    with einvoice_desk(stack) as opened:
        yield opened


def _xml_only(desk: EInvoiceDesk) -> str:
    xml = breaking_rules(KOSIT_CII.read_bytes())
    doc = desk.stack.upload("in/xrechnung-123456XX.xml", xml)
    stored = stored_einvoice(xml)
    put_einvoice(doc, stored)
    summary = {
        "docType": "invoice",
        "pages": 1,
        "einvoice": summary_einvoice(doc, stored),
        "fields": xml_fields(stored),
        "fieldChecks": rule_checks(stored),
    }
    return desk.link(doc, summary)


def _hybrid(desk: EInvoiceDesk) -> tuple[str, list[float]]:
    """The hybrid's review link and the printed IBAN's box on its page."""
    pdf = hybrid_paying("DE89 3704 0044 0532 0130 00")
    doc = desk.stack.upload("in/facturx-F20260023.pdf", pdf)
    box = box_of(put_pages(doc, pdf)[1], PRINTED_IBAN)
    stored = stored_einvoice(pdf)
    put_einvoice(doc, stored)
    mismatch = {
        "field": "iban",
        "code": "page-mismatch",
        "xml": "DE89370400440532013000",
        "page": PRINTED_IBAN,
        "pageBox": {"page": 1, "box": box},
        "message": "The payee IBAN printed on the page is not the one in the XML data.",
    }
    summary = {
        "docType": "invoice",
        "pages": 1,
        "einvoice": summary_einvoice(doc, stored),
        "fields": xml_fields(stored),
        "fieldChecks": [mismatch],
    }
    return desk.link(doc, summary), box


@pytest.mark.browser
def test_an_e_invoice_reads_as_an_invoice_and_a_mismatch_side_by_side(
    desk: EInvoiceDesk, tmp_path: Path
) -> None:
    xml_token = _xml_only(desk)
    hybrid_token, (x0, y0, x1, _) = _hybrid(desk)
    with serve_review_pages() as origin, chromium() as browser:
        for size, width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{origin}/review/{xml_token}")
            assert page.locator("#einvoice-title").inner_text() == "Invoice 123456XX"
            assert page.locator("img").count() == 0
            total_rule = page.locator("#einvoice-totals .rule")
            assert total_rule.is_visible() and "BR-CO-15" in total_rule.inner_text()
            assert "BR-S-08" in page.locator("#einvoice-rules").inner_text()
            assert page.locator("#einvoice-lines tbody tr").count() == 2
            assert not page.locator("#einvoice-warnings ul").is_visible()  # quiet until opened
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            # Its screenshots are a run's (tests/browser/test_run_page_screens.py).

            page.goto(f"{origin}/review/{hybrid_token}")
            img = page.locator("#page-1 img")
            page.wait_for_function(
                "el => el.complete && el.naturalWidth > 0", arg=img.element_handle()
            )
            row = page.locator("#mismatch-iban")
            assert row.locator(".page-value").inner_text().startswith("FR•••• 4698")
            assert row.locator(".xml-value").inner_text() == "DE•••• 3000"
            outline = page.locator("#box-mismatch-iban")
            assert outline.is_visible() and outline.locator("span").is_visible()
            sheet, at = img.bounding_box(), outline.bounding_box()
            assert abs(at["x"] - (sheet["x"] + x0 * sheet["width"])) <= 1.5
            assert abs(at["y"] - (sheet["y"] + y0 * sheet["height"])) <= 1.5
            assert abs(at["width"] - (x1 - x0) * sheet["width"]) <= 1.5
            row.locator("a.where").click()
            assert page.evaluate("location.hash") == "#box-mismatch-iban"
            assert outline.evaluate("el => getComputedStyle(el).outlineColor") == MARKED
            assert page.locator("#einvoice-lines tbody tr").count() >= 1
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.goto(f"{origin}/review/{hybrid_token}")
            shot = SHOTS / f"review-einvoice-mismatch-{size}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert not_blank(shot.read_bytes())
            page.close()
    assert not desk.callbacks.sent  # looking decides nothing
