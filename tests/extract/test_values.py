"""Every declared kind's normal form, a table's rows, the model's schema and corrections by the
declaration (`values.py`, `schema.py`, `corrections.py`)."""

from __future__ import annotations

import tomllib

import pytest

from docflow.extract.checks.corrections import validate_corrections
from docflow.extract.declarations.model import parse_declarations
from docflow.extract.declarations.values import normalize, normalize_rows
from docflow.extract.engines.schema import field_schema

RULES = """
[fields.types.claim-form.fields.claim_date]
kind = "date"
description = "Date the claim was filed."
[fields.types.claim-form.fields.cover]
kind = "enum"
values = ["Comprehensive", "Third party"]
[fields.types.claim-form.fields.police_report]
kind = "checkbox"
[fields.types.claim-form.fields.share]
kind = "percent"
[fields.types.claim-form.fields.policy_number]
kind = "id"
pattern = 'P-\\d{6}'
[fields.types.claim-form.fields.items]
kind = "table"
columns = [
  { name = "item", kind = "text", required = true },
  { name = "cost", kind = "amount" },
]
"""


def _decl():
    return parse_declarations(tomllib.loads(RULES)["fields"]["types"], RULES)["claim-form"]


@pytest.mark.parametrize(
    ("kind", "typed", "normal"),
    [
        ("date", "4 March 2026", "2026-03-04"),
        ("amount", "€ 1.234,50", "1234.50"),
        ("number", "12,50", "12.5"),
        ("number", "3", "3"),
        ("number", "12.5", "12.5"),  # a number's normal form is one too
        ("number", "35.10", "35.1"),
        ("percent", "19 %", "19"),
        ("currency", "eur", "EUR"),
        ("checkbox", "✓", "true"),
        ("checkbox", "", "false"),
        ("party", "Acme GmbH", "Acme GmbH"),
    ],
)
def test_each_kind_has_one_normal_form(kind: str, typed: str, normal: str) -> None:
    assert normalize(kind, typed) == (normal, None)


def test_refusals_say_what_to_type() -> None:
    assert normalize("enum", "Fire", ("Comprehensive", "Third party"))[1] == (
        "one of Comprehensive, Third party"
    )
    assert normalize("enum", "third PARTY", ("Comprehensive", "Third party")) == (
        "Third party",
        None,
    )
    assert normalize("id", "X-1", pattern=r"P-\d{6}")[1] is not None
    assert normalize("percent", "2000")[1] == "enter a percentage, for example 19"
    assert normalize("checkbox", "maybe")[1] is not None


def test_rows_are_normalized_cell_by_cell() -> None:
    columns = _decl().get("items").columns
    rows, error = normalize_rows(
        columns, [{"item": "Windscreen", "cost": "€ 420,00"}, {"item": " ", "cost": ""}]
    )
    assert error is None
    assert rows == [{"item": "Windscreen", "cost": "420.00"}]  # the blank row is dropped
    assert normalize_rows(columns, [{"cost": "12.00"}]) == (None, "row 1: item is required")
    assert normalize_rows(columns, [{"item": "x", "cost": "lots"}])[1] == (
        "row 1, cost: enter an amount, for example 1234.50"
    )
    assert normalize_rows(columns, [{"item": "x", "colour": "red"}])[1] == (
        "row 1: no column 'colour'"
    )


def test_corrections_follow_the_declaration() -> None:
    decl = _decl()
    fields = {"items": {"value": "1 rows", "rows": [{"item": "Door", "cost": "10.00"}]}}
    corrections, errors = validate_corrections(
        fields,
        {
            "cover": "comprehensive",
            "police_report": "true",
            "claim_date": "2026-02-01",
            "items": [{"item": "Door", "cost": "10.00"}, {"item": "Mirror", "cost": "35"}],
            "invoice_number": "INV-1",  # not a field of this type
        },
        decl,
    )
    assert corrections == {
        "cover": "Comprehensive",
        "police_report": "true",
        "claim_date": "2026-02-01",
        "items": [{"item": "Door", "cost": "10.00"}, {"item": "Mirror", "cost": "35.00"}],
    }
    assert errors == {"invoice_number": "not a field this document has"}
    unchanged, _ = validate_corrections(fields, {"items": fields["items"]["rows"]}, decl)
    assert unchanged == {}


def test_the_models_schema_is_the_declaration() -> None:
    schema = field_schema(_decl())
    props = schema["properties"]
    assert props["claim_date"]["description"] == "Date the claim was filed."
    assert props["cover"]["properties"]["value"] == {
        "type": "string",
        "enum": ["Comprehensive", "Third party"],
    }
    row = props["items"]["properties"]["rows"]["items"]
    assert set(row["properties"]) == {"item", "cost"}
    assert row["required"] == ["item"]
    assert props["items"]["required"] == ["rows", "page", "confidence"]
