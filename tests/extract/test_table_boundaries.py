"""The edges of a table's checks (`docflow/extract/checks/table_checks.py`) and of their
tolerance as the rules file declares it (`docflow/extract/declarations/`): a sum or a balance
off by exactly the tolerance passes and a cent more does not; a tolerance below zero, not a
number or infinite is refused naming its line; a cell or field that is no number is left out
or skips the check. Each test names the boundary it guards (bench/README.md, "Mutation
testing")."""

from __future__ import annotations

import tomllib
from decimal import Decimal
from typing import Any

import pytest

from docflow.document import Check
from docflow.extract.checks.table_checks import advisory_marked, table_checks, unverified_tables
from docflow.extract.declarations.model import TypeDecl, parse_declarations
from docflow.extract.declarations.toml_lines import DeclarationError

RULES = """[fields.types.invoice.fields.net_amount]
kind = "amount"

[fields.types.invoice.fields.lines]
kind = "table"
checks = [{{ sum = "amount", equals = "net_amount"{sum_tolerance} }}]
columns = [
  {{ name = "description", kind = "text", required = true }},
  {{ name = "quantity", kind = "number" }},
  {{ name = "amount", kind = "amount", required = true }},
]

[fields.types.statement.fields.opening_balance]
kind = "amount"

[fields.types.statement.fields.closing_balance]
kind = "amount"

[fields.types.statement.fields.transactions]
kind = "table"
columns = [{{ name = "amount", kind = "amount", required = true }}]

[[fields.types.statement.fields.transactions.checks]]
balance = "amount"
opening = "opening_balance"
closing = "closing_balance"
tolerance = {tolerance}
"""


def declared(tolerance: str = "0.05", sum_tolerance: str = "") -> dict[str, TypeDecl]:
    text = RULES.format(tolerance=tolerance, sum_tolerance=sum_tolerance)
    return parse_declarations(tomllib.loads(text)["fields"]["types"], text)


def rows(*amounts: Any, column: str = "amount") -> list[dict[str, Any]]:
    return [{"description": f"line {i}", column: a} for i, a in enumerate(amounts)]


def invoice(net: Any, *amounts: Any) -> dict[str, dict[str, Any]]:
    return {"net_amount": {"value": net}, "lines": {"value": "rows", "rows": rows(*amounts)}}


def statement(opening: Any, closing: Any, *amounts: Any) -> dict[str, dict[str, Any]]:
    return {
        "opening_balance": {"value": opening},
        "closing_balance": {"value": closing},
        "transactions": {"value": "rows", "rows": rows(*amounts)},
    }


@pytest.mark.parametrize("bad", ["-0.01", "-1", "-0.001"])
def test_a_negative_tolerance_is_refused_naming_its_line(bad: str) -> None:
    negative = "a check's tolerance is a finite number, not negative"
    with pytest.raises(DeclarationError, match=rf"line 19: .*transactions: {negative}"):
        declared(bad)
    with pytest.raises(DeclarationError, match=rf"line 6: .*lines: {negative}"):
        declared(sum_tolerance=f", tolerance = {bad}")


@pytest.mark.parametrize("bad", ["nan", "inf", "+inf", "-inf", '"lots"'])
def test_a_tolerance_that_is_no_finite_number_is_refused_naming_its_line(bad: str) -> None:
    """`nan` raised a bare InvalidOperation (no line); `inf` made a check that passes every
    table."""
    number = r"a check's tolerance is a (finite )?number"
    with pytest.raises(DeclarationError, match=rf"line 19: .*transactions: {number}"):
        declared(bad)


def test_a_tolerance_of_zero_or_more_is_kept_as_declared() -> None:
    assert declared("0")["statement"].tables[0].checks[0].tolerance == Decimal("0")
    assert declared("0.01")["statement"].tables[0].checks[0].tolerance == Decimal("0.01")
    assert declared('"0.25"')["statement"].tables[0].checks[0].tolerance == Decimal("0.25")
    # None declared: no slack at all.
    assert declared()["invoice"].tables[0].checks[0].tolerance == Decimal("0")


