"""The edges of the IBAN finder (docflow/accounts/ibans.py): how many separators may sit
between two characters, what may stand where the check digits go after a line break, how far
a continuation line may be indented, which cell of the next line goes on an IBAN cut at a
column's end, and where an IBAN found in plain text is. Each test names the boundary it guards
(bench/README.md, "Mutation testing")."""

from __future__ import annotations

from docflow.accounts import IBAN
from docflow.accounts.ibans import find_ibans, find_in_text
from docflow.accounts.lines import Segment

GB = "GB82WEST12345698765432"
Cell = tuple[str, float, float]


def found(text: str) -> list[tuple[str, bool]]:
    return [(a.value, a.valid) for a, _s, _e in find_in_text(text)]


def in_cells(*rows: list[Cell]) -> list[tuple[str, bool]]:
    lines = [[Segment(text, x0, x1) for text, x0, x1 in row] for row in rows]
    return [(a.value, a.valid) for a, _p in find_ibans(lines)]


def test_three_separators_may_sit_between_two_characters_and_four_may_not() -> None:
    assert found("GB82 -- WEST 1234 5698 7654 32") == []
    assert found("GB82 - WEST 1234 5698 7654 32") == [(GB, True)]


def test_a_comma_is_no_separator() -> None:
    assert found("GB82,WEST,1234,5698,7654,32") == []


def test_after_a_break_the_check_digits_must_be_digits() -> None:
    """A country code at a line's end reads on at the next line only with two digits there:
    a letter where either check digit goes is no IBAN (one with its country's structure and
    a failing check would be)."""
    assert found("Pay GB\nX2WEST12345698765432") == []
    assert found("Pay GB\n8XWEST12345698765432") == []
    assert found("Pay GB\n82WEST12345698765432") == [(GB, True)]


def test_a_continuation_lines_indent_is_no_gap_however_wide() -> None:
    assert found("IBAN: GB82 WEST 1234\n" + " " * 90 + "5698 7654 32") == [(GB, True)]


def test_an_iban_that_fails_its_check_is_the_iban_of_nothing() -> None:
    ((account, _s, _e),) = find_in_text("IBAN DE89 3704 0044 0532 0130 01")
    assert (account.kind, account.valid, account.iban) == (IBAN, False, None)


def test_offsets_of_an_iban_on_a_later_line_are_in_the_whole_text() -> None:
    text = "Rechnung 1\n\nIBAN: GB82 WEST 1234 5698 7654 32\nDanke"
    ((account, start, end),) = find_in_text(text)
    assert account.value == GB
    assert text[start:end] == "GB82 WEST 1234 5698 7654 32"


# -- an IBAN cut at a column's end -----------------------------------------------------


def test_an_iban_cut_at_its_columns_end_goes_on_under_it_not_into_the_next_column() -> None:
    """The next column's text (starting with digits) is not the IBAN's; its rest is under it."""
    assert in_cells(
        [("IBAN GB82 WEST 1234", 0.05, 0.4), ("30 Tage netto", 0.5, 0.9)],
        [("5698 7654 32", 0.05, 0.3), ("Seite 1", 0.5, 0.7)],
    ) == [(GB, True)]


def test_an_iban_cut_where_the_next_column_opens_with_a_bracket_still_goes_on() -> None:
    assert in_cells(
        [("IBAN GB82 WEST 1234", 0.05, 0.4), ("(030) 1234 567", 0.5, 0.9)],
        [("5698 7654 32", 0.05, 0.3)],
    ) == [(GB, True)]


def test_an_iban_in_a_middle_column_far_along_its_line_is_cut_at_its_columns_end() -> None:
    assert in_cells(
        [
            ("Blauwal GmbH, Kaiweg 12, 10115 Berlin, Geschäftsführung A. Wal", 0.0, 0.3),
            ("IBAN GB82 WEST 1234", 0.35, 0.6),
            ("30 Tage netto", 0.7, 0.9),
        ],
        [("Amtsgericht Berlin", 0.0, 0.3), ("5698 7654 32", 0.35, 0.55)],
    ) == [(GB, True)]


def test_an_iban_goes_on_at_the_next_lines_start_when_its_column_below_is_not_it() -> None:
    assert in_cells(
        [("Blauwal GmbH", 0.05, 0.3), ("IBAN GB82 WEST 1234", 0.5, 0.8)],
        [("5698 7654 32", 0.05, 0.3), ("Seite 1", 0.5, 0.7)],
    ) == [(GB, True)]


def test_a_full_reading_without_its_countrys_structure_tries_the_next_lines_start() -> None:
    """The cell under the IBAN gives it all its characters, but not the country's structure
    (letters where GB has digits): the next line's start is read before giving up."""
    assert in_cells(
        [("Blauwal GmbH", 0.05, 0.3), ("IBAN GB82 WEST 1234", 0.5, 0.8)],
        [("5698 7654 32", 0.05, 0.3), ("ABCD EFGH IJ", 0.5, 0.7)],
    ) == [(GB, True)]


