"""More edges of the duplicate keys (`docflow/suppliers/duplicate_keys.py`): an amount whose
separators interleave is no amount, commas that group thousands before a decimal comma, the
facts a declared type's key takes in an invoice's place (its id as the number) and an
invoice's own vendor, and the window's days in their order. Each test names the boundary it
guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docflow.document import DocumentSummary
from docflow.extract.declarations.model import parse_declarations
from docflow.suppliers.duplicate_keys import Facts, amount_key


def summary_of(raw: dict[str, Any]) -> DocumentSummary:
    return DocumentSummary.from_json({"docType": "invoice", **raw})


@pytest.mark.parametrize(
    "printed",
    [
        "1,234.5,6",  # a comma after the last dot, another before it
        "1.234,56.7",  # a dot after the last comma, another before it
        "1,2.3,4.5",
    ],
)
def test_an_amount_whose_separators_interleave_is_no_amount(printed: str) -> None:
    assert amount_key(printed) == ""


@given(st.integers(0, 10**9), st.integers(0, 99))
def test_commas_before_a_decimal_comma_group_thousands(whole: int, cents: int) -> None:
    # `1,234,56`: the last comma is the decimal one (two digits after it), the others group.
    assert amount_key(f"{whole:,},{cents:02d}") == f"{whole}.{cents:02d}"
    assert amount_key(f"{whole:,},{cents % 10}") == f"{whole}.{cents % 10}0"


ORDER = """[fields.types.order]
duplicate_key = ["ref", "supplier"]

[fields.types.order.fields.ref]
kind = "id"

[fields.types.order.fields.supplier]
kind = "party"
"""


def test_a_declared_types_id_is_its_number_and_its_party_its_vendor() -> None:
    decl = parse_declarations(tomllib.loads(ORDER)["fields"]["types"], ORDER)["order"]
    summary = summary_of({"fields": {"ref": {"value": "PO-0042"}, "supplier": {"value": "ACME"}}})
    facts = Facts.of(summary, decl)
    assert (facts.number, facts.vendor) == ("PO-0042", "ACME")


def test_an_invoices_own_vendor_and_number_are_its_facts() -> None:
    summary = summary_of(
        {"fields": {"vendor_name": {"value": "Blauwal GmbH"}, "invoice_number": {"value": "7"}}}
    )
    facts = Facts.of(summary)
    assert (facts.vendor, facts.number) == ("Blauwal GmbH", "7")
    decl = parse_declarations(tomllib.loads(ORDER)["fields"]["types"], ORDER)["order"]
    assert (Facts.of(summary, decl).vendor, Facts.of(summary, decl).number) == ("Blauwal GmbH", "7")


def test_the_window_reads_its_days_from_the_earliest_to_the_latest() -> None:
    facts = Facts("INV-1", "2026-03-10", "10.00", "EUR", "ACME")
    days = [key.split("|")[2] for key in facts.window(["name:acme"])]
    assert days == [f"2026-03-{d:02d}" for d in range(3, 18) if d != 10]
