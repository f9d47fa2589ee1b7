"""The rules file's field declarations: what loads, and what is refused with its line."""

from __future__ import annotations

import tomllib

import pytest

from docflow.extract.declarations.model import parse_declarations
from docflow.extract.declarations.toml_lines import DeclarationError

RECEIPT = """[fields]
stage = "fields"

[fields.types.receipt.fields.total_amount]
kind = "amount"
required = true

[fields.types.receipt.fields.lines]
kind = "table"
columns = [
  { name = "description", kind = "text" },
  { name = "amount", kind = "amount" },
]
checks = [{ sum = "amount", equals = "total_amount" }]

[fields.types.refund]
like = "receipt"
"""


def load(text: str):
    return parse_declarations(tomllib.loads(text)["fields"]["types"], text)


def test_a_type_declares_fields_and_tables_and_another_takes_them_whole() -> None:
    types = load(RECEIPT)
    assert types["receipt"].names == ("total_amount", "lines")
    assert types["receipt"].required == ("total_amount",)
    (lines,) = types["receipt"].tables
    assert [c.name for c in lines.columns] == ["description", "amount"]
    assert lines.checks[0].kind == "sum" and lines.checks[0].fields() == ("total_amount",)
    assert types["refund"].fields == types["receipt"].fields


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (
            ('kind = "amount"\nrequired', 'kind = "amout"\nrequired'),
            4,
            "kind 'amout' is not one of",
        ),
        (('equals = "total_amount"', 'equals = "totl"'), 14, "check names 'totl'"),
        (('sum = "amount"', 'sum = "description"'), 14, "no amount or number column"),
        (("columns = [", "colums = ["), 8, "unknown key(s) ['colums']"),
        (('like = "receipt"', 'like = "reciept"'), 16, "no such type"),
        (
            ('{ name = "amount", kind = "amount" }', '{ name = "description", kind = "amount" }'),
            12,
            "twice",
        ),
    ],
)
def test_a_bad_declaration_is_refused_naming_its_line(
    change: tuple[str, str], line: int, message: str
) -> None:
    text = RECEIPT.replace(*change)
    assert text != RECEIPT
    with pytest.raises(DeclarationError) as refused:
        load(text)
    assert str(refused.value).startswith(f"line {line}: ") and message in str(refused.value)


def test_one_name_means_one_kind_across_types() -> None:
    text = RECEIPT + '\n[fields.types.statement.fields.total_amount]\nkind = "date"\n'
    with pytest.raises(DeclarationError, match=r"^line 19: .*one name, one kind"):
        load(text)
