"""`docflow orders show PO`: a purchase order's lines with what was billed and received of
each, its receipts, its bills and what is left, the invoices waiting for it; one number two
suppliers use is two orders (both shown, or the one `--supplier` names); an order that has not
come is shown with `--supplier` by the invoices waiting for it. Against the order store on moto
(the template's OrderTable), as against AWS's."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal

import pytest

from docflow.cli import main
from docflow.cli.exits import NOT_FOUND, USAGE
from docflow.matching.keys import key_for
from docflow.matching.records import BillRecord, ReceiptRecord, Waiter
from docflow.matching.store import OrderStore
from docflow.matching.verdict import Bounds
from docflow.settings import load_settings
from tests.matching.orders import line, order
from tests.support.aws import Stack

PAPER = [line(1, "A-100", "Paper A4", "40", "25.00"), line(2, "B-220", "Toner", "6", "89.90")]


def _fill() -> None:
    store = OrderStore(load_settings().order_table)
    acme, globex = key_for("Acme Supplies Ltd", "PO-4411"), key_for("GLOBEX GmbH", "PO-4411")
    assert acme is not None and globex is not None
    store.put_order(replace(order(PAPER), key=acme))
    store.put_order(replace(order(PAPER[:1]), key=globex, document_id="d-globex"))
    delivered = (line(1, "A-100", "Paper A4", "40", "0"),)
    store.put_receipt(acme, ReceiptRecord("d-dn", "v1", "1", "DN-1", "2026-03-03", delivered, True))
    bill = BillRecord("d-inv", "v1", "1", "bill", "INV-1", Decimal("1200.00"), {1: Decimal(40)})
    assert store.take(acme, bill, None, Bounds(), {})
    waiting = key_for("Acme Supplies Ltd", "PO-9999")
    assert waiting is not None
    store.add_waiter(waiting, Waiter("d-late", "v1", "run", "order", 0, "cb", "2026-03-05"))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["orders", "show", *argv])
    return code, capsys.readouterr().out


def test_one_number_of_two_suppliers_is_two_orders(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill()
    code, out = _run(capsys, "po 4411", "--json")
    assert code == 0
    orders = json.loads(out)["orders"]
    assert sorted(o["supplier"] for o in orders) == ["acme supplies", "globex"]
    acme = next(o for o in orders if o["supplier"] == "acme supplies")
    assert (acme["total"], acme["billed"], acme["left"]) == ("1847.28", "1200.00", "647.28")
    first = acme["lines"][0]
    assert (first["quantity"], first["billed"], first["received"]) == ("40", "40", "40")
    assert acme["lines"][1]["received"] == "0"  # toner: none delivered yet
    assert [b["number"] for b in acme["bills"]] == ["INV-1"] and acme["receipts"][0]["lines"] == 1
    code, out = _run(capsys, "PO-4411", "--supplier", "GLOBEX GMBH", "--json")
    (only,) = json.loads(out)["orders"]
    assert code == 0 and only["documentId"] == "d-globex" and only["billed"] == "0.00"


def test_an_order_not_come_yet_is_shown_by_its_supplier_with_who_waits(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill()
    assert _run(capsys, "PO-9999")[0] == NOT_FOUND  # no order of that number has come
    code, out = _run(capsys, "PO-9999", "--supplier", "ACME SUPPLIES")
    assert code == 0
    assert "not come yet" in out and "waiting for its order: d-late" in out


def test_the_text_shows_lines_receipts_and_bills_and_a_non_number_is_refused(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill()
    code, out = _run(capsys, "PO-4411", "--supplier", "acme supplies ltd")
    assert code == 0
    assert "total 1847.28 EUR, billed 1200.00, left 647.28" in out
    assert "receipt DN-1: 1 lines" in out and "invoice INV-1: 1200.00 billed" not in out
    assert "invoice INV-1: 1200.00 reserved" in out
    assert _run(capsys, "n/a")[0] == USAGE
