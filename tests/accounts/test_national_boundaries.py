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
    page = read_page(text_lines("Sort code: 60-16-13\nBank account: 31926819"))
    assert [(f.account.kind, f.account.value) for f in page.found] == [(UK, "60161331926819")]


def test_a_pair_on_one_line_covers_only_itself() -> None:
    """A label's value after a whole UK account on its line is read."""
    text = "Sort code: 60-16-13 Account number: 31926819 IBAN: 1234 5678 9012 34"
    page = read_page(text_lines(text))
    assert [(f.account.kind, f.account.value) for f in page.found] == [
        (UK, "60161331926819"),
        (OTHER, "12345678901234"),
    ]


def places(text: str | list[list[Segment]]) -> list[tuple[str, str, bool, tuple[int, ...]]]:
    lines = text_lines(text) if isinstance(text, str) else text
    return [
        (a.kind, a.value, a.valid, (p.line, p.start, p.end_line, p.end))
        for a, p in national_accounts(lines)
    ]


def test_a_checked_new_zealand_account_after_its_label_is_an_account() -> None:
    assert accounts("Account number: 01-0902-0068389-00") == [
        (OTHER, "010902006838900", True, None)
    ]
    # The account number of a US pair is the pair's, not a New Zealand account too.
    assert [a[0] for a in accounts("Routing: 021000021 Account: 01-0902-0068389-00")] == ["us"]


def test_a_sort_code_with_an_account_number_no_uk_one_is_half_an_account_where_it_stands() -> None:
    assert places("Sort code: 60-16-13 Account number: 9876543210") == [
        (UK, "601613", False, (0, 11, 0, 19))
    ]


def test_parts_three_lines_apart_do_not_pair() -> None:
    assert places("Sort code: 60-16-13\n\n\nAccount number: 31926819") == [
        (UK, "601613", False, (0, 11, 0, 19))
    ]


def test_a_part_pairs_with_the_partner_fewest_lines_then_fewest_characters_away() -> None:
    far = " " * 40 + "Account number: 11111111"
    assert places(f"{far}\nSort code: 60-16-13\nAccount number: 31926819")[0][:2] == (
        UK,
        "60161331926819",
    )
    one_line = (
        "Account number: 11111111, Konto bei der Bank in London  "
        "Sort code: 60-16-13  Account number: 31926819"
    )
    assert places(one_line)[0][:2] == (UK, "60161331926819")


def test_a_labels_value_in_the_next_cell_after_words_in_its_own() -> None:
    got = places(
        [
            [
                Segment("Sort code (GBP)", 0.0, 0.3),
                Segment("60-16-13", 0.4, 0.6),
                Segment("(London)", 0.7, 0.9),
            ]
        ]
    )
    assert got == [(UK, "601613", False, (0, 16, 0, 24))]


def test_a_value_two_labels_point_at_is_read_once() -> None:
    lines = [
        [Segment("Sort code", 0.5, 0.7)],
        [Segment("Sort code", 0.0, 0.3), Segment("60-16-13", 0.5, 0.7)],
    ]
    assert places(lines) == [(UK, "601613", False, (1, 10, 1, 18))]


def test_a_pair_over_two_lines_covers_its_second_line_from_its_account_number_on() -> None:
    """A label's value before the account number on its line is an account of its own."""
    page = read_page(
        text_lines("Sort code: 60-16-13\nIBAN: 1234 5678 9012 34 / Account number: 31926819")
    )
    assert [(f.account.kind, f.account.value) for f in page.found] == [
        (UK, "60161331926819"),
        (OTHER, "12345678901234"),
    ]


def test_a_labels_value_in_the_next_cell_when_the_label_is_in_the_last_cell_but_one() -> None:
    got = places(
        [
            [
                Segment("Zahlung", 0.0, 0.1),
                Segment("Sort code (GBP)", 0.15, 0.4),
                Segment("60-16-13", 0.45, 0.6),
            ]
        ]
    )
    assert got == [(UK, "601613", False, (0, 24, 0, 32))]