def test_a_sum_off_by_exactly_the_tolerance_passes_and_a_cent_more_does_not() -> None:
    spec = declared(sum_tolerance=", tolerance = 0.05")["invoice"]
    assert table_checks(invoice("100.00", "60.00", "40.00"), spec) == []
    assert table_checks(invoice("100.05", "60.00", "40.00"), spec) == []
    assert table_checks(invoice("99.95", "60.00", "40.00"), spec) == []
    for net in ("100.06", "99.94"):
        assert table_checks(invoice(net, "60.00", "40.00"), spec) == [
            Check(
                "table-sum", f"lines: amount adds up to 100.00 but net_amount reads {net}", "lines"
            )
        ], net
    # With no tolerance declared, a cent is a difference.
    exact = declared()["invoice"]
    assert table_checks(invoice("100.00", "60.00", "40.00"), exact) == []
    assert [r.code for r in table_checks(invoice("100.01", "60.00", "40.00"), exact)] == [
        "table-sum"
    ]


def test_a_balance_off_by_exactly_the_tolerance_passes_and_a_cent_more_does_not() -> None:
    spec = declared("0.05")["statement"]
    assert table_checks(statement("1000.00", "1250.00", "300.00", "-50.00"), spec) == []
    assert table_checks(statement("1000.00", "1250.05", "300.00", "-50.00"), spec) == []
    assert table_checks(statement("1000.00", "1249.95", "300.00", "-50.00"), spec) == []
    assert table_checks(statement("1000.00", "1250.06", "300.00", "-50.00"), spec) == [
        Check(
            "table-balance",
            "opening_balance 1,000.00 plus transactions' amount 250.00 is "
            "1,250.00 but closing_balance reads 1,250.06",
            "transactions",
        )
    ]
    # The opening balance counts: without it the sum would be 250.00.
    assert [
        r.code for r in table_checks(statement("0.00", "1250.00", "300.00", "-50.00"), spec)
    ] == ["table-balance"]


def test_a_cell_that_is_no_number_is_left_out_of_the_sum() -> None:
    spec = declared()["invoice"]
    assert table_checks(invoice("100.00", "60.00", "n/a", None, "40.00"), spec) == []
    fields = invoice("100.00", "60.00", "40.00")
    fields["lines"]["rows"].append({"description": "a note, no amount"})
    assert table_checks(fields, spec) == []


@pytest.mark.parametrize("odd", ["nan", "NaN", "sNaN", "inf", "-Infinity"])
def test_a_cell_or_field_that_is_no_finite_number_is_no_number(odd: str) -> None:
    """What `Decimal` reads but no page prints (`NaN`, `Infinity`: a model's answer, a bad
    cell) is no number: a cell left out of the sum (which then disagrees with the field and
    holds the document), a field that skips the check and leaves an advisory table
    unverified. Neither stops the extract step with `InvalidOperation` (a NaN cannot be
    compared) nor shows `Infinity` as a total."""
    spec = declared()["invoice"]
    assert table_checks(invoice("100.00", "60.00", odd, "40.00"), spec) == []
    (held,) = table_checks(invoice("100.00", "60.00", odd), spec)
    assert held.message == "lines: amount adds up to 60.00 but net_amount reads 100.00"
    assert table_checks(invoice(odd, "60.00", "40.00"), spec) == []
    assert unverified_tables(invoice(odd, "60.00", "40.00"), advisory(), []) == ["lines"]
    balance = statement("100.00", odd, "50.00", "-25.00")
    assert table_checks(balance, declared()["statement"]) == []


