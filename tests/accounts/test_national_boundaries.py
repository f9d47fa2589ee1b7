"""The edges of labelled national accounts (docflow/accounts/national.py): parts two lines
apart and not three, two separators inside a value and not three, a value that runs on, what a
failing CCC, a RIB and a NIB are, where a label's value is (the next cell, the cell under it),
and a pair over two lines covering its account number. Each test names the boundary it guards
(bench/README.md, "Mutation testing")."""

from __future__ import annotations

from docflow.accounts import OTHER, UK, read_page
from docflow.accounts.lines import Segment, text_lines
from docflow.accounts.national import national_accounts

Cell = tuple[str, float, float]


def accounts(text: str) -> list[tuple[str, str, bool, str | None]]:
    return [(a.kind, a.value, a.valid, a.iban) for a, _p in national_accounts(text_lines(text))]


def in_cells(*rows: list[Cell]) -> list[tuple[str, str, bool]]:
    lines = [[Segment(text, x0, x1) for text, x0, x1 in row] for row in rows]
    return [(a.kind, a.value, a.valid) for a, _p in national_accounts(lines)]


UK_WHOLE = (UK, "60161331926819", True)


def test_two_parts_pair_two_lines_apart() -> None:
    assert accounts("Sort code: 60-16-13\n\nAccount number: 31926819") == [(*UK_WHOLE, None)]


def test_a_value_has_two_separators_between_digits_at_most() -> None:
    assert accounts("Sort code: 60. 16. 13  Account number: 31926819") == [(*UK_WHOLE, None)]
    assert accounts("Sort code: 60 - 16 - 13") == []
    assert accounts("Sort code: -60-16-13") == []


def test_a_value_that_runs_on_is_another_longer_number() -> None:
    assert accounts("Sort code: 6016137") == []


def test_a_failing_ccc_is_the_iban_of_nothing() -> None:
    assert accounts("CCC: 2100 0418 45 0200051333") == [
        (OTHER, "21000418450200051333", False, None)
    ]


def test_a_rib_and_a_nib_are_other_accounts_with_their_ibans() -> None:
    assert accounts("RIB : 30006 00001 12345678901 89") == [
        (OTHER, "30006000011234567890189", True, "FR7630006000011234567890189")
    ]
    assert accounts("NIB: 0002 0123 1234 5678 9015 4") == [
        (OTHER, "000201231234567890154", True, "PT50000201231234567890154")
    ]


def test_a_labels_value_in_the_next_cell_is_read() -> None:
    """The label in the last cell but one, or with two after it (the last is words)."""
    assert in_cells(
        [("Zahlung", 0.0, 0.1), ("Sort code", 0.15, 0.3), ("60-16-13", 0.35, 0.5)],
    ) == [(UK, "601613", False)]
    assert in_cells(
        [("Sort code", 0.0, 0.2), ("60-16-13", 0.3, 0.45), ("(London)", 0.6, 0.9)],
    ) == [(UK, "601613", False)]


def test_a_labels_value_under_it_is_in_its_column_on_the_next_line() -> None:
    """Overlapping extents however far the left edges are apart; not a cell that only touches
    it; left edges within 0.02 where the extents do not overlap, and not exactly 0.02 apart;
    the line under it, not the line over it."""
    label = ("Sort code", 0.5, 0.7)
    assert in_cells([label], [("60-16-13", 0.55, 0.8)]) == [(UK, "601613", False)]
    assert in_cells(
        [("Konto", 0.05, 0.3), label], [("20-00-00", 0.3, 0.5), ("60-16-13", 0.5, 0.8)]
    ) == [(UK, "601613", False)]
    assert in_cells(
        [("Konto", 0.05, 0.3), ("Sort code", 0.5, 0.5)],
        [("20-00-00", 0.05, 0.3), ("60-16-13", 0.51, 0.8)],
    ) == [(UK, "601613", False)]
    assert in_cells([("Sort code", 0.04, 0.04)], [("60-16-13", 0.02, 0.03)]) == []
    assert in_cells([("Seite 1", 0.0, 0.2)], [label], [("60-16-13", 0.5, 0.7)]) == [
        (UK, "601613", False)
    ]


def test_a_pair_over_two_lines_covers_its_account_number() -> None:
    """The account number's label is an account's label too: its value is the pair's, read
    once, not an unrecognized account of its own."""
    page = read_page(text_lines("Sort code: 60-16-13\nBank account number: 31926819"))
    assert [(f.account.kind, f.account.value) for f in page.found] == [(UK, "60161331926819")]


def test_a_pair_on_one_line_covers_only_itself() -> None:
    """A label's value after a whole UK account on its line is read."""
    text = "Sort code: 60-16-13 Account number: 31926819 IBAN: 1234 5678 9012 34"
    page = read_page(text_lines(text))
    assert [(f.account.kind, f.account.value) for f in page.found] == [
        (UK, "60161331926819"),
        (OTHER, "12345678901234"),
    ]
