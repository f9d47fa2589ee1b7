"""The edges of the duplicate keys (`docflow/suppliers/duplicate_keys.py`) and of the claims
table's decisions (`docflow/suppliers/duplicates.py`): a total's third decimal rounds as the
page reader and a reviewer's correction round it, a key is made only from values read, the
window is a week either side and not a day more, and each holder is answered as the module
says. Each test names the boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

import tomllib
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from docflow.document import DocumentSummary
from docflow.extract.declarations.model import parse_declarations
from docflow.extract.declarations.parse import format_amount
from docflow.suppliers.duplicate_keys import (
    Facts,
    amount_key,
    declared_key,
    suppliers_of,
    value_key,
)
from docflow.suppliers.duplicates import duplicate_lines


def summary_of(raw: dict[str, Any]) -> DocumentSummary:
    """The run's typed record of a summary written as its JSON."""
    return DocumentSummary.from_json({"docType": "invoice", **raw})


AMOUNTS = st.decimals(
    min_value=Decimal("-1000000"), max_value=Decimal("1000000"), places=3, allow_nan=False
)


@given(AMOUNTS)
@example(Decimal("1100.005"))
@example(Decimal("1100.015"))
@example(Decimal("-0.125"))
def test_a_totals_third_decimal_rounds_as_the_page_reader_rounds_it(value: Decimal) -> None:
    """The rounding's edge: a total the reader wrote (`format_amount`, half to even) and the
    same total keyed from three decimals must be one key, or a copy printing `1100.005`
    keys apart from the bill read as `1100.00`."""
    assert amount_key(str(value)) == format_amount(value)


def test_half_a_cent_rounds_to_the_even_cent() -> None:
    assert amount_key("1100.005") == "1100.00"
    assert amount_key("1100.015") == "1100.02"
    assert amount_key("1.100,005") == "1100.00"


@pytest.mark.parametrize(
    ("kind", "raw", "key"),
    [
        ("amount", "1.100,00", "1100.00"),
        ("id", "inv-0042", "INV42"),
        ("party", "ACME Supplies Ltd", "acme supplies"),
        ("date", "2026-03-04", "2026-03-04"),
        ("date", "4 March", ""),
        ("currency", " eur ", "EUR"),
        ("number", " 12.50 ", "12.5"),
        ("number", "\u0664\u0662", "42"),  # Arabic-Indic digits
        ("number", "twelve", ""),
        ("text", "Café  Blau, Ltd.", "cafe blau ltd"),
    ],
)
def test_a_declared_fields_value_keys_in_its_kinds_normal_form(
    kind: str, raw: str, key: str
) -> None:
    assert value_key(kind, raw) == key


def test_a_declared_key_needs_every_value_its_type_names() -> None:
    decl = parse_declarations(tomllib.loads(RECEIPT)["fields"]["types"], RECEIPT)["receipt"]
    read = {
        "merchant": {"value": "Café Blau"},
        "date": {"value": "2026-03-04"},
        "total": {"value": "12,50"},
    }
    summary = summary_of({"fields": read})
    assert declared_key(decl, summary) == {
        "declared|receipt|cafe blau|2026-03-04|12.50": "declared"
    }
    for name in ("merchant", "date", "total"):
        fields = {k: v for k, v in read.items() if k != name}
        assert declared_key(decl, summary_of({"fields": fields})) == {}, name
    unreadable = summary_of({"fields": {**read, "date": {"value": "soon"}}})
    assert declared_key(decl, unreadable) == {}
    # A declared type's facts take its key's date, amount and party in their place.
    facts = Facts.of(summary, decl)
    assert (facts.date, facts.total, facts.vendor, facts.number) == (
        "2026-03-04",
        "12,50",
        "Café Blau",
        "",
    )
    assert Facts.of(summary) == Facts("", "", "", "", "")
    # A type that declares no key claims none.
    plain = parse_declarations(
        tomllib.loads(RECEIPT.replace('duplicate_key = ["merchant", "date", "total"]\n', ""))[
            "fields"
        ]["types"]
    )["receipt"]
    assert declared_key(plain, summary) == {}


RECEIPT = """[fields.types.receipt]
duplicate_key = ["merchant", "date", "total"]

[fields.types.receipt.fields.merchant]
kind = "party"

[fields.types.receipt.fields.date]
kind = "date"

[fields.types.receipt.fields.total]
kind = "amount"
"""


