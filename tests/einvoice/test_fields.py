"""An e-invoice in docflow's terms: every sample's canonical fields exactly as its
hand-checked truth says, in the extract step's checkpoint shape and normal forms; the seller's
evidence as written; the validation report as checks (fatal rules beside their field)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from docflow.einvoice import EInvoice, Finding, Report, detect, read, validate
from docflow.einvoice.fields import (
    amount,
    canonical_fields,
    rule_checks,
    supplier_evidence,
)
from docflow.extract.declarations.kinds import VALUE_PATTERNS
from docflow.extract.declarations.labels import BUILTIN_KINDS as FIELD_KINDS

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
SAMPLES = sorted(p for p in DATA.iterdir() if p.suffix in (".xml", ".pdf"))
# The truth's names for docflow's canonical fields.
TRUTH_NAMES = {
    "invoice_number": "number",
    "po_number": "po_number",
    "invoice_date": "issue_date",
    "due_date": "due_date",
    "currency": "currency",
    "net_amount": "net",
    "tax_amount": "tax",
    "total_amount": "total",
}


def _read(path: Path) -> EInvoice:
    found = detect(path.read_bytes())
    assert found is not None
    return read(found)


def _truth(path: Path) -> dict[str, Any]:
    return json.loads(path.with_suffix(".truth.json").read_text())


def _want(truth: dict[str, Any]) -> dict[str, str]:
    want: dict[str, str] = {}
    for name, key in TRUTH_NAMES.items():
        value = truth[key]
        if value is None:
            continue
        if FIELD_KINDS[name] == "amount":
            value = f"{Decimal(value):.2f}"
        want[name] = value
    if truth["seller"].get("name"):
        want["vendor_name"] = truth["seller"]["name"]
    return want


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_samples_fields_are_its_truths_exactly_and_certain(path: Path) -> None:
    truth = _truth(path)
    fields = canonical_fields(_read(path))
    assert {name: f["value"] for name, f in fields.items()} == _want(truth)
    for name, found in fields.items():
        assert found == {"value": found["value"], "confidence": 1.0, "page": 0, "box": None}
        assert re.match(VALUE_PATTERNS[FIELD_KINDS[name]], found["value"]), (name, found)
    assert list(fields) == sorted(fields)


def test_only_the_types_fields_are_given() -> None:
    invoice = _read(DATA / "facturx-en16931.pdf")
    fields = canonical_fields(invoice, ("invoice_number", "total_amount"))
    assert fields == {
        "invoice_number": {"value": "F20260023", "confidence": 1.0, "page": 0, "box": None},
        "total_amount": {"value": "104.90", "confidence": 1.0, "page": 0, "box": None},
    }


def test_amounts_are_exact_decimals_with_two_places_never_floats() -> None:
    assert amount("4675") == "4675.00"
    assert amount("336.9") == "336.90"
    assert amount("1234.500") == "1234.50"
    assert amount("-12.5") == "-12.50"
    assert amount("999999999999.99") == "999999999999.99"
    # A third decimal breaks BR-DEC-14 (a fatal check) and is rounded half up, as a decimal:
    # through a float, 2.675 is 2.67499999... and would round down.
    assert amount("2.675") == "2.68"
    assert amount(None) is None and amount("") is None and amount("abc") is None
    assert amount("NaN") is None


def test_a_names_inner_blanks_are_collapsed_and_the_currency_upper_case() -> None:
    invoice = _read(DATA / "cen-ubl-example1.xml")
    odd = replace(
        invoice,
        seller=replace(invoice.seller, name="  De   Koksmaat \n"),
        currency="eur",
        number=" 12115118 ",
    )
    fields = canonical_fields(odd)
    assert fields["vendor_name"]["value"] == "De Koksmaat"
    assert fields["currency"]["value"] == "EUR"
    assert fields["invoice_number"]["value"] == "12115118"


def test_the_supplier_evidence_is_the_sellers_ids_and_the_payee_accounts() -> None:
    zugferd1 = supplier_evidence(_read(DATA / "mustang-zugferd1-505.pdf"))
    assert zugferd1.vat_id == "DE136695976"
    assert zugferd1.tax_number == "22/815/0815/4"
    assert zugferd1.ibans == ("DE88200800000970375700",)
    example1 = supplier_evidence(_read(DATA / "cen-ubl-example1.xml"))
    assert example1.vat_id == "NL8200.98.395.B.01"  # as written: the registry compacts it
    assert example1.ibans == ("NL57RABO0107307510", "NL03INGB0004489902")
    assert example1.to_json()["ibans"] == ["NL57RABO0107307510", "NL03INGB0004489902"]


def test_a_broken_total_is_a_check_on_the_total_with_the_rules_own_text() -> None:
    checks = [
        c.to_json() for c in rule_checks(validate((DATA / "invalid-br-co-15-ubl.xml").read_bytes()))
    ]
    by_rule = {c["rule"]: c for c in checks}
    assert set(by_rule) == {"BR-CO-15", "BR-CO-16"}
    assert by_rule["BR-CO-15"] == {
        "field": "total_amount",
        "code": "einvoice-rule",
        "rule": "BR-CO-15",
        "severity": "fatal",
        "message": by_rule["BR-CO-15"]["message"],
    }
    assert by_rule["BR-CO-15"]["message"].startswith("[BR-CO-15]-Invoice total amount with VAT")


def test_a_missing_seller_is_a_check_on_the_vendor() -> None:
    checks = [
        c.to_json() for c in rule_checks(validate((DATA / "invalid-br-06-cii.xml").read_bytes()))
    ]
    assert [(c["field"], c["rule"]) for c in checks] == [("vendor_name", "BR-06")]


def test_a_valid_file_has_no_check_and_warnings_are_never_checks() -> None:
    report = validate((DATA / "facturx-en16931.pdf").read_bytes())
    assert report.valid and rule_checks(report) == []
    warned = replace(report, findings=(Finding("BR-CO-09", "warning", "a warning"),))
    assert rule_checks(warned) == []


def test_a_rule_of_no_single_field_an_xsd_failure_and_a_skipped_rule_set_are_checks() -> None:
    report = Report(
        xsd="failed",
        xsd_error="Element 'x': not expected",
        rules=(),
        findings=(Finding("BR-16", "fatal", "[BR-16]-An Invoice shall have at least one line"),),
        skipped=("EN16931-UBL-validation.xslt: saxonche is not installed",),
    )
    checks = [c.to_json() for c in rule_checks(report)]
    assert [(c["field"], c["rule"]) for c in checks] == [
        ("*", "XSD"),
        ("*", "skipped"),
        ("*", "BR-16"),
    ]
    assert all(c["code"] == "einvoice-rule" and c["severity"] == "fatal" for c in checks)
    assert "not expected" in checks[0]["message"] and "saxonche" in checks[1]["message"]