def test_a_check_whose_field_or_table_was_not_read_is_skipped() -> None:
    spec = declared()["invoice"]
    # The field: missing, empty or no number: `missing` already sends it to a person.
    for net in (None, "", "n/a"):
        fields = invoice("100.00", "1.00")
        fields["net_amount"] = {"value": net}
        assert table_checks(fields, spec) == [], net
    del fields["net_amount"]
    assert table_checks(fields, spec) == []
    # The table: not read at all, or read with no rows list.
    assert table_checks({"net_amount": {"value": "5.00"}}, spec) == []
    assert table_checks({"net_amount": {"value": "5.00"}, "lines": {"value": "x"}}, spec) == []
    # An empty table is read: its sum is zero.
    empty = {"net_amount": {"value": "5.00"}, "lines": {"value": "0 rows", "rows": []}}
    assert [r.code for r in table_checks(empty, spec)] == ["table-sum"]
    assert table_checks({**empty, "net_amount": {"value": "0.00"}}, spec) == []
    # A balance with one of its two fields not read.
    balance = declared()["statement"]
    half = statement("1000.00", "1250.00", "250.00")
    del half["closing_balance"]
    assert table_checks(half, balance) == []
    half = statement("1000.00", "1250.00", "250.00")
    half["opening_balance"] = {"value": None}
    assert table_checks(half, balance) == []


def test_a_number_column_is_shown_plain_and_an_amount_with_its_cents() -> None:
    text = RULES.format(tolerance="0", sum_tolerance="").replace(
        '{ sum = "amount", equals = "net_amount" }', '{ sum = "quantity", equals = "count" }'
    )
    text = text.replace(
        "[fields.types.invoice.fields.lines]",
        '[fields.types.invoice.fields.count]\nkind = "number"\n\n'
        "[fields.types.invoice.fields.lines]",
    )
    spec = parse_declarations(tomllib.loads(text)["fields"]["types"], text)["invoice"]
    fields = {
        "count": {"value": "12.50"},
        "lines": {"value": "rows", "rows": rows("10", "2.25", column="quantity")},
    }
    assert table_checks(fields, spec) == [
        Check("table-sum", "lines: quantity adds up to 12.25 but count reads 12.5", "lines")
    ]
    fields["count"] = {"value": "1200"}
    assert table_checks(fields, spec)[0].message == (
        "lines: quantity adds up to 12.25 but count reads 1200"
    )
    # Below one: its leading zero is kept.
    fields = {
        "count": {"value": "1"},
        "lines": {"value": "rows", "rows": rows("0.25", "0.25", column="quantity")},
    }
    assert table_checks(fields, spec)[0].message == (
        "lines: quantity adds up to 0.5 but count reads 1"
    )


ADVISORY = RULES.format(tolerance="0", sum_tolerance="").replace(
    'kind = "table"\nchecks', 'kind = "table"\nadvisory = true\nchecks'
)


def advisory() -> TypeDecl:
    return parse_declarations(tomllib.loads(ADVISORY)["fields"]["types"], ADVISORY)["invoice"]


def test_only_reasons_about_an_advisory_table_are_marked_advisory() -> None:
    reasons = [Check("table-sum", field="lines"), Check("low-confidence", field="net_amount")]
    assert advisory_marked(reasons, advisory()) == [
        Check("table-sum", field="lines", advisory=True),
        Check("low-confidence", field="net_amount"),
    ]
    assert advisory_marked(reasons, declared()["invoice"]) == reasons


def test_an_advisory_table_is_unverified_unless_every_check_ran_and_passed() -> None:
    spec = advisory()
    checked = invoice("100.00", "60.00", "40.00")
    assert unverified_tables(checked, spec, []) == []
    assert unverified_tables(checked, spec, [Check("table-sum", field="lines")]) == ["lines"]
    # A reason about another field leaves the table verified.
    assert unverified_tables(checked, spec, [Check("x", field="net_amount")]) == []
    unread = {**checked, "net_amount": {"value": None}}
    assert unverified_tables(unread, spec, []) == ["lines"]
    # A table not read is not marked; a table that is not advisory never is.
    assert unverified_tables({"net_amount": {"value": "1"}}, spec, []) == []
    assert unverified_tables(unread, declared()["invoice"], []) == []


