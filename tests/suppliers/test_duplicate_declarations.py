"""A declared type's `duplicate_key` (docs/fields.md): what loads, what is refused naming its
line, the key it makes from a document's values in their kinds' normal forms, and what the
shipped rules declare."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from docflow.document import DocumentSummary
from docflow.extract.declarations.model import parse_declarations
from docflow.extract.declarations.toml_lines import DeclarationError
from docflow.rules.model import load_rules
from docflow.suppliers.duplicate_keys import declared_key

RECEIPT = """[fields]
stage = "fields"

[fields.types.receipt]
duplicate_key = ["merchant", "date", "total"]

[fields.types.receipt.fields.merchant]
kind = "party"

[fields.types.receipt.fields.date]
kind = "date"

[fields.types.receipt.fields.total]
kind = "amount"

[fields.types.receipt.fields.lines]
kind = "table"
columns = [{ name = "amount", kind = "amount" }]

[fields.types.refund]
like = "receipt"

[fields.types.voucher]
like = "receipt"
duplicate_key = ["merchant", "total"]
"""


def load(text: str) -> dict[str, Any]:
    return parse_declarations(tomllib.loads(text)["fields"]["types"], text)


def test_a_type_names_its_duplicate_key_and_a_like_type_takes_it_or_names_its_own() -> None:
    types = load(RECEIPT)
    assert types["receipt"].duplicate_key == ("merchant", "date", "total")
    assert types["refund"].duplicate_key == ("merchant", "date", "total")
    assert types["voucher"].duplicate_key == ("merchant", "total")


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ('["merchant", "dated"]', "duplicate_key names 'dated': no field of this type"),
        ('["merchant", "lines"]', "'lines': a table, not a value"),
        ('["total"]', "at least two fields"),
        ('["total", "total"]', "each field once"),
        ('"total"', "a list of the type's field names"),
    ],
)
def test_a_bad_duplicate_key_is_refused_naming_its_line(key: str, message: str) -> None:
    text = RECEIPT.replace('["merchant", "date", "total"]', key)
    with pytest.raises(DeclarationError) as refused:
        load(text)
    assert str(refused.value).startswith("line 5: fields.types.receipt: "), str(refused.value)
    assert message in str(refused.value)


def test_a_like_types_own_bad_key_is_refused_naming_its_line() -> None:
    text = RECEIPT.replace('["merchant", "total"]', '["merchant", "tip"]')
    with pytest.raises(DeclarationError, match=r"^line 25: fields.types.voucher: .*'tip'"):
        load(text)


def fields(**values: str) -> DocumentSummary:
    read = {k: {"value": v} for k, v in values.items()}
    return DocumentSummary.from_json({"docType": "receipt", "fields": read})


def test_the_declared_key_is_made_of_normal_forms_and_only_of_values_read() -> None:
    receipt = load(RECEIPT)["receipt"]
    one = declared_key(receipt, fields(merchant="Café Nord GmbH", date="2026-03-04", total="54.5"))
    other = declared_key(receipt, fields(merchant="CAFE NORD", date="2026-03-04", total="54,50"))
    assert one == other == {"declared|receipt|cafe nord|2026-03-04|54.50": "declared"}
    # A value not read makes no key: fewer values would call different purchases one.
    assert declared_key(receipt, fields(merchant="Café Nord", total="54.50")) == {}
    assert declared_key(load(RECEIPT.replace("duplicate_key", "#"))["receipt"], fields()) == {}


def test_the_shipped_rules_key_receipts_and_claims_but_not_statements() -> None:
    types = load_rules().fields.types
    assert types["receipt"].duplicate_key == ("merchant", "date", "total")
    assert types["claim-form"].duplicate_key == ("claimant", "claim_date", "amount_claimed")
    # A statement asks nobody to pay; contracts and orders are paid through invoices.
    for name in ("bank-statement", "contract", "purchase-order", "invoice"):
        assert types[name].duplicate_key == (), name
