"""The edges of one page's reading (docflow/accounts/reader.py): where an account's label puts
its value (after it, in the next cell, in the cell under it, and no other column), how far a
value after a label runs, what a label's value that a recognized account explains is, and
which accounts stand in a column beside an account broken over two lines. Each test names the
boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from docflow.accounts import IBAN, OTHER, UK, read_page
from docflow.accounts.labels import MANDATE, PAY_TO, READER
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


def broken_and_whole(asked: Cell, beside: Cell) -> tuple[list[list[Segment]], ...]:
    """The same page twice: the IBAN ending `asked`'s line broken after `GB82 WEST 1234`
    (its rest on the next line, in the first column), and whole on one line; `beside` in
    the other column of the first line either way."""
    text, x0, x1 = asked
    return (
        cells([asked, beside], [("5698 7654 32", 0.05, 0.3)]),
        cells([(text + " 5698 7654 32", x0, x1), beside]),
    )


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
    for lines in broken_and_whole(asked, beside):
        page = read_page(lines)
        (account,) = page.found
        purpose = page.purpose(account)
        assert account.account.value == GB
        assert purpose is not None and purpose.kind == PAY_TO


def test_a_word_beside_a_broken_iban_is_as_far_from_it_as_on_one_line() -> None:
    """Counted from where the IBAN stops on its line: `Your account` just after it (at the
    penalty) is nearer than a transfer asked for 45 characters before it, broken or not."""
    asked = (
        "Please pay by bank transfer (within 30 days, quoting our invoice no.) to GB82 WEST 1234"
    )
    beside = ("Your account no. 4711", 0.65, 0.95)
    for lines in broken_and_whole((asked, 0.05, 0.6), beside):
        page = read_page(lines)
        (account,) = page.found
        purpose = page.purpose(account)
        assert purpose is not None and purpose.kind == READER


def test_a_word_just_after_a_broken_iban_ties_as_it_would_on_one_line() -> None:
    """`Your account` right after where the IBAN stops is 41 characters away (one, and the
    penalty); a transfer asked for 41 characters before it ties, and the word before wins.
    One character farther, the word after it does. Broken or not, the same."""
    beside = ("Your account no. 4711", 0.65, 0.95)
    for filler, want in ((39, PAY_TO), (40, READER)):
        asked = "Please pay by bank transfer " + "x" * filler + " GB82 WEST 1234"
        for lines in broken_and_whole((asked, 0.05, 0.6), beside):
            page = read_page(lines)
            (account,) = page.found
            purpose = page.purpose(account)
            assert purpose is not None and purpose.kind == want, filler


# -- where a label's value is -----------------------------------------------------------


def test_an_account_after_its_label_is_labelled_and_one_elsewhere_is_not() -> None:
    text = (
        "IBAN: DE89 3704 0044 0532 0130 00\nKaiweg 12\nBerlin\nRefund GB82 WEST 1234 5698 7654 32"
    )
    page = read_page(text_lines(text))
    assert [(f.account.value[:4], f.labelled) for f in page.found] == [
        ("DE89", True),
        ("GB82", False),
    ]


def test_an_account_in_the_cell_under_its_label_is_labelled() -> None:
    """The value's cell starts exactly where the slot under the label does."""
    page = read_page(cells([("IBAN", 0.1, 0.3)], [("GB82 WEST 1234 5698 7654 32", 0.1, 0.6)]))
    assert [(f.account.value, f.place.line, f.place.start, f.labelled) for f in page.found] == [
        (GB, 1, 0, True)
    ]


def test_a_labels_value_is_read_from_the_cell_under_the_label_not_another_column() -> None:
    """The label starts its own cell, the second of its line; under it, the first cell holds
    a customer number: the value is the one in the label's column."""
    lines = cells(
        [("Kunde", 0.05, 0.3), ("IBAN", 0.5, 0.7)],
        [("Kd-Nr 4711 0815 22", 0.05, 0.3), ("1234 5678 9012 34", 0.5, 0.8)],
    )
    assert places(lines) == [("12345678901234", 1, 19, 1, 36)]


