"""The edges of one page's reading (docflow/accounts/reader.py): where an account's label puts
its value (after it, in the next cell, in the cell under it, and no other column), how far a
value after a label runs, what a label's value that a recognized account explains is, and
which accounts stand in a column beside an account broken over two lines. Each test names the
boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from docflow.accounts import IBAN, OTHER, UK, read_page
from docflow.accounts.labels import PAY_TO
from docflow.accounts.lines import Segment, text_lines

GB = "GB82WEST12345698765432"
Cell = tuple[str, float, float]


def cells(*rows: list[Cell]) -> list[list[Segment]]:
    return [[Segment(text, x0, x1) for text, x0, x1 in row] for row in rows]


def found(lines: list[list[Segment]]) -> list[tuple[str, str, bool]]:
    return [(f.account.kind, f.account.value, f.account.valid) for f in read_page(lines).found]


def places(lines: list[list[Segment]]) -> list[tuple[str, int, int, int, int]]:
    return [
        (f.account.value, f.place.line, f.place.start, f.place.end_line, f.place.end)
        for f in read_page(lines).found
    ]


# -- a column beside an account broken over two lines (the bug this round found) -------------


def test_an_account_in_the_column_beside_a_broken_ibans_first_line_is_read() -> None:
    """An IBAN broken over two lines in the left column covers that column only: a UK account
    or a label's value in the right column of its first line is an account of its own (it
    was taken for the IBAN's digits, and a forged account printed there was never read)."""
    left = ("IBAN GB82 WEST 1234", 0.05, 0.4)
    rest = [("5698 7654 32", 0.05, 0.3)]
    uk = cells([left, ("Sort code 20-00-00 Account no 12345678", 0.5, 0.95)], rest)
    assert found(uk) == [(IBAN, GB, True), (UK, "20000012345678", True)]
    label = cells([left, ("IBAN: 1234 5678 9012 34", 0.5, 0.95)], rest)
    assert found(label) == [(IBAN, GB, True), (OTHER, "12345678901234", False)]


def test_an_account_in_the_column_before_a_broken_ibans_rest_is_read() -> None:
    """The IBAN's rest in the right column of the next line covers that column only: the UK
    account in the left column of that line is read."""
    lines = cells(
        [("Blauwal GmbH", 0.05, 0.3), ("IBAN GB82 WEST 1234", 0.5, 0.8)],
        [("Sort code 20-00-00 Account no 12345678 GBP", 0.05, 0.45), ("5698 7654 32", 0.5, 0.65)],
    )
    assert found(lines) == [(IBAN, GB, True), (UK, "20000012345678", True)]


def test_a_value_in_the_column_beside_a_national_account_over_two_lines_is_read() -> None:
    """A sort code and its account number a line apart cover their own cells: a label's value
    in the right column of the sort code's line is read."""
    lines = cells(
        [("Sort code: 60-16-13", 0.05, 0.4), ("IBAN: 1234 5678 9012 34", 0.5, 0.95)],
        [("Account number: 31926819", 0.05, 0.4)],
    )
    assert found(lines) == [(UK, "60161331926819", True), (OTHER, "12345678901234", False)]


def test_an_account_after_an_iban_on_its_line_is_read() -> None:
    text = "IBAN GB29 NWBK 6016 1331 9268 19 Sort code 20-00-00 Account no 12345678"
    assert found(text_lines(text)) == [
        (IBAN, "GB29NWBK60161331926819", True),
        (UK, "20000012345678", True),
    ]


def test_words_in_the_column_beside_a_broken_iban_come_after_it_as_on_one_line() -> None:
    """`Your account` in the next column of a broken IBAN's first line is after the IBAN, at
    the penalty a word after an account has: the transfer asked for right before it is its
    purpose (it was taken for the reader's own account, so no payee at all)."""
    asked = ("Please pay by bank transfer to GB82 WEST 1234", 0.05, 0.45)
    beside = ("Your account no. 4711", 0.55, 0.95)
    for lines in (
        cells([asked, beside], [("5698 7654 32", 0.05, 0.3)]),
        cells([(asked[0] + " 5698 7654 32", 0.05, 0.45), beside]),
    ):
        page = read_page(lines)
        (account,) = page.found
        purpose = page.purpose(account)
        assert account.account.value == GB
        assert purpose is not None and purpose.kind == PAY_TO
