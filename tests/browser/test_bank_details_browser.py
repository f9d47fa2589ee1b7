"""Issue 43 end to end on the real local stack, treasury in a real browser (Chromium through
Playwright): a registered supplier's letterhead and VAT id with another IBAN on the payment line
waits at `bank-details`; its page puts the printed account beside the registered one, masked,
each once, and says that the original is where the whole account is; approving lets this
invoice finalize and registers nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docflow.cli import main
from docflow.local.config import StackConfig
from docflow.local.tools.uploads import put_document
from docflow.settings import load_settings
from docflow.suppliers.store import SupplierStore
from tests.kit.mailbox import wait_for_links
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT, blauwal_invoice
from tests.support.browser import approve, chromium
from tests.support.live_stack import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.live_stack()]

ATTACKER_IBAN = "GB82 WEST 1234 5698 7654 32"


def test_a_changed_bank_account_waits_for_treasury_with_both_accounts_shown(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    csv = tmp_path / "suppliers.csv"
    csv.write_text(
        f"id,name,vat,iban,currency\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT},"
        f"{BLAUWAL_IBAN},EUR\n",
        encoding="utf-8",
    )
    assert main(["--state", str(live_stack.state), "suppliers", "import", str(csv), "--local"]) == 0
    forged = blauwal_invoice("RE-2026-0042", label="Rechnungsnummer", footer_iban=ATTACKER_IBAN)
    doc = put_document(live_stack.names("DocumentBucket"), "incoming/forged.pdf", forged)
    waiting = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
    assert waiting["stageName"] == "bank-details"
    (link,) = wait_for_links(live_stack.state, 1, run_id=doc.run_id, stage_index=0)
    shot = Path(os.environ.get("DOCFLOW_SCREENSHOTS", tmp_path)) / "review-bank-details.png"
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(link.url)
        shown = page.locator("main").inner_text()
        assert "not the supplier's registered one" in shown
        found = page.locator("#found").inner_text()
        printed = "Pay to (printed): GB•••• 5432, not registered for this supplier, on page 1"
        assert printed in found and found.count("GB•••• 5432") == 1
        assert "Registered accounts: DE•••• 3000 (Commerzbank, COBADEFFXXX)" in found
        # Masked everywhere on the page: it says where treasury sees the account whole.
        whole = page.locator("#whole-account")
        assert whole.is_visible() and "download the original" in whole.inner_text()
        html = page.content()
        assert ATTACKER_IBAN not in html and ATTACKER_IBAN.replace(" ", "") not in html
        page.screenshot(path=str(shot), full_page=True)
        approve(page)
    done = wait_for(doc.document_id, {"finalized"}, doc.run_id)
    assert done["bank"]["verdict"] == "unregistered"
    supplier = SupplierStore(load_settings().supplier_table).get("blauwal")
    assert supplier is not None and supplier.ids["iban"] == (BLAUWAL_IBAN.replace(" ", ""),)