def test_a_labels_value_in_the_next_cell_of_its_line_is_read() -> None:
    """`no.:` after the label reads as no value; the next cell holds it, whether the label is
    in the last cell but one or has two after it."""
    lines = cells(
        [("Zahlung", 0.0, 0.1), ("Bank account no.:", 0.15, 0.4), ("12-3456-78901234", 0.45, 0.7)]
    )
    assert places(lines) == [("12345678901234", 0, 26, 0, 42)]
    first = cells(
        [("Bank account no.:", 0.0, 0.3), ("12-3456-78901234", 0.4, 0.7), ("(Danke)", 0.8, 0.9)]
    )
    assert places(first) == [("12345678901234", 0, 18, 0, 34)]


def test_a_labels_value_under_it_on_the_last_line_is_read() -> None:
    assert places(cells([("IBAN", 0.1, 0.3)], [("1234 5678 9012 34", 0.1, 0.5)])) == [
        ("12345678901234", 1, 0, 1, 17)
    ]
    # A third line in another column: the value is on the line under the label.
    lines = cells([("IBAN", 0.1, 0.3)], [("1234 5678 9012 34", 0.1, 0.5)], [("Seite 1", 0.6, 0.9)])
    assert places(lines) == [("12345678901234", 1, 0, 1, 17)]


def test_a_cell_under_a_label_is_one_its_extent_overlaps() -> None:
    """Overlapping extents are under the label however far their left edges are apart; a cell
    that only touches the label's extent is not under it."""
    shifted = cells([("IBAN", 0.1, 0.3)], [("1234 5678 9012 34", 0.15, 0.5)])
    assert found(shifted) == [(OTHER, "12345678901234", False)]
    touching = cells(
        [("Konto", 0.05, 0.3), ("IBAN", 0.5, 0.7)],
        [("4711 0815 22", 0.3, 0.5), ("1234 5678 9012 34", 0.5, 0.9)],
    )
    assert found(touching) == [(OTHER, "12345678901234", False)]


def test_a_cell_under_a_label_is_one_whose_left_edge_is_within_two_hundredths() -> None:
    """Where the extents do not overlap (a label cell of no width), the left edges decide:
    0.01 apart is under it, exactly 0.02 apart is not."""
    near = cells([("Konto", 0.0, 0.3), ("IBAN", 0.5, 0.5)], [("1234 5678 9012 34", 0.51, 0.8)])
    assert found(near) == [(OTHER, "12345678901234", False)]
    far = cells([("IBAN", 0.0, 0.0)], [("1234 5678 9012 34", 0.02, 0.4)])
    assert found(far) == []


# -- how far a label's value runs -------------------------------------------------------


def test_a_labels_value_is_read_from_its_first_character_after_the_label() -> None:
    assert places(text_lines("IBAN 1234 5678 9012")) == [("123456789012", 0, 5, 0, 19)]
    assert places(text_lines("IBAN: 1234 5678 9012, thanks")) == [("123456789012", 0, 6, 0, 20)]


def test_a_labels_value_runs_over_two_separators_and_stops_at_three() -> None:
    assert found(text_lines("IBAN: 1234. 5678. 9012")) == [(OTHER, "123456789012", False)]
    assert found(text_lines("IBAN: 123456 - 7890")) == [(OTHER, "123456", False)]


def test_a_labels_value_stops_at_anything_but_a_separator() -> None:
    assert found(text_lines("IBAN: 1234567, Tel 1234")) == [(OTHER, "1234567", False)]


def test_a_labels_value_has_six_digits_at_least_and_34_characters_at_most() -> None:
    assert found(text_lines("IBAN: 123456")) == [(OTHER, "123456", False)]
    assert found(text_lines("IBAN: 12345")) == []
    longest = "12345678" + "A" * 26  # 34 characters
    assert found(text_lines(f"IBAN: {longest}")) == [(OTHER, longest, False)]
    assert found(text_lines(f"IBAN: {longest}B")) == []


# -- a label's value that a recognized account explains ------------------------------


def test_a_labels_value_before_a_recognized_account_on_its_line_is_read() -> None:
    """The recognized account stands after the value, not at it: the value is its own."""
    text = "IBAN: 1234 5678 9012 34 / GB82 WEST 1234 5698 7654 32"
    assert found(text_lines(text)) == [(OTHER, "12345678901234", False), (IBAN, GB, True)]


