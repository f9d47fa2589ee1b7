"""A table's header line on a laid-out page, and the x-span of each of its columns.

A header is a line whose words match the labels of at least two of the table's columns (or of
its only column): exactly, accent-folded, or on an OCR page fuzzily (`Descriptlon`). A column
with no labels is matched by its name (`unit_price` -> `unit price`). A line that also prints
a date or an amount with its cents is a key-value line (`Date: 2026-03-04  Amount: 50.00`),
not a header. Each column reaches half way to its neighbours' header cells; the header's
words no column claims (`Unit price` where the type declares no such column) make columns of
their own, whose values are read by no one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from docflow.extract.declarations.model import Column
from docflow.extract.declarations.parse import find_dates, fold
from docflow.extract.rules_engine.layout import Cell, Page
from docflow.extract.rules_engine.matching import FUZZY_CUTOFF, fold_keep_length

_CENTS = re.compile(r"\d[.,]\d{2}(?!\d)")


@dataclass(frozen=True)
class Token:
    """One printed word with its box (for a page laid out from text alone, its character
    columns stand in), and the index of the layout cell it belongs to."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    cell: int
    confidence: float | None = None

    @property
    def centre(self) -> float:
        return (self.x0 + self.x1) / 2


@dataclass(frozen=True)
class Span:
    """A column of the table on this page: a declared column's name, or None for a header cell
    the declaration does not name; `left`..`right` is what falls in it."""

    name: str | None
    x0: float
    x1: float
    left: float = 0.0
    right: float = 1.0


@dataclass(frozen=True)
class Header:
    line: int
    spans: tuple[Span, ...]
    tokens: tuple[Token, ...]

    def column_at(self, x: float) -> str | None:
        for span in self.spans:
            if span.left <= x < span.right:
                return span.name
        return None


def tokens_of(line: Sequence[Cell]) -> list[Token]:
    """A line's words, left to right."""
    out: list[Token] = []
    for index, cell in enumerate(line):
        if cell.words:
            out.extend(
                Token(w.text, *w.box, index, w.confidence) for w in cell.words if w.text.strip()
            )
            continue
        # A cell laid out from text: each word at its share of the cell's character columns.
        width = (cell.x1 - cell.x0) / max(len(cell.text), 1)
        for m in re.finditer(r"\S+", cell.text):
            x0 = cell.x0 + m.start() * width
            out.append(Token(m[0], x0, cell.y0, x0 + len(m[0]) * width, cell.y1, index))
    return sorted(out, key=lambda t: t.x0)


def labels_of(column: Column) -> tuple[str, ...]:
    return column.all_labels() or (column.name.replace("_", " "),)


def find_header(columns: Sequence[Column], page: Page, ocr: bool, start: int = 0) -> Header | None:
    """The first header line of these columns at or after line `start` of the page."""
    for index in range(start, len(page.lines)):
        tokens = tokens_of(page.lines[index])
        header = _header(columns, tokens, index, ocr)
        following = page.lines[index + 1] if index + 1 < len(page.lines) else []
        if tokens and _claims(columns, tokens, ocr) and _second_line(page, tokens, following):
            # A header printed on two lines (`Withdrawals /` over `Deposits`): the cells
            # joined, where that names more columns. The upper line must name one itself:
            # `Bill to: Example Corp` over the header is no part of it.
            joined = _header(columns, _joined(tokens, tokens_of(following)), index, ocr)
            if joined is not None and (header is None or _named(joined) > _named(header)):
                header = joined
        if header is not None:
            return header
    return None


def _second_line(page: Page, tokens: Sequence[Token], following: Sequence[Cell]) -> bool:
    """The next line may be the header's own second line: close under it, with no digit."""
    if not following:
        return False
    gap = min(c.y0 for c in following) - max(t.y1 for t in tokens)
    return gap < page.line_height and not any(ch.isdigit() for c in following for ch in c.text)