def test_a_value_read_as_zero_is_a_value_and_a_blank_is_none() -> None:
    """What a key is made of (`DocumentSummary.text`, `Field.text`): a zero read is a value,
    a blank or null is none, a field never read is none."""

    def text(raw: dict[str, Any]) -> str:
        return summary_of(raw).text("total")

    assert text({"fields": {"total": {"value": 0}}}) == "0"
    assert text({"fields": {"total": {"value": " 12 "}}}) == "12"
    assert text({"fields": {"total": {"value": ""}}}) == ""
    assert text({"fields": {"total": {"value": None}}}) == ""
    assert text({"fields": {"total": {}}}) == ""
    assert text({"fields": {}}) == ""
    assert text({"fields": None}) == ""
    assert text({}) == ""


def test_a_bills_keys_are_made_only_from_values_read() -> None:
    full = Facts("INV-1", "2026-03-04", "10.00", "EUR", "ACME")
    assert sorted(full.keys(["name:acme"]).values()) == ["amount", "bill", "number"]
    assert full.keys([]) == {"bill|INV1|10.00|EUR": "bill"}  # no supplier: the bill key
    undated = Facts("INV-1", "", "10.00", "EUR", "ACME")
    assert sorted(undated.keys(["name:acme"]).values()) == ["bill", "number"]
    assert undated.window(["name:acme"]) == {}
    unnumbered = Facts("", "2026-03-04", "10.00", "EUR", "ACME")
    assert sorted(unnumbered.keys(["name:acme"]).values()) == ["amount"]
    no_total = Facts("INV-1", "2026-03-04", "", "EUR", "ACME")
    assert sorted(no_total.keys(["name:acme"]).values()) == ["number"]
    assert no_total.window(["name:acme"]) == {}
    # A total that is no amount is none.
    assert Facts("INV-1", "2026-03-04", "n/a", "EUR", "ACME").keys([]) == {}
    assert full.to_json() == {
        "number": "INV-1",
        "date": "2026-03-04",
        "total": "10.00",
        "currency": "EUR",
        "vendor": "ACME",
    }


def test_an_amount_with_one_comma_is_thousands_only_with_three_digits_after_it() -> None:
    assert amount_key("1,100") == "1100.00"
    assert amount_key("1,10") == "1.10"
    assert amount_key("1,1") == "1.10"
    assert amount_key("1,100,000") == "1100000.00"
    assert amount_key("1.100.000,50") == "1100000.50"
    assert amount_key("1,100,000.50") == "1100000.50"
    assert amount_key("EUR 12") == "12.00"
    assert amount_key("") == "" and amount_key("n/a") == "" and amount_key("1.2.3") == ""


def test_only_a_certain_match_names_the_supplier_by_its_id() -> None:
    named = {"fields": {"vendor_name": {"value": "ACME Ltd"}}}
    certain = {**named, "supplier": {"supplierId": "acme", "certain": True}}
    assert suppliers_of(summary_of(certain)) == ["id:acme", "name:acme"]
    unsure = {**named, "supplier": {"supplierId": "acme", "certain": False}}
    assert suppliers_of(summary_of(unsure)) == ["name:acme"]
    assert suppliers_of(summary_of({**certain, "supplier": {"certain": True}})) == ["name:acme"]
    only_id = {"supplier": {"supplierId": "acme", "certain": True}}
    assert suppliers_of(summary_of(only_id)) == ["id:acme"]
    assert suppliers_of(summary_of({"fields": {"vendor_name": {"value": "Ltd"}}})) == []


def test_show_says_each_earlier_document_with_what_was_read_of_it() -> None:
    state = {
        "duplicateOf": [
            {
                "documentId": "d-1",
                "status": "finalized",
                "number": "INV-1",
                "date": "2026-03-04",
                "total": "10.00",
                "currency": "EUR",
                "by": ["number", "bill", "custom"],
            },
            {"documentId": "d-2", "total": "10.00", "by": []},
            {"documentId": "d-3", "currency": "EUR", "status": "pending-review"},
        ],
        "replaces": "not a mapping",
    }
    assert duplicate_lines(state) == [
        "duplicateOf d-1 (finalized, number INV-1, date 2026-03-04, total 10.00 EUR): the same "
        "supplier and number; number and total; custom",
        "d-2 (unknown, total 10.00)",
        "d-3 (pending-review, total EUR)",
    ]
    assert duplicate_lines({"replaces": {"version": "v1"}}) == []
    assert duplicate_lines({"replaces": None, "duplicateOf": None}) == []
