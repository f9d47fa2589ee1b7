"""Invoices and their orders on the real local stack (`docflow up`: moto, the durable runner, the
function host; the shipped rules with matching on, orders finalized unreviewed, a minute's
wait): an invoice that comes before its order waits and finalizes once the order's run wakes
it; an order that never comes ends the wait at `match`; two invoices racing for the last of an
order: exactly one passes; a unit price 10% over waits with its line marked on the reviewer's
page; an e-invoice is matched line by line; and the whole stack killed between the order's
finalize and the invoice's wake-up loses nothing."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest

from docflow.local.config import StackConfig
from docflow.local.stack import control
from tests.kit.orders import (
    PAPER,
    Item,
    Totals,
    invoice_pdf,
    matching_rules_text,
    order_pdf,
    ubl_invoice,
)
from tests.kit.sandbox import reset_process_state
from tests.support.live_stack import docflow_cli, history, http, review_url, upload_doc, wait_for

WAIT_S = 60


def _rules(folder: Path) -> Path:
    path = folder / "matching.toml"
    path.write_text(matching_rules_text(timeout_s=WAIT_S), encoding="utf-8")
    return path


pytestmark = [pytest.mark.slow(seconds=240), pytest.mark.live_stack(rules=_rules)]
SETTLED = {"finalized", "pending-review", "awaiting-match", "failed", "archived"}


def _order_show(stack: StackConfig, number: str, supplier: str) -> dict:
    shown = docflow_cli(stack, "orders", "show", number, "--supplier", supplier, "--json")
    assert shown.returncode == 0, shown.stderr
    (order,) = json.loads(shown.stdout)["orders"]
    return dict(order)


def test_an_invoice_before_its_order_waits_and_finalizes_when_it_comes(
    live_stack: StackConfig,
) -> None:
    supplier = "ACME SUPPLIES LTD"
    invoice = upload_doc(
        live_stack, "in/a/inv.pdf", invoice_pdf("INV-1", "PO-1001", supplier, PAPER)
    )
    waiting = wait_for(invoice.document_id, SETTLED)
    assert waiting["status"] == "awaiting-match", waiting
    assert waiting["awaiting"]["order"] == "PO-1001"
    before = _order_show(live_stack, "PO-1001", supplier)
    assert before["documentId"] is None and [w["woken"] for w in before["waiting"]] == [False]

    order = upload_doc(live_stack, "in/a/po.pdf", order_pdf("PO-1001", supplier, PAPER))
    assert wait_for(order.document_id, {"finalized"})["docType"] == "purchase-order"
    done = wait_for(invoice.document_id, {"finalized", "pending-review", "failed"})
    assert done["status"] == "finalized", done
    assert done["match"]["matched"] and done["match"]["basis"] == "lines"
    after = _order_show(live_stack, "PO-1001", supplier)
    assert after["billed"] == str(Totals.of(PAPER).total)
    assert [(b["number"], b["state"]) for b in after["bills"]] == [("INV-1", "billed")]
    assert [w["woken"] for w in after["waiting"]] == [True]


def test_an_order_that_never_comes_ends_at_the_match_stage(live_stack: StackConfig) -> None:
    invoice = upload_doc(
        live_stack, "in/b/inv.pdf", invoice_pdf("INV-2", "PO-1002", "GLOBEX GMBH", PAPER)
    )
    assert wait_for(invoice.document_id, SETTLED)["status"] == "awaiting-match"
    held = wait_for(invoice.document_id, {"pending-review"}, timeout=WAIT_S + 90)
    assert held["stageName"] == "match"
    body = http("GET", review_url(live_stack, invoice.run_id))[1]
    assert "order never came" in body


def test_two_invoices_racing_for_the_last_of_an_order_exactly_one_passes(
    live_stack: StackConfig,
) -> None:
    supplier = "INITECH OFFICE SARL"
    paper = (Item("A-100", "Paper A4, box of 5 reams", Decimal(10), Decimal("25.00")),)
    order = upload_doc(live_stack, "in/c/po.pdf", order_pdf("PO-1003", supplier, paper))
    wait_for(order.document_id, {"finalized"})
    six = [paper[0].counted(Decimal(6))]  # 6 of the 10, twice: only one fits
    first = upload_doc(
        live_stack, "in/c/inv-1.pdf", invoice_pdf("INV-31", "PO-1003", supplier, six)
    )
    second = upload_doc(
        live_stack, "in/c/inv-2.xml", ubl_invoice("INV-32", "PO-1003", supplier, six)
    )
    ends = [wait_for(d.document_id, {"finalized", "pending-review"}) for d in (first, second)]
    assert sorted(e["status"] for e in ends) == ["finalized", "pending-review"]
    (held,) = [e for e in ends if e["status"] == "pending-review"]
    assert held["stageName"] == "match"
    shown = _order_show(live_stack, "PO-1003", supplier)
    assert [b["state"] for b in shown["bills"]] == ["billed"]
    assert shown["lines"][0]["billed"] == "6"


def test_a_unit_price_ten_percent_over_waits_with_its_line_marked(
    live_stack: StackConfig,
) -> None:
    supplier = "UMBRELLA TOOLS BV"
    order = upload_doc(live_stack, "in/d/po.pdf", order_pdf("PO-1004", supplier, PAPER))
    wait_for(order.document_id, {"finalized"})
    dearer = [PAPER[0], PAPER[1], PAPER[2].priced(Decimal("15.95"))]
    invoice = upload_doc(
        live_stack, "in/d/inv.pdf", invoice_pdf("INV-4", "PO-1004", supplier, dearer)
    )
    assert wait_for(invoice.document_id, SETTLED)["stageName"] == "match"
    body = http("GET", review_url(live_stack, invoice.run_id))[1]
    row = body[body.index('id="match-line-3"') :]
    row = row[: row.index("</tr>")]
    assert 'class="num differs" data-label="Price billed">15.95' in row
    assert "unit price: line 3 (Stapler heavy duty)" in body


def test_an_einvoice_is_matched_to_its_order_line_by_line(live_stack: StackConfig) -> None:
    supplier = "HOOLI SUPPLIES AB"
    order = upload_doc(live_stack, "in/e/po.pdf", order_pdf("PO-1005", supplier, PAPER))
    wait_for(order.document_id, {"finalized"})
    invoice = upload_doc(
        live_stack, "in/e/inv.xml", ubl_invoice("INV-5", "PO-1005", supplier, PAPER)
    )
    done = wait_for(invoice.document_id, {"finalized", "pending-review"})
    assert done["status"] == "finalized", done
    assert (done["match"]["basis"], done["match"]["matched"]) == ("lines", True)


def _kill_every_process(config: StackConfig) -> None:
    for name in ("stackd.pid", "host.pid"):
        with contextlib.suppress(ProcessLookupError):
            os.kill(int((config.state / name).read_text()), signal.SIGKILL)
    while control.running_pid(config.state):
        time.sleep(0.05)


def test_a_crash_between_the_orders_finalize_and_the_invoices_wake_loses_nothing(
    live_stack: StackConfig,
) -> None:
    supplier = "VANDELAY IMPORTS LLC"
    invoice = upload_doc(
        live_stack, "in/f/inv.pdf", invoice_pdf("INV-6", "PO-1006", supplier, PAPER)
    )
    assert wait_for(invoice.document_id, SETTLED)["status"] == "awaiting-match"
    order = upload_doc(live_stack, "in/f/po.pdf", order_pdf("PO-1006", supplier, PAPER))
    wait_for(order.document_id, {"finalized"}, timeout=120)
    _kill_every_process(live_stack)  # the invoice's wake-up is under way, or not yet begun

    up = subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(live_stack.state), "up"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "not stopped cleanly" in up.stdout
    reset_process_state()
    done = wait_for(invoice.document_id, {"finalized", "pending-review", "failed"}, timeout=180)
    assert done["status"] == "finalized" and done["match"]["matched"], done
    statuses = [h["status"] for h in history(invoice.document_id)]
    assert statuses.count("finalized") == 1 and "failed" not in statuses
    shown = _order_show(live_stack, "PO-1006", supplier)
    assert [b["state"] for b in shown["bills"]] == ["billed"]
    assert shown["billed"] == str(Totals.of(PAPER).total)