def test_the_cell_under_an_iban_is_one_its_extent_overlaps() -> None:
    """Overlapping extents go on however far the left edges are apart; a cell that only
    touches the IBAN's extent is not under it (the next line's start then is)."""
    assert in_cells(
        [("Blauwal GmbH", 0.05, 0.3), ("IBAN GB82 WEST 1234", 0.5, 0.8)],
        [("Kaiweg 12", 0.05, 0.3), ("5698 7654 32", 0.6, 0.8)],
    ) == [(GB, True)]
    assert in_cells(
        [("Blauwal GmbH", 0.05, 0.3), ("IBAN GB82 WEST 1234", 0.5, 0.8)],
        [("Kaiweg 12", 0.05, 0.3), ("1 0000 0000 00", 0.3, 0.5), ("5698 7654 32", 0.5, 0.7)],
    ) == [(GB, True)]


def test_the_cell_under_an_iban_is_one_whose_left_edge_is_within_two_hundredths() -> None:
    """Where the extents do not overlap (an IBAN cell of no width), the left edges decide:
    0.01 apart is under it, exactly 0.02 apart is not (the next line's start then is)."""
    assert in_cells(
        [("Blauwal GmbH", 0.05, 0.3), ("IBAN GB82 WEST 1234", 0.5, 0.5)],
        [("Kaiweg 12", 0.05, 0.3), ("5698 7654 32", 0.51, 0.8)],
    ) == [(GB, True)]
    assert in_cells(
        [("IBAN GB82 WEST 1234", 0.04, 0.04)],
        [("1 0000 0000 00", 0.0, 0.01), ("5698 7654 32", 0.02, 0.03)],
    ) == [("GB82WEST12341000000000", False)]


def test_three_separators_may_sit_between_each_two_characters_from_the_country_on() -> None:
    spaced = " - ".join(GB)
    assert found(f"IBAN: {spaced}") == [(GB, True)]


def test_a_country_codes_first_letter_alone_in_its_cell_goes_on_in_its_line_not_below() -> None:
    """A line break inside an IBAN comes after its country code at least: `G` alone in a
    cell reads on in the next cell of its line, never with the line under it."""
    assert in_cells(
        [("G", 0.0, 0.05), ("B82 WEST 1234 5698 7654 32", 0.1, 0.9)],
        [("B29 NWBK 6016 1331 9268 19", 0.0, 0.9)],
    ) == [(GB, True)]


def test_a_country_code_alone_in_its_cell_goes_on_under_it_whatever_the_next_cell_holds() -> None:
    """What stands after a fourth separator, or after a character no separator is, is not
    the IBAN's: the next cell's text (`, X`, `- -X`) cannot refuse the reading under it."""
    under = [("82 WEST 1234 5698 7654 32", 0.05, 0.5)]
    for beside in (", X-Ray GmbH", "- -X-Ray GmbH"):
        assert in_cells([("GB", 0.05, 0.1), (beside, 0.2, 0.5)], under) == [(GB, True)], beside


# -- the columns beside an IBAN broken over two lines (the bug this round found) ------------

NL = "NL91ABNA0417164300"


def test_an_iban_in_the_column_beside_a_broken_ibans_first_line_is_found() -> None:
    """An IBAN broken over two lines in the left column ends its first line at its column: the
    IBAN in the right column of that line is found (the rest of the line was skipped)."""
    assert in_cells(
        [("IBAN GB82 WEST 1234", 0.05, 0.4), ("NL91 ABNA 0417 1643 00", 0.5, 0.9)],
        [("5698 7654 32", 0.05, 0.3)],
    ) == [(GB, True), (NL, True)]


def test_an_iban_in_the_column_before_a_broken_ibans_rest_is_found() -> None:
    """The IBAN's rest in the right column of the next line takes that column only: the IBAN
    in the left column of that line is found (the line was read from after the rest)."""
    assert in_cells(
        [("Blauwal GmbH", 0.05, 0.3), ("IBAN GB82 WEST 1234", 0.5, 0.8)],
        [("NL91 ABNA 0417 1643 00", 0.05, 0.45), ("5698 7654 32", 0.5, 0.65)],
    ) == [(GB, True), (NL, True)]


def test_the_rest_of_a_broken_iban_is_not_read_again() -> None:
    """`ST12...` at the next line's start is the GB IBAN's rest, not a São Tomé IBAN of its own
    (read with what follows it, it has that country's length and structure)."""
    text = "IBAN: GB82 WE\nST12 3456 9876 5432 1234 5678 9"
    assert found(text) == [(GB, True)]


def test_an_iban_after_a_broken_ibans_rest_on_its_line_is_found() -> None:
    text = "IBAN: GB82 WEST 1234\n5698 7654 32 and NL91 ABNA 0417 1643 00"
    assert found(text) == [(GB, True), ("NL91ABNA0417164300", True)]


def test_an_ibans_last_character_begins_no_other() -> None:
    """A Qatari IBAN ends in a lone letter: `G B29 NWBK ...` after it is no GB IBAN."""
    qatar = "QA58DOHB00001234567890ABCDEFG"
    text = "QA58 DOHB 0000 1234 5678 90AB CDEF G B29 NWBK 6016 1331 9268 19"
    assert found(text) == [(qatar, True)]


def test_offsets_of_a_broken_iban_run_to_its_rests_last_character() -> None:
    text = "IBAN: GB82 WEST 1234\n5698 7654 32 Danke"
    ((_account, start, end),) = find_in_text(text)
    assert text[start:end] == "GB82 WEST 1234\n5698 7654 32"


def test_a_broken_ibans_last_character_begins_no_other() -> None:
    text = "QA58 DOHB 0000 1234\n5678 90AB CDEF G B29 NWBK 6016 1331 9268 19"
    assert found(text) == [("QA58DOHB00001234567890ABCDEFG", True)]
