"""What an uploader varies to step around the duplicate check, through the real handler on the
durable testing runner (moto, the shipped rules): a copy under an unregistered name variant, a
claim form filed twice, a leading zero added to the number with the next day's date, and a
renumbered bill a few days on, all wait at `duplicate` with the first document shown."""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json

BILL = pdfs.INVOICE_WITH_FIELDS
REJECT = {"approved": False, "reviewer": "accounts@example.com", "rejectReason": "duplicate"}
# An employee's expense claim, as the shipped claim-form type reads it.
CLAIM = """EXPENSE CLAIM FORM
Employee name: Adam Smith
Claim date: 2026-03-04
Purpose of expense: client visit in Leeds
Date         Description        Cost
2026-03-02   Train to Leeds     350.00
Subtotal: 350.00
Total claimed: 350.00 USD"""


def read_model() -> ReadModel:
    return ReadModel(load_settings().table_name)


def run(stack: Stack, text: str, key: str) -> dict[str, Any]:
    doc = stack.upload(key, pdfs.text_pdf(text))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        return result_json(runner.run(input=stack.event(doc), execution_timeout=120))


def waits_at_duplicate(stack: Stack, text: str, key: str) -> dict[str, Any]:
    """Run the copy: it must wait at `duplicate`; reject it there. Its pending item."""
    doc = stack.upload(key, pdfs.text_pdf(text))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        (waiting,) = read_model().pending().items
        runner.send_callback_success(callback, json.dumps(REJECT).encode())
        assert result_json(runner.wait_for_result(arn, timeout=60))["status"] == "archived"
    assert waiting["stageName"] == "duplicate"
    return dict(waiting)


def because(waiting: dict[str, Any]) -> str:
    (stage,) = [s for s in waiting["stages"] if s["name"] == "duplicate"]
    return str(stage["because"])


def test_an_unregistered_suppliers_name_variant_with_the_same_bill_waits(
    stack: Stack, shipped_rules: None
) -> None:
    first = run(stack, BILL, "in/acme.pdf")
    assert first["status"] == "finalized"
    variant = BILL.replace("ACME SUPPLIES LTD", "ACME SUPPLIES UK LTD")
    waiting = waits_at_duplicate(stack, variant, "mail/acme-uk.pdf")
    (earlier,) = waiting["duplicateOf"]
    assert earlier["documentId"] == first["documentId"] and earlier["by"] == ["bill"]
    assert because(waiting) == "duplicate"


def test_a_claim_form_filed_twice_waits(stack: Stack, shipped_rules: None) -> None:
    first = run(stack, CLAIM, "claims/march.pdf")
    assert (first["docType"], first["status"]) == ("claim-form", "finalized")
    waiting = waits_at_duplicate(stack, CLAIM + "\nResubmitted", "claims/march-again.pdf")
    (earlier,) = waiting["duplicateOf"]
    assert earlier["documentId"] == first["documentId"] and earlier["by"] == ["declared"]
    assert (earlier["date"], earlier["total"], earlier["vendor"]) == (
        "2026-03-04",
        "350.00",
        "Adam Smith",
    )


def test_a_leading_zero_added_to_the_number_with_the_next_days_date_waits(
    stack: Stack, shipped_rules: None
) -> None:
    first = run(stack, BILL, "in/scan.pdf")
    moved = BILL.replace("INV-20931", "INV-020931").replace(
        "Invoice date: 2026-03-04", "Invoice date: 2026-03-05"
    )
    waiting = waits_at_duplicate(stack, moved, "mail/resent.pdf")
    (earlier,) = waiting["duplicateOf"]
    assert earlier["documentId"] == first["documentId"]
    assert sorted(earlier["by"]) == ["bill", "number", "window"]


def test_a_renumbered_bill_days_later_waits_as_a_possible_duplicate(
    stack: Stack, shipped_rules: None
) -> None:
    """Another number and another date: only the same supplier and total within a week."""
    first = run(stack, BILL, "in/scan.pdf")
    renumbered = BILL.replace("INV-20931", "INV-20391").replace(
        "Invoice date: 2026-03-04", "Invoice date: 2026-03-11"
    )
    waiting = waits_at_duplicate(stack, renumbered, "mail/renumbered.pdf")
    (earlier,) = waiting["duplicateOf"]
    assert earlier["documentId"] == first["documentId"] and earlier["by"] == ["window"]
    assert because(waiting) == "possible-duplicate"
    # Eight days after the first (the renumbered one gave its keys back): outside the window.
    later = renumbered.replace("INV-20391", "INV-20392").replace("2026-03-11", "2026-03-12")
    assert run(stack, later, "mail/later.pdf")["status"] == "finalized"
