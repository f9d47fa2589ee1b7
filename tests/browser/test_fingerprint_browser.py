"""Issue 59 end to end on the real local stack, the reviewer in a real browser (Chromium
through Playwright): learning that pays, with no supplier registered at all. A made-up
supplier whose VAT id fails its checksum and whose number label (`Belegnr. intern`) the rules
do not know. Its first two invoices wait at `fields` and the reviewer types the number on the
page: the first teaches the layout, the second grades the layout's shadow read. From then on
every invoice of the layout is read on it and finalizes with no person, every value right,
unless the audit draws it: the rules here sample at 0.5, the draw keyed by the stack's own
secret, so new bytes under one and the same file name are drawn both ways (an auditor
approves those on the page). One whose total does not reconcile goes to a person."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docflow.local.config import StackConfig
from docflow.local.tools.uploads import put_document
from docflow.settings import load_settings
from docflow.suppliers.layouts import LayoutStore
from tests.kit.mailbox import wait_for_links
from tests.suppliers.papers import KRANICH, blauwal_invoice, kranich_invoice
from tests.suppliers.rules import controls_rules
from tests.support.browser import approve, chromium
from tests.support.live_stack import wait_for
from tests.support.reviewed_runs import audit_drawn

RATE = 0.5


def _half_sampled(folder: Path) -> Path:
    return controls_rules(folder, min_confirmations=2, rate=RATE)


pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.live_stack(rules=_half_sampled),
]


def _on_page(url: str, shot: Path, number: str | None = None) -> str:
    """Open a review link, type the number if asked, approve; the page's text as shown."""
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        shown = str(page.locator("main").inner_text())
        page.screenshot(path=str(shot), full_page=True)
        if number is not None:
            page.fill("#field-invoice_number", number)
        approve(page)
    return shown


def _values_right(state: dict[str, Any], number: str, net: int) -> None:
    fields = {name: f["value"] for name, f in state["fields"].items()}
    tax = round(net * 0.19)
    day, month = int(number[-2:]) % 28 + 1, int(number[-2:]) % 12 + 1  # papers.py's date
    assert fields["invoice_number"] == number
    assert state["fields"]["invoice_number"]["source"] == "profile"
    assert fields["vendor_name"] == KRANICH and fields["currency"] == "EUR"
    assert fields["invoice_date"] == f"2026-{month:02d}-{day:02d}"
    amounts = [fields[n] for n in ("net_amount", "tax_amount", "total_amount")]
    assert [f"{float(a):.2f}" for a in amounts] == [f"{v / 100:.2f}" for v in (net, tax, net + tax)]


def test_a_layout_learned_on_the_page_reads_its_next_invoices_the_audit_drawn_by_a_secret(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    bucket = live_stack.names("DocumentBucket")
    seen: list[str] = []
    for index, number in enumerate(("KD-2026-0417", "KD-2026-0418")):
        doc = put_document(bucket, f"incoming/kranich-{index}.pdf", kranich_invoice(number))
        waiting = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
        assert waiting["stageName"] == "fields"
        (link,) = wait_for_links(live_stack.state, 1, run_id=doc.run_id, stage_index=0)
        seen.append(_on_page(link.url, tmp_path / f"review-{index}.png", number))
        done = wait_for(doc.document_id, {"finalized"}, doc.run_id)
        assert done["fields"]["invoice_number"]["value"] == number
    assert "A layout docflow has not learned yet" in seen[0]
    assert "known, its profile not yet trusted" in seen[1]
    (layout,) = LayoutStore(load_settings().supplier_table).all()
    entry = layout.profile["fields"]["invoice_number"]
    assert (entry["label"], entry["confirmed"], entry["graded"]["hits"]) == (
        "Belegnr. intern",
        2,
        1,
    )
    assert layout.issuer == KRANICH and layout.supplier_id == ""

    # One file name, new bytes each time: read on the layout, and drawn by the secret.
    drawn: set[bool] = set()
    through = 0
    for n in range(19, 40):
        if drawn == {True, False} and through >= 2:
            break
        number, net = f"KD-2026-04{n}", 100_000 + 1_250 * n
        doc = put_document(bucket, "incoming/kranich.pdf", kranich_invoice(number, net=net))
        audited = audit_drawn(doc, RATE)
        state = wait_for(doc.document_id, {"finalized", "pending-review"}, doc.run_id)
        if audited:
            assert (state["status"], state["stageName"]) == ("pending-review", "audit"), state
            (link,) = wait_for_links(live_stack.state, 1, run_id=doc.run_id, stage_index=0)
            shown = _on_page(link.url, tmp_path / f"audit-{n}.png")
            assert "read on its learned profile" in shown
            state = wait_for(doc.document_id, {"finalized"}, doc.run_id)
        else:
            assert state["status"] == "finalized" and not state.get("stages"), state
            through += 1
        _values_right(state, number, net)
        drawn.add(audited)
    assert drawn == {True, False} and through >= 2

    # A total that does not reconcile: a person reads it, whatever the layout says.
    odd = kranich_invoice("KD-2026-0450", total="1.290,00")
    doc = put_document(bucket, "incoming/kranich-odd.pdf", odd)
    state = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
    assert state["stageName"] == "fields"
    assert "amounts-disagree" in {c["code"] for c in state["fieldChecks"]}


def test_a_shadow_read_the_second_reviewer_typed_otherwise_leaves_the_field_to_a_person(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    """Another made-up layout (Blauwal's: its number after `Belegkennung`, which the rules do
    not know). The first reviewer types the printed number; the second types another number
    than the page prints, so the layout's shadow read, made before that person looked, is
    graded a miss: two reviews confirmed the field, no hit did, and its third invoice is read
    by a person again."""
    bucket = live_stack.names("DocumentBucket")
    # (printed, typed): the second reviewer types a number the page does not print.
    reviews = [("E2026000000017", "E2026000000017"), ("E2026000000018", "E2026000000099")]
    for index, (printed, number) in enumerate(reviews):
        doc = put_document(bucket, f"incoming/blauwal-{index}.pdf", blauwal_invoice(printed))
        waiting = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
        assert waiting["stageName"] == "fields"
        (link,) = wait_for_links(live_stack.state, 1, run_id=doc.run_id, stage_index=0)
        _on_page(link.url, tmp_path / f"blauwal-{index}.png", number)
        done = wait_for(doc.document_id, {"finalized"}, doc.run_id)
        assert done["fields"]["invoice_number"]["value"] == number
    (layout,) = [
        x for x in LayoutStore(load_settings().supplier_table).all() if x.issuer != KRANICH
    ]
    entry = layout.profile["fields"]["invoice_number"]
    assert (entry["graded"]["hits"], entry["graded"]["misses"]) == (0, 1)

    doc = put_document(bucket, "incoming/blauwal-2.pdf", blauwal_invoice("E2026000000019"))
    state = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
    assert state["stageName"] == "fields"
    read = (state.get("fields") or {}).get("invoice_number") or {}
    assert read.get("source") != "profile"
    assert "invoice_number" not in (state.get("profileFields") or [])
