"""The page's geometry helpers (docflow/accounts/lines.py) that no reader calls yet: the segment
holding an offset of a line's text, and a (line, column)'s offset in plain text. Each test names
the boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from docflow.accounts.lines import Segment, offset_of, segment_at


def test_an_offset_is_in_the_last_segment_starting_at_or_before_it() -> None:
    line = [Segment("IBAN"), Segment("GB82"), Segment("WEST")]  # starts 0, 5, 10
    assert [segment_at(line, at) for at in (0, 4, 5, 9, 10, 14)] == [0, 0, 1, 1, 2, 2]


def test_a_columns_offset_counts_each_line_before_it_and_its_break() -> None:
    text = "ab\n\ncdef\ngh"
    assert [offset_of(text, line, 0) for line in range(4)] == [0, 3, 4, 9]
    assert text[offset_of(text, 2, 3)] == "f"


def test_a_line_with_no_segment_is_its_first() -> None:
    assert segment_at([], 3) == 0