def _joined(upper: Sequence[Token], lower: Sequence[Token]) -> list[Token]:
    """The two lines' words, each lower word after the words of the upper cell over it (or
    in a cell of its own), in reading order."""
    cells: dict[int, list[Token]] = {}
    for token in upper:
        cells.setdefault(token.cell, []).append(token)
    extent = {i: (min(t.x0 for t in ts), max(t.x1 for t in ts)) for i, ts in cells.items()}
    for token in lower:
        over = [i for i, (x0, x1) in extent.items() if min(x1, token.x1) > max(x0, token.x0)]
        index = over[0] if len(over) == 1 else 1000 + token.cell
        cells.setdefault(index, []).append(Token(*_fields(token)[:5], index, token.confidence))
    ordered = sorted(cells.values(), key=lambda ts: min(t.x0 for t in ts))
    return [t for ts in ordered for t in ts]


def _fields(token: Token) -> tuple[str, float, float, float, float]:
    return (token.text, token.x0, token.y0, token.x1, token.y1)


def _named(header: Header) -> int:
    return sum(1 for s in header.spans if s.name is not None)


def _header(
    columns: Sequence[Column], tokens: Sequence[Token], index: int, ocr: bool
) -> Header | None:
    if not tokens:
        return None
    claimed = _claims(columns, tokens, ocr)
    named = {name for name in claimed.values()}
    if len(named) < min(2, len(columns)):
        return None
    rest = " ".join(t.text for i, t in enumerate(tokens) if i not in claimed)
    if _CENTS.search(rest) or find_dates(rest) or len(rest.split()) > 2 * len(claimed):
        return None
    spans: list[Span] = []
    group: list[Token] = []
    owner: str | None = None
    for i, token in enumerate(tokens):
        name = claimed.get(i)
        joins = group and name == owner and (name is not None or token.cell == group[-1].cell)
        if not joins and group:
            spans.append(_span(owner, group))
            group = []
        group.append(token)
        owner = name
    spans.append(_span(owner, group))
    spans.sort(key=lambda s: s.x0)
    bounded = tuple(
        Span(
            s.name,
            s.x0,
            s.x1,
            0.0 if i == 0 else (spans[i - 1].x1 + s.x0) / 2,
            float("inf") if i == len(spans) - 1 else (s.x1 + spans[i + 1].x0) / 2,
        )
        for i, s in enumerate(spans)
    )
    return Header(index, bounded, tuple(tokens))


def _span(name: str | None, tokens: Sequence[Token]) -> Span:
    return Span(name, min(t.x0 for t in tokens), max(t.x1 for t in tokens))


def _claims(columns: Sequence[Column], tokens: Sequence[Token], ocr: bool) -> dict[int, str]:
    """Which column each header word belongs to: the longest labels claim their words first,
    each column once."""
    text, starts = "", []
    for token in tokens:
        starts.append(len(text) + (1 if text else 0))
        text = f"{text} {token.text}" if text else token.text
    folded = fold_keep_length(text)
    wanted = sorted(
        ((fold(label), c.name) for c in columns for label in labels_of(c)),
        key=lambda pair: len(pair[0]),
        reverse=True,
    )
    claimed: dict[int, str] = {}
    for label, name in wanted:
        if name in claimed.values():
            continue
        pattern = r"\s+".join(re.escape(w) for w in label.split())
        for m in re.finditer(rf"(?<!\w){pattern}(?!\w)", folded, re.IGNORECASE):
            hit = [
                i
                for i, s in enumerate(starts)
                if s < m.end() and s + len(tokens[i].text) > m.start()
            ]
            if hit and not any(i in claimed for i in hit):
                claimed.update({i: name for i in hit})
                break
    if ocr:
        for label, name in wanted:
            if name in claimed.values():
                continue
            size = len(label.split())
            for i in range(len(tokens) - size + 1):
                window = range(i, i + size)
                if any(j in claimed for j in window):
                    continue
                said = fold(" ".join(tokens[j].text for j in window)).strip(":.")
                if fuzz.ratio(said, label) >= FUZZY_CUTOFF:
                    claimed.update({j: name for j in window})
                    break
    return claimed
