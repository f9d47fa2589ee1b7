"""The record's and the report's one JSON shape, and the document type from the type code."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from docflow.einvoice import EInvoice, Report, read, validate
from docflow.einvoice.record import document_type

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"


@pytest.mark.parametrize(
    "name", ["cen-ubl-example1.xml", "kosit-xrechnung-01.01a-cii.xml", "cen-ubl-creditnote1.xml"]
)
def test_to_json_and_back_is_the_same_record_and_the_same_bytes(name: str) -> None:
    invoice = read((DATA / name).read_bytes())
    dumped = json.dumps(invoice.to_json())
    again = EInvoice.from_json(json.loads(dumped))
    assert again == invoice
    assert json.dumps(again.to_json()) == dumped
    assert isinstance(again.lines, tuple)
    assert isinstance(again.ibans, tuple)


@pytest.mark.parametrize(
    "name", ["cen-ubl-example1.xml", "kosit-xrechnung-01.01a-cii.xml", "cen-ubl-creditnote1.xml"]
)
def test_the_json_is_the_dataclass_fields_in_their_order(name: str) -> None:
    """einvoice.json was `asdict` before the typed shape: the same bytes now."""
    invoice = read((DATA / name).read_bytes())
    report = validate((DATA / name).read_bytes())
    assert json.dumps(invoice.to_json()) == json.dumps(asdict(invoice))
    assert json.dumps(report.to_json()["findings"]) == json.dumps(
        [asdict(f) for f in report.findings]
    )


def test_json_keys_keep_their_order_and_money_stays_a_string() -> None:
    value = read((DATA / "cen-ubl-example1.xml").read_bytes()).to_json()
    assert list(value)[:6] == [
        "syntax", "customization", "number", "type_code", "document_type", "issue_date"
    ]  # fmt: skip
    assert value["total"] == "250.33"
    assert value["lines"][0]["net"] == "19.90"


def test_an_unknown_key_is_refused() -> None:
    value = read((DATA / "cen-ubl-example1.xml").read_bytes()).to_json()
    with pytest.raises(ValueError, match="unknown"):
        EInvoice.from_json({**value, "surprise": 1})


@pytest.mark.parametrize(
    ("code", "credit_root", "expected"),
    [
        ("380", False, "invoice"),
        ("381", False, "credit-note"),
        ("384", False, "corrected-invoice"),
        ("389", False, "self-billed-invoice"),
        ("261", True, "self-billed-credit-note"),
        ("999", True, "credit-note"),
        (None, False, "invoice"),
    ],
)
def test_the_document_type_comes_from_the_type_code(code, credit_root, expected) -> None:
    assert document_type(code, credit_root) == expected


def test_a_type_code_changed_in_the_xml_changes_the_type_not_the_words() -> None:
    xml = (DATA / "cen-ubl-example1.xml").read_bytes()
    corrected = xml.replace(
        b"<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>",
        b"<cbc:InvoiceTypeCode>384</cbc:InvoiceTypeCode>",
    )
    assert corrected != xml
    assert read(corrected).document_type == "corrected-invoice"


def test_a_report_round_trips_with_its_findings() -> None:
    report = validate((DATA / "invalid-br-co-15-ubl.xml").read_bytes())
    dumped = json.dumps(report.to_json())
    assert Report.from_json(json.loads(dumped)) == report
    assert list(report.to_json()) == ["xsd", "xsdError", "rules", "findings", "skipped"]
