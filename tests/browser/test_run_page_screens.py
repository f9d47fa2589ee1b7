"""Review pages of documents a real run sent to a person, in Chromium at a desktop's 1,280 px
and a phone's 390 px (issue 57.6 and 57.8): nothing wider than the window, and each page says
each thing once and the same way.

- An XRechnung sent as XML alone, breaking BR-CO-15 and BR-S-08, from an unknown supplier that
  asks to be paid on an IBAN: its invoice (the XML's two lines) beside the decision form. The
  form offers no empty Lines editor beside the lines the data holds; no field is tagged both
  "from the XML data" and "not read"; there is no page, so nothing is said to be on a page; an
  unknown supplier's account is not called "not registered for this supplier", nor "printed";
  the account is named once.
- The `duplicate` stage a corrected total led to: its "Earlier decisions" readable at both
  widths (a reviewer's address and a time each on one line, not a column of four-letter
  pieces), with the value the earlier stage typed.

The runs are the real handler on the durable testing runner with the shipped rules (moto),
so the summary on the page is what a run records: its `lines` field, its bank check, its IBAN
judgements. Screenshots: `review-einvoice-xml-*.png` (the docs show them) and
`review-duplicate-*.png`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.kit import pdfgen as pdfs
from tests.support import screenshots
from tests.support.aws import Stack
from tests.support.browser import chromium, not_blank
from tests.support.einvoice_review import KOSIT_CII, breaking_rules
from tests.support.review_desk import Desk, call, open_desk
from tests.support.review_server import serve_review_pages

SHOTS = screenshots.folder()
SIZES = (("desktop", 1280, 900), ("phone", 390, 844))
FORM = {"content-type": "application/x-www-form-urlencoded"}
MASKED_IBAN = re.compile(r"[A-Z]{2}•••• \d{4}")
# What makes a page wider than its window: an element whose right edge passes the viewport's,
# unless a box of its own that fits scrolls or clips it (a table editor scrolls in its box).
WIDEST = """() => {
  const w = document.documentElement.clientWidth + 0.5;
  const held = e => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') return a.getBoundingClientRect().right <= w;
    }
    return false;
  };
  return [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > w && !held(e))
    .slice(0, 5).map(e => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`);
}"""


@pytest.fixture
def desk(stack: Stack, shipped_rules: None) -> Iterator[Desk]:
    with open_desk(stack, Desk) as desk:
        yield desk


def fits(page: Any, width: int) -> None:
    """No sideways scroll: the document is no wider than the window, and no element passes
    its right edge (named, when one does)."""
    assert page.evaluate(WIDEST) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def one_line(part: Any) -> bool:
    """The element's text sits on one line: not broken into a column of four-letter pieces."""
    return bool(
        part.evaluate(
            """el => { const r = document.createRange(); r.selectNodeContents(el);
                const tops = new Set([...r.getClientRects()].map(q => Math.round(q.top)));
                return tops.size === 1; }"""
        )
    )


@pytest.mark.browser
def test_an_xml_invoice_from_a_run_fits_and_says_each_thing_once(desk: Desk) -> None:
    doc = desk.stack.upload("incoming/xrechnung.xml", breaking_rules(KOSIT_CII.read_bytes()))
    desk.start(doc)
    (token,) = desk.links(doc)
    with serve_review_pages() as origin, chromium() as browser:
        for size, width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{origin}/review/{token}")
            assert page.locator("#einvoice-lines tbody tr").count() == 2
            # The data's lines are the invoice's: no empty editor offered beside them.
            assert page.locator("table.edit").count() == 0
            lines = page.locator("#fields .group.field", has=page.locator("#label-lines"))
            assert "2 lines" in lines.inner_text()
            assert lines.locator("a[href='#einvoice-lines']").count() == 1
            for label in page.locator("#fields label").all():
                said = label.inner_text()
                assert not ("from the XML data" in said and "not read" in said), said
            found = page.locator("#found").inner_text()
            assert not re.search(r"\bpage \d", found), found  # no page: the data
            assert "in the invoice's XML data" in found
            assert "not registered for this supplier" not in found and "printed" not in found
            accounts = MASKED_IBAN.findall(found)
            assert len(accounts) == len(set(accounts)) == 1, found
            fits(page, width)
            shot = SHOTS / f"review-einvoice-xml-{size}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert not_blank(shot.read_bytes())
            page.close()
    assert not desk.callbacks.sent  # looking decides nothing


@pytest.mark.browser
def test_the_duplicate_stage_after_a_corrected_total_fits(desk: Desk) -> None:
    first = desk.stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    assert desk.result(desk.start(first))["status"] == "finalized"
    smudged = pdfs.INVOICE_UNREADABLE_TOTAL.replace("INV-20931", "INV-20932")
    doc = desk.stack.upload("in/invoice-smudged.pdf", pdfs.text_pdf(smudged))
    desk.start(doc)
    (fields,) = desk.links(doc)
    typed = urlencode({"decision": "approve", "field.total_amount": "1100.00"})
    assert call("POST", f"/review/{fields}", typed, **FORM)["statusCode"] == 200
    (token,) = desk.links(doc, stage=1)
    with serve_review_pages() as origin, chromium() as browser:
        for size, width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{origin}/review/{token}")
            assert page.locator("#duplicate-of").is_visible()
            decided = page.locator("#decisions li").first
            said = decided.inner_text()
            assert said.startswith("fields: approved by accounts@example.com, ")
            assert "corrected Total amount to 1100.00" in said
            for part in (decided.locator(".who"), decided.locator(".when")):
                assert one_line(part), part.inner_text()
            fits(page, width)
            shot = SHOTS / f"review-duplicate-{size}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert not_blank(shot.read_bytes())
            page.close()
