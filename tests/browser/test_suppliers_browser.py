"""End to end on the real local stack, the reviewer in a real browser (Chromium through
Playwright): a made-up supplier registered with `docflow suppliers import`, whose invoice-number
label (`Belegkennung`) the rules do not know. Its first invoice waits at `fields`; the reviewer
types the number on the page and approves; the second invoice finalizes with no review and the
right number, read where the supplier's profile says; a third, the number moved, waits again."""

from __future__ import annotations

from pathlib import Path

import pytest

from docflow.cli import main
from docflow.local.config import StackConfig
from docflow.local.tools.uploads import put_document
from docflow.settings import load_settings
from docflow.suppliers.layouts import LayoutStore
from tests.kit.mailbox import wait_for_links
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT, blauwal_invoice
from tests.suppliers.rules import trust_after_one
from tests.support.browser import approve, chromium
from tests.support.live_stack import wait_for

# One review trusts the profile and nothing is audited here: what this drives is the page and
# the reading (the controls: tests/suppliers/test_learning.py).
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.live_stack(rules=trust_after_one)]


def test_the_second_invoice_of_a_learned_supplier_needs_nobody(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    csv = tmp_path / "suppliers.csv"
    csv.write_text(
        f"id,name,vat,iban,currency\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT},"
        f"{BLAUWAL_IBAN},EUR\n",
        encoding="utf-8",
    )
    assert main(["--state", str(live_stack.state), "suppliers", "import", str(csv), "--local"]) == 0
    bucket = live_stack.names("DocumentBucket")

    first = put_document(bucket, "incoming/blauwal-1.pdf", blauwal_invoice("E2026000000017"))
    waiting = wait_for(first.document_id, {"pending-review"}, first.run_id)
    assert waiting["stageName"] == "fields"
    (link,) = wait_for_links(live_stack.state, 1, run_id=first.run_id, stage_index=0)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(link.url)
        found = page.locator("main").inner_text()
        assert "Supplier Blauwal Hafenlogistik GmbH: matched by its vat" in found
        # The payee account, once: that it is the supplier's, and where it was read.
        said = page.locator("#found").inner_text()
        assert "Pay to (printed): DE•••• 3000" in said and said.count("DE•••• 3000") == 1
        assert "registered for this supplier, on page 1" in said
        assert "from the supplier registry" in page.locator("#fields").inner_text()
        page.screenshot(path=str(tmp_path / "review-supplier.png"), full_page=True)
        page.fill("#field-invoice_number", "E2026000000017")
        approve(page)
    done = wait_for(first.document_id, {"finalized"}, first.run_id)
    assert done["fields"]["invoice_number"]["value"] == "E2026000000017"
    # What was learned belongs to the layout (linked to the supplier its VAT id matched).
    (layout,) = LayoutStore(load_settings().supplier_table).all()
    assert layout.supplier_id == "blauwal"
    assert layout.profile["fields"]["invoice_number"]["label"] == "Belegkennung"

    second = put_document(bucket, "incoming/blauwal-2.pdf", blauwal_invoice("E2026000000018"))
    state = wait_for(second.document_id, {"finalized", "pending-review"}, second.run_id)
    assert state["status"] == "finalized", state.get("fieldChecks")
    assert state["fields"]["invoice_number"]["value"] == "E2026000000018"
    assert state["fields"]["invoice_number"]["source"] == "profile"

    third = put_document(
        bucket, "incoming/blauwal-3.pdf", blauwal_invoice("E2026000000019", moved=True)
    )
    state = wait_for(third.document_id, {"finalized", "pending-review"}, third.run_id)
    assert state["status"] == "pending-review" and state["stageName"] == "fields"
