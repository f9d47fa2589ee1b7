"""A reviewer in a real browser (Chromium through Playwright), on the real local stack: the
page on a phone and on a desktop, previews that load, masked values, a rejection without a
reason refused next to the field, and an approval that moves the document on."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from docflow.local.config import StackConfig
from docflow.local.tools.uploads import put_document
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit.mailbox import wait_for_links
from tests.kit.pdfgen import make_pdf
from tests.support import screenshots
from tests.support.browser import chromium, not_blank
from tests.support.live_stack import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.live_stack]

FORM = """CARDHOLDER AGREEMENT
This agreement is made between the parties named below.
The parties hereby agree to the terms and conditions.
Card on file: 4111 1111 1111 1111
Governing law: Delaware."""
# Where the screenshots go: docs/reviewers.md shows the ones this test took.
SHOTS = screenshots.folder()


def test_review_in_a_browser_on_a_phone_and_a_desktop(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    shots = SHOTS or tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    doc = put_document(
        live_stack.names("DocumentBucket"),
        "incoming/cardholder-agreement.pdf",
        make_pdf([("scan", FORM), "Annex A\nSchedule of fees, page two."]),
    )
    wait_for(doc.document_id, {"pending-review"}, doc.run_id)
    (link,) = wait_for_links(live_stack.state, 1, run_id=doc.run_id, stage_index=0)

    with chromium() as browser:
        for name, width, height in (("phone", 390, 844), ("desktop", 1280, 800)):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(link.url)
            assert page.locator("h1").inner_text() == "Review cardholder-agreement.pdf"
            images = page.locator("section.page img")
            assert images.count() == 2
            for i in range(images.count()):
                img = images.nth(i)
                img.scroll_into_view_if_needed()
                page.wait_for_function(
                    "el => el.complete && el.naturalWidth > 0", arg=img.element_handle()
                )
                assert not_blank(img.screenshot()), f"{name}: preview {i} is blank"
            text = page.locator("main").inner_text()
            assert "•••• 1111" in text and "4111 1111 1111 1111" not in page.content()
            assert "A card number on page 1" in text
            # Nothing wider than the screen: the page works on a phone.
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(shots / f"review-{name}.png"), full_page=True)
            page.close()

        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(link.url)
        page.click("button.reject")
        page.wait_for_selector(".error-summary")
        assert "Choose why you reject the document" in page.locator(".error-summary").inner_text()
        page.screenshot(path=str(shots / "review-reject-error.png"), full_page=True)
        assert wait_for(doc.document_id, {"pending-review"}, doc.run_id)["stageName"] == "legal"

        page.fill("textarea#comment", "signed off in the browser")
        page.click("button.approve")
        page.wait_for_selector("h1:has-text('Document approved')")
    # The legal stage is decided; the card number sends the document on to privacy.
    state = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
    deadline = time.monotonic() + 60
    while state.get("stageName") != "privacy":
        assert time.monotonic() < deadline
        state = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
    history = ReadModel(load_settings().table_name).show(doc.document_id)["history"]
    approved = [h for h in history if h["status"] == "approved"]
    assert approved[0]["payload"]["comment"] == "signed off in the browser"
