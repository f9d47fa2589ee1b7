"""The pure part of masking field values (docflow/pipeline/field_mask.py): which detectors mask,
what a masked field looks like, and one privacy stage however many parts ask for it."""

from __future__ import annotations

from dataclasses import replace

from docflow.document import Check
from docflow.pipeline.field_mask import (
    field_detectors,
    mask_checks,
    mask_fields,
    privacy_stage,
    sensitive_once,
)
from docflow.rules.model import DEFAULT_RULES, Stage, load_rules
from docflow.rules.routed import RoutedStage

RULES = load_rules(DEFAULT_RULES)
IBAN = "DE89370400440532013000"


def test_a_card_is_masked_and_marked_an_issuers_iban_is_left_to_the_registry() -> None:
    on_invoice = field_detectors(RULES, "invoice")
    assert "iban" not in on_invoice and "card_number" in on_invoice
    assert "iban" in field_detectors(RULES, "contract")
    fields = {
        "po_number": {"value": "PO 4111111111111111", "confidence": 0.9, "page": 1},
        "invoice_number": {"value": IBAN, "confidence": 0.9, "page": 1},
        "total_amount": {"value": "10.00", "confidence": 0.9, "page": 1},
    }
    masked, findings = mask_fields(fields, on_invoice)
    assert masked["po_number"] == {
        "value": "PO •••• 1111",
        "confidence": 0.9,
        "page": 1,
        "masked": "card_number",
    }
    assert masked["invoice_number"] == fields["invoice_number"]  # whole on an invoice
    assert masked["total_amount"] is fields["total_amount"]
    assert [(f.field, f.code) for f in findings] == [("po_number", "sensitive-value")]
    assert "4111" not in findings[0].message
    (check,) = mask_checks([Check("c", "read 4111111111111111", "x")], on_invoice)
    assert check == Check("c", "read •••• 1111", "x")
    assert privacy_stage(RULES, findings)[0].because == "sensitive"
    assert privacy_stage(RULES, []) == []


def test_a_card_in_a_table_cell_is_masked_and_the_table_marked() -> None:
    rows = [
        {"description": "Card payment 4111111111111111", "amount": "-12.00"},
        {"description": "Salary", "amount": "2000.00"},
    ]
    fields = {"transactions": {"value": "2 rows", "rows": rows, "confidence": 0.9, "page": 1}}
    masked, findings = mask_fields(fields, field_detectors(RULES, "bank-statement"))
    table = masked["transactions"]
    assert table["masked"] == "card_number"
    assert table["rows"][0] == {"description": "Card payment •••• 1111", "amount": "-12.00"}
    assert table["rows"][1] == rows[1]
    assert rows[0]["description"] == "Card payment 4111111111111111"  # the input untouched
    assert [(f.field, f.code) for f in findings] == [("transactions", "sensitive-value")]


def test_one_privacy_stage_however_many_parts_ask() -> None:
    privacy = RoutedStage(Stage("privacy", ("dpo@x",), 60, 0), "sensitive")
    fields = RoutedStage(Stage("fields", ("ap@x",), 60, 0), "fields")
    assert sensitive_once([privacy, fields, replace(privacy)]) == [privacy, fields]
    # Only a repeated *sensitive* stage is dropped: lists without one stay as they were.
    legal = RoutedStage(Stage("legal", ("legal@x",), 60, 0), "type")
    assert sensitive_once([legal, fields, replace(legal)]) == [legal, fields, legal]
