"""A page as the account reader sees it: lines of segments, each segment a run of words
with its horizontal extent (page-relative), so that an account broken over two lines is
joined with the part under it, in its own column.

A page read from plain text (the detectors' page text, a text-only layout) is one segment
per line spanning the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Segment:
    text: str
    x0: float = 0.0
    x1: float = 1.0


Line = Sequence[Segment]


@dataclass(frozen=True)
class Place:
    """Where a found thing is: from (line, start) to (end_line, end), offsets in the lines'
    texts (`line_text`), the end exclusive. A thing broken over two lines says where it stops
    on its first line and resumes on its last (`stop`, `resume`; unsaid, the first line's
    end and the last line's start): another column's text beside it is not its. One on one
    line has no use for them."""

    line: int
    start: int
    end_line: int
    end: int
    stop: int = 10**9
    resume: int = 0


def line_text(line: Line) -> str:
    """The line's segments joined by one space (the offsets every finder uses)."""
    return " ".join(s.text for s in line)


def segment_starts(line: Line) -> list[int]:
    """The offset of each segment in `line_text(line)`."""
    starts, at = [], 0
    for segment in line:
        starts.append(at)
        at += len(segment.text) + 1
    return starts


def segment_at(line: Line, offset: int) -> int:
    """The index of the segment holding `offset` (the last whose start is at or before)."""
    index = 0
    for i, start in enumerate(segment_starts(line)):
        if start <= offset:
            index = i
    return index


def text_lines(text: str) -> list[list[Segment]]:
    """Plain text as lines of one segment each."""
    return [[Segment(line)] for line in text.split("\n")]


def offset_of(text: str, line: int, column: int) -> int:
    """The offset in `text` of `column` on its `line` (lines split at `\\n`)."""
    lines = text.split("\n")
    return sum(len(lines[i]) + 1 for i in range(line)) + column