def test_a_table_passed_over_does_not_end_the_look_at_the_tables_after_it() -> None:
    """`unverified_tables` goes on past a table it passes over (not read, or not advisory):
    a later advisory table read with no checks is still marked."""
    text = ADVISORY + EXTRAS
    spec = parse_declarations(tomllib.loads(text)["fields"]["types"], text)["invoice"]
    assert [t.name for t in spec.tables] == ["lines", "extras"]
    extras = {"value": "rows", "rows": rows("1.00")}
    assert unverified_tables({"extras": extras}, spec, []) == ["extras"]
    plain = RULES.format(tolerance="0", sum_tolerance="") + EXTRAS
    spec = parse_declarations(tomllib.loads(plain)["fields"]["types"], plain)["invoice"]
    read = {**invoice("100.00", "60.00", "40.00"), "extras": extras}
    assert unverified_tables(read, spec, []) == ["extras"]


def test_a_table_not_read_does_not_end_the_checks_of_the_tables_after_it() -> None:
    text = RULES.format(tolerance="0", sum_tolerance="") + EXTRAS_SUMMED
    spec = parse_declarations(tomllib.loads(text)["fields"]["types"], text)["invoice"]
    fields = {"net_amount": {"value": "5.00"}, "extras": {"value": "rows", "rows": rows("1.00")}}
    assert [r.field for r in table_checks(fields, spec)] == ["extras"]


EXTRAS_SUMMED = """
[fields.types.invoice.fields.extras]
kind = "table"
checks = [{ sum = "amount", equals = "net_amount" }]
columns = [{ name = "amount", kind = "amount", required = true }]
"""

STOCK = """[fields.types.stock.fields.opening_count]
kind = "number"

[fields.types.stock.fields.closing_count]
kind = "number"

[fields.types.stock.fields.expected]
kind = "number"

[fields.types.stock.fields.moves]
kind = "table"
columns = [{ name = "quantity", kind = "number", required = true }]
checks = [
  { balance = "quantity", opening = "opening_count", closing = "closing_count" },
  { sum = "quantity", equals = "expected" },
]
"""


def test_a_count_is_shown_as_a_count_in_every_part_of_the_message() -> None:
    """Each number in a balance's message in its own kind (`_shown(value, kind)`): counts
    plain (`10`), not as amounts (`10.00`); an empty table's sum is the number 0."""
    spec = parse_declarations(tomllib.loads(STOCK)["fields"]["types"], STOCK)["stock"]
    fields = {
        "opening_count": {"value": "10"},
        "closing_count": {"value": "12.5"},
        "expected": {"value": "7"},
        "moves": {"value": "rows", "rows": rows("4", "1", column="quantity")},
    }
    assert [r.message for r in table_checks(fields, spec)] == [
        "opening_count 10 plus moves' quantity 5 is 15 but closing_count reads 12.5",
        "moves: quantity adds up to 5 but expected reads 7",
    ]
    empty = {**fields, "moves": {"value": "0 rows", "rows": []}}
    assert [r.message for r in table_checks(empty, spec)] == [
        "opening_count 10 plus moves' quantity 0 is 10 but closing_count reads 12.5",
        "moves: quantity adds up to 0 but expected reads 7",
    ]


EXTRAS = """
[fields.types.invoice.fields.extras]
kind = "table"
advisory = true
columns = [{ name = "amount", kind = "amount", required = true }]
"""


def test_an_advisory_table_with_no_checks_is_unverified() -> None:
    text = ADVISORY.replace('checks = [{ sum = "amount", equals = "net_amount" }]\n', "")
    spec = parse_declarations(tomllib.loads(text)["fields"]["types"], text)["invoice"]
    assert unverified_tables(invoice("100.00", "60.00", "40.00"), spec, []) == ["lines"]