def test_a_labels_value_that_runs_into_an_iban_is_unrecognized() -> None:
    """A stray digit between the label and an IBAN: the label's value is what is printed
    there, the IBAN within it no explanation of it (the page is held for a person)."""
    text = "IBAN: 1 GB82 WEST 1234 5698 7654 32"
    assert found(text_lines(text)) == [(OTHER, "1" + GB, False), (IBAN, GB, True)]


# -- what an account is for -------------------------------------------------------------


def test_a_word_after_the_account_on_its_line_counts_farther_than_one_before() -> None:
    page = read_page(text_lines("Bank transfer to GB82 WEST 1234 5698 7654 32 or Lastschrift"))
    (account,) = page.found
    purpose = page.purpose(account)
    assert purpose is not None and purpose.kind == PAY_TO
    page = read_page(text_lines("GB82 WEST 1234 5698 7654 32 Lastschrift"))
    (account,) = page.found
    purpose = page.purpose(account)
    assert purpose is not None and purpose.kind == MANDATE


# -- which words ask for a transfer ------------------------------------------------------


def instructions(lines: list[list[Segment]]) -> list[str]:
    return [c.kind for c in read_page(lines).instructions()]


def test_a_label_whose_own_purpose_is_a_mandate_asks_for_no_transfer() -> None:
    assert instructions(text_lines("SEPA-Lastschrift von IBAN DE89 3704 0044 0532 0130 00")) == []
    assert instructions(text_lines("Lastschrift:\nIBAN: DE89 3704 0044 0532 0130 00")) == []


def test_a_transfer_asked_for_under_a_mandate_word_is_still_asked_for() -> None:
    """A mandate word on the line over it does not undo a transfer asked for; one on its own
    line does (`direct debit or bank transfer`: the reader chooses)."""
    assert instructions(text_lines("Direct debit is not offered.\nBitte überweisen Sie.")) == [
        PAY_TO
    ]
    assert instructions(text_lines("Payment by direct debit or bank transfer")) == []


def test_a_label_word_starting_a_cell_followed_by_words_is_a_header() -> None:
    assert instructions(cells([("Weltweit", 0.0, 0.2), ("IBAN SWIFT Code", 0.3, 0.6)])) == []


# -- which accounts a page holds -----------------------------------------------------------


def test_an_iban_that_fails_its_check_is_a_word_only_when_its_first_two_letters_are_lower() -> None:
    """`D e89 ...`: the first two printed characters (`D `) are not lower case, so the failing
    IBAN is read (and held), whatever the third is."""
    page = read_page(text_lines("Konto D e89 3704 0044 0532 0130 01"))
    assert [(f.account.kind, f.account.valid) for f in page.found] == [(IBAN, False)]


def test_a_national_account_printed_inside_an_iban_is_the_ibans_digits() -> None:
    """A table whose header labels the IBAN's groups (`BLZ`, `Konto`): the account the labels
    make is the IBAN itself, read once."""
    lines = cells(
        [("IBAN", 0.0, 0.1), ("BLZ", 0.2, 0.35), ("Konto", 0.4, 0.6)],
        [("DE89", 0.0, 0.1), ("3704 0044", 0.2, 0.35), ("0532 0130 00", 0.4, 0.6)],
    )
    assert found(lines) == [(IBAN, "DE89370400440532013000", True)]


def test_a_national_value_read_from_an_ibans_first_character_is_the_iban() -> None:
    """`RIB:` over a 23-character IBAN reads the whole IBAN as a RIB that fails; it starts
    where the IBAN does, so it is the IBAN's characters, not an account of its own."""
    assert found(text_lines("RIB: GI75 NWBK 0000 0000 7099 453")) == [
        (IBAN, "GI75NWBK000000007099453", True)
    ]


def test_a_national_account_after_a_half_an_iban_explains_is_read_and_labelled() -> None:
    text = (
        "IBAN GB29 NWBK 6016 1331 9268 19\nSort code: 60-16-13\n"
        "Konto-Nr.: 532013000  BLZ: 370 400 44"
    )
    page = read_page(text_lines(text))
    assert [(f.account.kind, f.account.valid, f.labelled) for f in page.found] == [
        (IBAN, True, True),
        ("de", True, True),
    ]
