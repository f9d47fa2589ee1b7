"""The changed review and inbox pages in Chromium at 1280 and 390 px (#35.14): screenshots into
build/screenshots/ (tests/support/screenshots.py), and what a phone must show (the full-size
link, the unreadable field's outline, no sideways scroll)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from docflow.review.access.inbox_links import InboxLinks
from docflow.review.access.keys import build_key_source
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support import screenshots
from tests.support.aws import Stack
from tests.support.browser import chromium, not_blank
from tests.support.review_desk import call, open_desk, wait_until
from tests.support.review_server import serve_review_pages

SHOTS = screenshots.folder()
INVOICE = pdfs.INVOICE_UNREADABLE_TOTAL.replace(
    "Invoice date:", "PO number: PO-7781\nInvoice date:"
)
SIZES = (("desktop", 1280, 800), ("phone", 390, 844))


@pytest.mark.browser
def test_the_changed_pages_in_a_browser(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(DEFAULT_RULES))
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "60")
    load_settings.cache_clear()
    request.addfinalizer(load_settings.cache_clear)
    s = load_settings()
    with open_desk(stack) as desk:
        docs = [
            stack.upload("in/north/invoice.pdf", pdfs.text_pdf(INVOICE, "")),
            stack.upload("in/south/invoice.pdf", pdfs.text_pdf(INVOICE)),
            stack.upload("in/east/other.pdf", pdfs.text_pdf(INVOICE)),
        ]
        for doc in docs:
            desk.start(doc)
        wait_until(lambda: len({m.run_id for m in links_in(moto_sent_mail())}) >= 3)
        mailed = links_in(moto_sent_mail())
        tokens = [next(m for m in mailed if m.run_id == d.run_id) for d in docs]
        reviewer = tokens[0].to
        inbox = InboxLinks(s.links_table).issue(reviewer, build_key_source(s).ring(), 3600)

        with serve_review_pages() as origin, chromium() as browser:
            for size, width, height in SIZES:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"{origin}/inbox/{inbox}")
                assert page.locator(".folder").count() == 3
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                page.screenshot(path=str(SHOTS / f"desk-inbox-{size}.png"), full_page=True)

                page.goto(f"{origin}/review/{tokens[0].token}")
                assert page.locator("#blank-pages").is_visible()
                enlarge = page.locator("#page-1 .enlarge a")
                assert enlarge.is_visible() and enlarge.get_attribute("href").endswith("/pages/1")
                label = page.locator('label[for="field-total_amount"]')
                assert label.evaluate("el => getComputedStyle(el).outlineStyle") == "solid"
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                page.screenshot(path=str(SHOTS / f"desk-review-{size}.png"), full_page=True)
                page.close()

            form = urlencode({"decision": "approve", "field.total_amount": "1,100.00"})
            headers = {"content-type": "application/x-www-form-urlencoded"}
            assert call("POST", f"/review/{tokens[1].token}", form, **headers)["statusCode"] == 200
            for (size, width, height), token in zip(SIZES, (tokens[0], tokens[2]), strict=True):
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"{origin}/review/{token.token}")
                page.fill("#field-total_amount", "1,100.00")
                page.click("button.approve >> nth=-1")
                page.wait_for_selector(".approved-values")
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                shot = SHOTS / f"desk-approved-{size}.png"
                page.screenshot(path=str(shot), full_page=True)
                assert not_blank(shot.read_bytes())
                page.goto(f"{origin}/review/{tokens[1].token}")
                assert page.locator("h1").inner_text() == "This review is closed"
                page.screenshot(path=str(SHOTS / f"desk-closed-{size}.png"), full_page=True)
                page.close()
