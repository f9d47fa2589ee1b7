"""What a match decides, through the real orchestrator on the durable testing runner (moto, the
shipped rules with matching on, orders finalized unreviewed): a unit price over the tolerance
waits at `match` with its line named; an e-invoice is matched line by line by item number; an
invoice that would bill more than is left of its order waits with the order's history, and a
reviewer's approval with a note bills it on their word (the finalized record and event say
so); an archived invoice gives its share back; a credit note gives back; three-way, an
invoice waits for its goods receipt and bills no more than was received."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from docflow.ids import DocumentRef
from docflow.readmodel.transitions import AWAITING_MATCH, FINALIZED, PENDING_REVIEW
from tests.kit import pdfgen
from tests.kit.orders import (
    PAPER,
    Item,
    Totals,
    delivery_note_pdf,
    invoice_pdf,
    order_pdf,
    ubl_invoice,
)
from tests.support.aws import Stack
from tests.support.matching import Runs, matching_runs, order_file, use_matching_rules
from tests.support.waiting import wait_until

ACME = "ACME SUPPLIES LTD"
APPROVE = {"approved": True, "reviewer": "ap@example.com"}


def _runs(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **rules: object
) -> Iterator[Runs]:
    monkeypatch.setenv("DOCFLOW_RULES_PATH", "")
    monkeypatch.setenv("DOCFLOW_EXECUTION_TIMEOUT_S", "86400")
    use_matching_rules(tmp_path, **rules)  # type: ignore[arg-type]
    with matching_runs(stack) as runs:
        yield runs


@pytest.fixture
def runs(stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runs]:
    yield from _runs(stack, tmp_path, monkeypatch, timeout_s=120)


@pytest.fixture
def three_way(stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runs]:
    yield from _runs(stack, tmp_path, monkeypatch, timeout_s=120, three_way=True)


def _held(runs: Runs, key: str, data: bytes) -> tuple[str, dict]:
    """Start a document that is to wait at the match stage; its arn and the match detail."""
    doc, arn = runs.start(key, data)
    assert runs.wait_status(doc, PENDING_REVIEW, FINALIZED) == PENDING_REVIEW
    assert runs.state(doc)["stageName"] == "match"
    return arn, runs.match_detail(doc)


def test_a_unit_price_ten_percent_over_waits_at_match_with_its_line_named(runs: Runs) -> None:
    runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
    # The stapler at 15.95 instead of 14.50: 10% over on its line, under 1% of the total.
    dearer = [PAPER[0], PAPER[1], PAPER[2].priced(Decimal("15.95"))]
    arn, detail = _held(runs, "in/inv.pdf", invoice_pdf("INV-2", "PO-4411", ACME, dearer))
    (price,) = detail["differences"]
    assert (price["code"], price["line"], price["orderLine"]) == ("price", 3, 3)
    assert "15.95" in price["message"] and "14.50" in price["message"]
    file = order_file(ACME, "PO-4411")
    assert [b.state for b in file.bills] == ["reserved"]  # within the balance: its share is held
    runs.decide(arn, 0, {"approved": False, "reviewer": "ap@example.com", "comment": "overpriced"})
    assert runs.result(arn)["status"] == "archived"
    after = order_file(ACME, "PO-4411")
    assert [b.state for b in after.bills] == ["released"]  # archived: its share goes back
    assert after.order is not None and after.order.billed == 0


def test_an_einvoice_is_matched_to_its_order_line_by_line(runs: Runs) -> None:
    runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
    done = runs.finish("in/inv.xml", ubl_invoice("INV-3", "PO-4411", ACME, PAPER))
    assert done["status"] == FINALIZED, done
    match = done["match"]
    assert (match["matched"], match["basis"]) == (True, "lines")
    pairs = runs.match_detail(runs.doc_of("in/inv.xml"))["pairs"]
    assert [(p["invoice"], p["order"], p["how"]) for p in pairs] == [
        (0, 0, "item"),
        (1, 1, "item"),
        (2, 2, "item"),
    ]


def test_an_einvoice_a_line_over_its_ordered_quantity_waits(runs: Runs) -> None:
    runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
    more = [PAPER[0].counted(Decimal(41)), *PAPER[1:]]
    _arn, detail = _held(runs, "in/inv.xml", ubl_invoice("INV-4", "PO-4411", ACME, more))
    said = {(d["code"], d.get("line", 0)) for d in detail["differences"]}
    assert ("quantity", 1) in said and said <= {("quantity", 1), ("over-billed", 0)}


def test_what_would_overdraw_the_order_waits_and_an_approval_with_a_note_bills_it(
    runs: Runs,
) -> None:
    runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
    first = runs.finish("in/inv-1.pdf", invoice_pdf("INV-1", "PO-4411", ACME, PAPER))
    assert first["match"]["matched"]
    # Half the paper billed again under another number: nothing is left of the order.
    again = [PAPER[0].counted(Decimal(20))]
    arn, detail = _held(runs, "in/inv-2.pdf", invoice_pdf("INV-2", "PO-4411", ACME, again))
    codes = {d["code"] for d in detail["differences"]}
    assert codes == {"over-billed"}
    assert [(b["number"], b["state"]) for b in detail["bills"]] == [("INV-1", "billed")]
    note = "second delivery agreed by phone, PO to be raised"
    runs.decide(arn, 0, {**APPROVE, "comment": note})
    done = runs.result(arn)
    assert done["status"] == FINALIZED
    match = done["match"]
    assert (match["matched"], match["overriddenBy"], match["note"]) == (
        False,
        "ap@example.com",
        note,
    )
    assert match["billed"] and match["tolerance"]["unitPrice"]["share"] == "0.02"
    file = order_file(ACME, "PO-4411")
    assert file.order is not None
    assert file.order.billed == Totals.of(PAPER).total + Totals.of(again).total
    assert file.order.billed_qty[1] == Decimal(60)  # past the 40 ordered, on the reviewer's word
    assert sorted((b.number, b.state, b.overridden_by) for b in file.bills) == [
        ("INV-1", "billed", ""),
        ("INV-2", "billed", "ap@example.com"),
    ]
    events = runs.finalized_event(runs.doc_of("in/inv-2.pdf"))
    assert events["match"]["overriddenBy"] == "ap@example.com" and not events["match"]["matched"]


def test_a_credit_note_gives_back_what_was_billed(runs: Runs) -> None:
    runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
    runs.finish("in/inv.pdf", invoice_pdf("INV-1", "PO-4411", ACME, PAPER))
    back = [PAPER[0].counted(Decimal(10))]
    credit = runs.finish("in/cn.pdf", invoice_pdf("CN-1", "PO-4411", ACME, back, credit=True))
    assert credit["docType"] == "credit-note" and credit["match"]["matched"], credit
    file = order_file(ACME, "PO-4411")
    assert file.order is not None
    assert file.order.billed == Totals.of(PAPER).total - Totals.of(back).total
    assert file.order.billed_qty[1] == Decimal(30)


def test_three_way_an_invoice_waits_for_its_receipt_and_bills_no_more_than_came(
    three_way: Runs,
) -> None:
    runs = three_way
    runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
    invoice, arn = runs.start("in/inv.pdf", invoice_pdf("INV-1", "PO-4411", ACME, PAPER))
    assert runs.wait_status(invoice, AWAITING_MATCH) == AWAITING_MATCH
    assert runs.state(invoice)["awaiting"]["kind"] == "receipt"
    # Toner: 6 ordered and billed, 4 delivered so far.
    short = [PAPER[0], PAPER[1].counted(Decimal(4)), PAPER[2]]
    receipt = runs.finish("in/dn.pdf", delivery_note_pdf("DN-1", "PO-4411", ACME, short))
    assert (receipt["docType"], receipt["status"]) == ("delivery-note", FINALIZED), receipt
    # Woken by the receipt, it waits again for the rest, then the rest comes.
    runs.wait_status(invoice, AWAITING_MATCH)
    wait_for_second_round(runs, invoice)
    rest = [PAPER[1].counted(Decimal(2))]
    runs.finish("in/dn-2.pdf", delivery_note_pdf("DN-2", "PO-4411", ACME, rest))
    done = runs.result(arn)
    assert done["status"] == FINALIZED and done["match"]["matched"], done
    assert done["match"]["receipts"] == 2 and done["match"]["threeWay"]


def wait_for_second_round(runs: Runs, invoice: DocumentRef) -> None:
    wait_until(
        lambda: (runs.state(invoice).get("awaiting") or {}).get("receipts") == 1,
        timeout=60,
        what="the second wait for a receipt",
    )


def test_three_way_goods_never_received_wait_at_match(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for runs in _runs(stack, tmp_path, monkeypatch, timeout_s=3, three_way=True):
        runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
        _arn, detail = _held(runs, "in/inv.pdf", invoice_pdf("INV-1", "PO-4411", ACME, PAPER))
        assert [d["code"] for d in detail["differences"]] == ["no-receipt"]


def test_the_finalized_record_carries_the_match(runs: Runs) -> None:
    runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
    runs.finish("in/inv.pdf", invoice_pdf("INV-1", "PO-4411", ACME, PAPER))
    record = runs.final_record(runs.doc_of("in/inv.pdf"))
    match = record["summary"]["match"]
    assert (match["matched"], match["billed"], match["basis"]) == (True, True, "lines")


def test_an_order_number_corrected_at_review_is_matched_again_and_bills_that_order(
    runs: Runs,
) -> None:
    # Two orders of one supplier; the invoice prints the first's number for the second's goods.
    chairs = [Item("G-745", "Ergonomic office chair", Decimal(4), Decimal("219.00"))]
    runs.finish("in/po-1.pdf", order_pdf("PO-4411", ACME, PAPER))
    runs.finish("in/po-2.pdf", order_pdf("PO-5500", ACME, chairs))
    arn, detail = _held(runs, "in/inv.pdf", invoice_pdf("INV-7", "PO-4411", ACME, chairs))
    assert detail["differences"]
    # The reviewer reads the right number off the delivery papers and corrects it.
    runs.decide(arn, 0, {**APPROVE, "corrections": {"po_number": "PO-5500"}})
    done = runs.result(arn)
    assert done["status"] == FINALIZED, done
    match = done["match"]
    assert match["order"]["printed"] == "PO-5500" and match["matched"] and match["billed"]
    assert "overriddenBy" not in match  # matched clean: nobody's word was needed
    right, wrong = order_file(ACME, "PO-5500"), order_file(ACME, "PO-4411")
    assert right.order is not None and right.order.billed == Totals.of(chairs).total
    assert [(b.number, b.state) for b in right.bills] == [("INV-7", "billed")]
    assert wrong.order is not None and wrong.order.billed == 0
    assert all(b.state != "billed" for b in wrong.bills)


# An invoice in all but name (tests/review/test_triage.py): no type reaches its threshold.
UNPLACED = """ACME SUPPLIES LTD
12 Harbour Road, Leeds LS1 4AB
Statement of account
Document number: NW-5521
Issue date: 2026-03-04
Your order: 4411-B
Net amount: 200.00 EUR
Tax: 40.00 EUR
Total: 240.00 EUR"""


def test_an_invoice_picked_at_triage_is_matched_to_the_order_it_cites(runs: Runs) -> None:
    paper = [Item("A-100", "Paper A4, box of 5 reams", Decimal(8), Decimal("25.00"))]
    runs.finish("in/po.pdf", order_pdf("4411-B", ACME, paper))
    doc, arn = runs.start("in/unplaced.pdf", pdfgen.text_pdf(UNPLACED))
    assert runs.wait_status(doc, PENDING_REVIEW) == PENDING_REVIEW
    assert runs.state(doc)["stageName"] == "triage"
    runs.decide(arn, 0, {**APPROVE, "docType": "invoice"})
    index = 1
    while True:  # the invoice's own stages, if any, then `match` if it did not match

        def moved(at: int = index) -> bool:
            state = runs.state(doc)
            return state.get("status") == FINALIZED or state.get("stageIndex") == at

        wait_until(moved, what=f"stage {index}")
        if runs.status(doc) == FINALIZED:
            break
        runs.decide(arn, index, APPROVE)
        index += 1
    done = runs.result(arn)
    assert done["match"]["order"]["printed"] == "4411-B" and done["match"]["billed"]
    assert "match order review-0" in runs.operations(arn)  # matched once its type was known
    assert [(b.number, b.state) for b in order_file(ACME, "4411-B").bills] == [
        ("NW-5521", "billed")
    ]
