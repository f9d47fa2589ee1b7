"""An invoice citing a purchase order docflow finalized earlier is compared with it at extract:
supplier, currency and total within the rules file's tolerance. A match makes the amounts
confident. A mismatch waits at the `match` stage with the order beside it (docs/matching.md);
with matching off (no `[matching]` table) it goes to the `fields` review with the order's
figures beside the invoice's. The flow runs the real orchestrator on the durable testing runner
over moto: the order is finalized first, found again by its number through the read model's
`orders` index (a Query)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.extract.checks.orders import PO_MATCH, OrderRules, compare, confirmed
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.transitions import FINALIZED, PENDING_REVIEW
from docflow.rules.model import DEFAULT_RULES
from docflow.runtime import use_runtime
from docflow.settings import load_settings
from docflow.storage import DocumentStore, match_key
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.kit.orders import matching_on
from tests.support.aws import Stack, result_json
from tests.support.review_desk import call, open_desk
from tests.support.waiting import wait_until

RULES = OrderRules(Decimal("0.01"), Decimal("0.05"))


def _f(**values: str) -> dict[str, dict[str, object]]:
    return {k: {"value": v, "confidence": 0.5, "page": 1} for k, v in values.items()}


ORDER = {
    "documentId": "d-order",
    "updatedAt": "2026-03-01T00:00:00.000+00:00",
    "fields": _f(
        po_number="PO-4411", vendor_name="Acme Supplies Ltd", currency="USD", total_amount="1100.00"
    ),
}


def test_an_invoice_that_agrees_with_its_order_matches_and_its_amounts_become_confident() -> None:
    invoice = _f(vendor_name="ACME SUPPLIES LTD", currency="USD", total_amount="1100.50")
    verdict = compare(invoice, [ORDER], RULES)  # 0.50 off: within 1% of the order's total
    assert verdict is not None and verdict.verdict == "match"
    sure = confirmed({**invoice, **_f(net_amount="1000.00")})
    assert sure["total_amount"]["confidence"] == PO_MATCH
    assert sure["net_amount"]["confidence"] == PO_MATCH
    assert sure["vendor_name"]["confidence"] == 0.5  # a name is not what the order confirms


def test_a_total_beyond_the_tolerance_or_another_supplier_or_currency_is_a_mismatch() -> None:
    cases = {
        ("total",): _f(vendor_name="Acme Supplies Ltd", currency="USD", total_amount="1250.00"),
        ("supplier",): _f(vendor_name="Other Ltd", currency="USD", total_amount="1100.00"),
        ("currency",): _f(vendor_name="Acme Supplies Ltd", currency="EUR", total_amount="1100.00"),
    }
    for differences, invoice in cases.items():
        verdict = compare(invoice, [ORDER], RULES)
        assert verdict is not None and verdict.verdict == "mismatch"
        assert verdict.differences == differences
    message = compare(cases[("total",)], [ORDER], RULES).check(cases[("total",)]).message  # type: ignore[union-attr]
    assert "invoice total 1250.00 USD" in message and "order total 1100.00 USD" in message


def test_no_order_or_no_total_is_no_verdict() -> None:
    assert compare(_f(total_amount="1.00"), [], RULES) is None
    assert compare(_f(currency="USD"), [ORDER], RULES) is None


def test_the_tolerance_comes_from_the_rules_file_and_is_checked() -> None:
    assert OrderRules.parse({"total_tolerance": 0.02}).total_tolerance == Decimal("0.02")
    for bad in ({"total_tolerance": 2}, {"total_tolerance_abs": "x"}):
        try:
            OrderRules.parse(bad)
        except ValueError as exc:
            assert "fields.orders" in str(exc)
        else:
            raise AssertionError(f"{bad} accepted")


PURCHASE_ORDER = """ACME SUPPLIES LTD
PURCHASE ORDER
PO number: PO-4411
Vendor: ACME SUPPLIES LTD
Subtotal: 1,000.00 USD
Tax (10%): 100.00 USD
Order total: 1,100.00 USD"""

CITING = pdfs.INVOICE_WITH_FIELDS.replace(
    "Due date: 2026-04-03", "Due date: 2026-04-03\nPO number: PO-4411"
)
OVER = (
    CITING.replace("Total due: 1,100.00 USD", "Total due: 1,265.00 USD")
    .replace("1,000.00", "1,150.00")
    .replace("Tax (10%): 100.00 USD", "Tax (10%): 115.00 USD")
)


def _finalize_order(stack: Stack, runner: DurableFunctionTestRunner) -> str:
    """The purchase order through the pipeline: its procurement and finance stages (and a
    fields stage, if its fields asked for one) approved one after the other."""
    doc = stack.upload("in/po-4411.pdf", pdfs.text_pdf(PURCHASE_ORDER))
    arn = runner.run_async(input=stack.event(doc), execution_timeout=300)
    model = ReadModel(load_settings().table_name)
    for index in range(3):
        callback_id = runner.wait_for_callback(
            arn, name=f"review-{index} create callback id", timeout=120
        )
        decision = {"approved": True, "reviewer": "buyer@example.com"}
        runner.send_callback_success(callback_id, json.dumps(decision).encode())
        stages = model.show(doc.document_id)["state"].get("stages") or []
        if index + 1 >= len(stages):
            break
    out = result_json(runner.wait_for_result(arn, timeout=120))
    assert (out["status"], out["docType"]) == ("finalized", "purchase-order"), out.get("reason")
    assert out["fields"]["po_number"]["value"] == "PO-4411"
    return str(out["documentId"])


def test_an_invoice_over_its_orders_total_waits_at_match_with_both_totals(
    stack: Stack, shipped_rules: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = tmp_path / "matching-on.toml"
    rules.write_text(matching_on(DEFAULT_RULES.read_text(encoding="utf-8")), encoding="utf-8")
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(rules))
    load_settings.cache_clear()
    use_runtime(None)
    with open_desk(stack) as desk:
        order_id = _finalize_order(stack, desk.runner)
        doc = stack.upload("in/invoice-over.pdf", pdfs.text_pdf(OVER))
        arn = desk.start(doc)
        desk.runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        waiting = ReadModel(load_settings().table_name).pending().items
        assert [w["stageName"] for w in waiting] == ["match"]
        assert "order-mismatch" not in {c["code"] for c in waiting[0].get("fieldChecks", [])}
        detail = DocumentStore(load_settings().artifact_bucket).get_json(match_key(doc))
        (over,) = detail["differences"]
        assert over["code"] == "over-billed" and "1,265.00 USD" in over["message"]
        assert detail["order"]["documentId"] == order_id and detail["order"]["total"] == "1100.00"
        # The reviewer's page sets the order beside the invoice: its total, what is left of it.
        (token,) = desk.links(doc)
        body = call("GET", f"/review/{token}")["body"]
        shown = body[body.index('id="match"') :]
        assert "1,265.00 USD" in shown and "1,100.00 USD" in shown and order_id in shown


def test_with_matching_off_a_mismatch_waits_in_the_fields_review_with_both_totals(
    stack: Stack, shipped_rules: None
) -> None:
    # Matching is off as shipped: its `[matching]` table is commented out in the rules file.
    assert "\n[matching]\n" not in DEFAULT_RULES.read_text(encoding="utf-8")
    with open_desk(stack) as desk:
        order_id = _finalize_order(stack, desk.runner)
        found = ReadModel(load_settings().table_name).finalized_orders("po-4411 ")
        assert [o["documentId"] for o in found] == [order_id]

        doc = stack.upload("in/invoice-over.pdf", pdfs.text_pdf(OVER))
        arn = desk.start(doc)
        desk.runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        waiting = ReadModel(load_settings().table_name).pending().items
        assert [w["stageName"] for w in waiting] == ["fields"]
        checks = {c["code"]: c for c in waiting[0]["fieldChecks"]}
        mismatch = checks["order-mismatch"]
        assert mismatch["field"] == "total_amount"
        assert "invoice total 1265.00 USD" in mismatch["message"]
        assert "order total 1100.00 USD" in mismatch["message"]
        assert order_id in mismatch["message"]
        # The reviewer's page sets both figures under the total.
        (token,) = desk.links(doc)
        body = call("GET", f"/review/{token}")["body"]
        row = body[body.index('<label for="field-total_amount"') :]
        row = row[: row.index('name="field.total_amount"')]
        assert "invoice total 1265.00 USD" in row and "order total 1100.00 USD" in row


def test_an_invoice_matching_its_order_has_confident_amounts(
    stack: Stack, shipped_rules: None
) -> None:
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        _finalize_order(stack, runner)
        doc = stack.upload("in/invoice-match.pdf", pdfs.text_pdf(CITING))
        runner.run_async(input=stack.event(doc), execution_timeout=120)
        # It finalizes, or waits in review for a field the order does not confirm (the
        # vendor's name, a date): either way its fields are in the read model.
        wait_until(lambda: _settled(doc.document_id) is not None, timeout=120, what="settled")
        state = _settled(doc.document_id)
        assert state is not None
    for name in ("total_amount", "net_amount", "tax_amount", "currency"):
        assert state["fields"][name]["confidence"] >= PO_MATCH, name
    assert not [
        c for c in state.get("fieldChecks", []) if c["field"] in ("total_amount", "tax_amount")
    ]


def _settled(document_id: str) -> dict | None:
    state = ReadModel(load_settings().table_name).show(document_id)["state"]
    return state if state and state.get("status") in (PENDING_REVIEW, FINALIZED) else None
