"""Issue 47 end to end on the real local stack, the reviewer in a real browser (Chromium
through Playwright), the shipped trust rule (two agreeing reviews) with the audit off: a
made-up supplier registered by name only (`docflow suppliers import`), whose VAT id fails its
checksum and whose number label (`Belegnr. intern`) the rules do not know. Its first two
invoices wait at `fields` and the reviewer types the number on the page; the third and the
fourth, recognized by their layout and name, finalize with no review and every value right."""

from __future__ import annotations

from pathlib import Path

import pytest

from docflow.cli import main
from docflow.local.config import StackConfig
from docflow.local.tools.uploads import put_document
from docflow.settings import load_settings
from docflow.suppliers.store import SupplierStore
from tests.kit.mailbox import wait_for_links
from tests.suppliers.papers import KRANICH, kranich_invoice
from tests.suppliers.rules import controls_rules
from tests.support.browser import launch
from tests.support.live_stack import wait_for


def _two_reviews_no_audit(folder: Path) -> Path:
    return controls_rules(folder, min_confirmations=2, rate=0.0)


pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.live_stack(rules=_two_reviews_no_audit),
]


def test_a_supplier_with_no_checked_id_learned_on_the_page(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    csv = tmp_path / "suppliers.csv"
    csv.write_text(f"id,name,currency\nkranich,{KRANICH},EUR\n", encoding="utf-8")
    assert main(["--state", str(live_stack.state), "suppliers", "import", str(csv), "--local"]) == 0
    bucket = live_stack.names("DocumentBucket")

    seen: list[str] = []
    for index, number in enumerate(("KD-2026-0417", "KD-2026-0418")):
        doc = put_document(bucket, f"incoming/kranich-{index}.pdf", kranich_invoice(number))
        waiting = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
        assert waiting["stageName"] == "fields"
        (link,) = wait_for_links(live_stack.state, 1, run_id=doc.run_id, stage_index=0)
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(link.url)
            seen.append(page.locator("main").inner_text())
            page.screenshot(path=str(tmp_path / f"review-{index}.png"), full_page=True)
            page.fill("#field-invoice_number", number)
            page.click("button.approve")
            page.wait_for_selector("button.confirm-yes, h1:has-text('Document approved')")
            if page.locator("button.confirm-yes").count():
                page.click("button.confirm-yes")
                page.wait_for_selector("h1:has-text('Document approved')")
            browser.close()
        done = wait_for(doc.document_id, {"finalized"}, doc.run_id)
        assert done["fields"]["invoice_number"]["value"] == number
    # The first: matched by its name only; the second: by the layout the first taught.
    assert f"Supplier perhaps {KRANICH} (by name only" in seen[0]
    assert f"Supplier {KRANICH}: matched by its fingerprint" in seen[1]
    assert "evidence: name, fingerprint" in seen[1] and "for reading only" in seen[1]
    supplier = SupplierStore(load_settings().supplier_table).get("kranich")
    assert supplier is not None
    assert supplier.profile["fields"]["invoice_number"]["confirmed"] == 2

    for index, (number, net) in enumerate((("KD-2026-0419", 245_050), ("KD-2026-0420", 9_900))):
        data = kranich_invoice(number, net=net)
        doc = put_document(bucket, f"incoming/kranich-{index + 2}.pdf", data)
        state = wait_for(doc.document_id, {"finalized", "pending-review"}, doc.run_id)
        assert state["status"] == "finalized", state.get("fieldChecks")
        fields = {name: f["value"] for name, f in state["fields"].items()}
        tax = round(net * 0.19)
        day, month = int(number[-2:]) % 28 + 1, int(number[-2:]) % 12 + 1  # papers.py's date
        assert fields["invoice_number"] == number
        assert state["fields"]["invoice_number"]["source"] == "profile"
        assert fields["vendor_name"] == KRANICH and fields["currency"] == "EUR"
        assert fields["invoice_date"] == f"2026-{month:02d}-{day:02d}"
        amounts = [fields[n] for n in ("net_amount", "tax_amount", "total_amount")]
        assert [f"{float(a):.2f}" for a in amounts] == [
            f"{v / 100:.2f}" for v in (net, tax, net + tax)
        ]
        assert state["supplier"]["by"] == "fingerprint"
