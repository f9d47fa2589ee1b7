"""The `match` stage's page in a real Chromium at a desktop's and a phone's width: the invoice's
lines beside its order's, the cells that differ marked, nothing wider than the screen; the
reviewer writes why and approves, and the invoice finalizes billed on their word (the page as
rendered: tests/review/test_match_page.py)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from docflow.readmodel.transitions import FINALIZED, PENDING_REVIEW
from docflow.runtime import build_runtime, use_runtime
from tests.kit.orders import PAPER, Item, invoice_pdf, order_pdf
from tests.support import screenshots
from tests.support.aws import Stack
from tests.support.browser import chromium, not_blank
from tests.support.matching import Runs, use_matching_rules
from tests.support.review_desk import Desk, open_desk
from tests.support.review_server import serve_review_pages

SHOTS = screenshots.folder()
SIZES = (("desktop", 1280, 900), ("phone", 390, 844))
MARKED = "rgb(138, 28, 20)"  # base.html's `td.differs`
ACME = "ACME SUPPLIES LTD"


@pytest.fixture
def desk(stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    monkeypatch.setenv("DOCFLOW_RULES_PATH", "")
    monkeypatch.setenv("DOCFLOW_EXECUTION_TIMEOUT_S", "86400")
    use_matching_rules(tmp_path, timeout_s=120)
    with open_desk(stack, Desk) as opened:
        use_runtime(build_runtime().with_(callbacks=opened.callbacks))
        yield opened


@pytest.mark.browser
def test_the_match_page_fits_a_phone_and_an_approval_with_a_note_bills_it(desk: Desk) -> None:
    runs = Runs(desk.stack, desk.runner)
    runs.callbacks = desk.callbacks
    runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
    extra = Item(
        "X-901", "Catering for the annual party, buffet and drinks", Decimal(1), Decimal("10.00")
    )
    billed = [PAPER[0], PAPER[1], PAPER[2].priced(Decimal("15.95")), extra]
    doc, arn = runs.start("in/inv.pdf", invoice_pdf("INV-5", "PO-4411", ACME, billed))
    assert runs.wait_status(doc, PENDING_REVIEW) == PENDING_REVIEW
    (token,) = desk.links(doc)
    note = "stapler price raised by agreement; catering ordered by phone"
    with serve_review_pages() as origin, chromium() as browser:
        for size, width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{origin}/review/{token}")
            assert page.locator("#match-title").inner_text() == "Against order PO-4411"
            rows = page.locator("#match-lines tbody tr:not(.said)")
            assert rows.count() == 4
            marked = page.locator("#match-line-3 td.differs")
            assert marked.count() == 2 and marked.first.is_visible()
            assert marked.first.evaluate("el => getComputedStyle(el).color") == MARKED
            said = page.locator("#match-lines tr.said .rule")
            assert said.count() == 2 and "15.95" in said.first.inner_text()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            # The lines fit their panel too (in the desktop's half-width column as on a
            # phone): nothing of a line is hidden behind a scroll bar.
            lines = page.locator("#match .scroll")
            assert lines.evaluate("el => el.scrollWidth <= el.clientWidth"), size
            shot = SHOTS / f"review-match-{size}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert not_blank(shot.read_bytes())
            page.close()
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(f"{origin}/review/{token}")
        page.fill("#comment", note)
        page.locator("button.approve[value=approve]").first.click()
        page.wait_for_load_state()
    done = desk.result(arn)
    assert done["status"] == FINALIZED
    match = done["match"]
    assert (match["overriddenBy"], match["note"], match["billed"]) == (
        "accounts@example.com",
        note,
        True,
    )
