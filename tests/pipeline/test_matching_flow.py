"""Invoices and their orders through the real orchestrator on the durable testing runner (moto,
the shipped rules with matching on, orders finalized unreviewed): the wait and the wake.

An invoice whose order has not come waits (`awaiting-match`, no compute billed) and goes on
when the order's run finalizes it; an order already there is matched at once; an order that
never comes, or comes from another supplier, ends the wait at the `match` stage; an order
finalized twice wakes its invoice once; two suppliers' orders of one number stay two."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from docflow.readmodel.transitions import AWAITING_MATCH, FINALIZED, PENDING_REVIEW
from tests.kit.orders import PAPER, Item, Totals, invoice_pdf, order_pdf
from tests.support.aws import Stack
from tests.support.matching import Runs, matching_runs, order_file, use_matching_rules

ACME, GLOBEX = "ACME SUPPLIES LTD", "GLOBEX HARDWARE GMBH"


@pytest.fixture
def runs(stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runs]:
    monkeypatch.setenv("DOCFLOW_RULES_PATH", "")  # restored after: use_matching_rules sets it
    monkeypatch.setenv("DOCFLOW_EXECUTION_TIMEOUT_S", "86400")
    use_matching_rules(tmp_path, timeout_s=120)
    with matching_runs(stack) as runs:
        yield runs


@pytest.fixture
def short_wait(stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runs]:
    monkeypatch.setenv("DOCFLOW_RULES_PATH", "")
    monkeypatch.setenv("DOCFLOW_EXECUTION_TIMEOUT_S", "86400")
    use_matching_rules(tmp_path, timeout_s=3)
    with matching_runs(stack) as runs:
        yield runs


def test_an_invoice_before_its_order_waits_and_finalizes_when_the_order_comes(runs: Runs) -> None:
    invoice, arn = runs.start("in/inv-1.pdf", invoice_pdf("INV-1", "PO-4411", ACME, PAPER))
    assert runs.wait_status(invoice, AWAITING_MATCH, FINALIZED, PENDING_REVIEW) == AWAITING_MATCH
    awaiting = runs.state(invoice)["awaiting"]
    assert (awaiting["kind"], awaiting["order"], awaiting["supplier"]) == (
        "order",
        "PO-4411",
        "acme supplies",
    )
    (waiter,) = order_file(ACME, "PO-4411").waiters
    assert not waiter.woken

    order = runs.finish("in/po-4411.pdf", order_pdf("PO-4411", ACME, PAPER))
    assert order["status"] == FINALIZED
    done = runs.result(arn)
    assert done["status"] == FINALIZED, done
    match = done["match"]
    assert (match["status"], match["basis"], match["billed"]) == ("matched", "lines", True)
    assert match["order"]["documentId"] == order["documentId"]
    state = runs.state(invoice)
    assert state["match"]["matched"] is True and "awaiting" not in state
    file = order_file(ACME, "PO-4411")
    assert file.order is not None and file.order.billed == Totals.of(PAPER).total
    assert [b.state for b in file.bills] == ["billed"] and file.waiters[0].woken
    ops = runs.operations(arn)
    assert ops.index("find order") < ops.index("await order") < ops.index("match order")
    assert ops.index("match order") < ops.index("settle order billing") < ops.index("finalize")


def test_an_invoice_whose_order_is_there_matches_at_once(runs: Runs) -> None:
    runs.finish("in/po-4411.pdf", order_pdf("PO-4411", ACME, PAPER))
    invoice, arn = runs.start("in/inv-1.pdf", invoice_pdf("INV-1", "PO-4411", ACME, PAPER[:2]))
    done = runs.result(arn)
    assert done["status"] == FINALIZED and done["match"]["matched"]
    assert "await order" not in runs.operations(arn)  # no wait: the first look found it
    assert [s["status"] for s in runs.history(invoice)].count(AWAITING_MATCH) == 0


def test_an_order_that_never_comes_ends_the_wait_at_the_match_stage(short_wait: Runs) -> None:
    invoice, arn = short_wait.start("in/inv-1.pdf", invoice_pdf("INV-1", "PO-9999", ACME, PAPER))
    assert short_wait.wait_status(invoice, PENDING_REVIEW, timeout=60) == PENDING_REVIEW
    state = short_wait.state(invoice)
    assert state["stageName"] == "match"
    history = [h["status"] for h in short_wait.history(invoice)]
    assert AWAITING_MATCH in history
    short_wait.decide(arn, 0, {"approved": False, "reviewer": "ap@example.com", "comment": "no"})
    out = short_wait.result(arn)
    assert out["status"] == "archived"
    assert [d["code"] for d in out["match"]["differences"]] == ["no-order"]


def test_an_invoice_never_matches_another_suppliers_order(short_wait: Runs) -> None:
    """GLOBEX's invoice cites ACME's order number: it waits for GLOBEX's PO-4411, which never
    comes, and goes to a person; ACME's order keeps its whole balance."""
    short_wait.finish("in/po-4411.pdf", order_pdf("PO-4411", ACME, PAPER))
    invoice, _arn = short_wait.start("in/inv-g.pdf", invoice_pdf("INV-9", "PO-4411", GLOBEX, PAPER))
    assert short_wait.wait_status(invoice, PENDING_REVIEW, timeout=60) == PENDING_REVIEW
    assert short_wait.state(invoice)["stageName"] == "match"
    acme = order_file(ACME, "PO-4411")
    assert acme.order is not None and acme.order.billed == 0 and not acme.bills
    assert not acme.waiters and order_file(GLOBEX, "PO-4411").order is None


def test_two_suppliers_orders_of_one_number_stay_two(runs: Runs) -> None:
    toner = (Item("T-1", "Toner cartridge black", Decimal(3), Decimal("89.90")),)
    runs.finish("in/po-a.pdf", order_pdf("PO-1000", ACME, PAPER))
    runs.finish("in/po-g.pdf", order_pdf("PO-1000", GLOBEX, toner))
    done = runs.finish("in/inv-g.pdf", invoice_pdf("INV-7", "PO-1000", GLOBEX, toner))
    assert done["status"] == FINALIZED and done["match"]["matched"]
    assert done["match"]["order"]["supplier"] == "globex hardware"
    assert order_file(ACME, "PO-1000").order.billed == 0  # type: ignore[union-attr]
    globex = order_file(GLOBEX, "PO-1000").order
    assert globex is not None and globex.billed == Totals.of(toner).total


def test_an_order_finalized_twice_wakes_its_invoice_once(runs: Runs) -> None:
    invoice, arn = runs.start("in/inv-1.pdf", invoice_pdf("INV-1", "PO-4411", ACME, PAPER))
    runs.wait_status(invoice, AWAITING_MATCH)
    first = runs.finish("in/po-4411.pdf", order_pdf("PO-4411", ACME, PAPER))
    assert runs.result(arn)["status"] == FINALIZED
    # The order again, new bytes under its key: a new version, finalized in its own run.
    again = runs.finish("in/po-4411.pdf", order_pdf("PO-4411", ACME, [*PAPER, PAPER[0]]))
    assert again["version"] != first["version"] and again["status"] == FINALIZED
    (waiter,) = order_file(ACME, "PO-4411").waiters
    assert runs.callbacks.sent.count(waiter.callback_id) == 1
