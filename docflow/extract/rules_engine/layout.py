"""A page as lines of cells, for finding a label's value by position.

A *cell* is a run of words on one line with no wide gap inside: a table cell, one side of a
key-value pair, a phrase. From a reader's words the cells keep their page-relative boxes (0..1,
top-left origin). A page whose engine gave no words is laid out from its text instead: one line
per text line, cells split at runs of two or more spaces, with the character column and line
number standing in for positions; such cells have no box (`box is None`), and "to the right"
and "below" still mean what they say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from statistics import median

from docflow.readers.base import Word

# A gap wider than this many line heights separates two cells on one line.
CELL_GAP = 0.9
WIDE_GAP = 2.5  # ... or wider than this many of the page's usual gaps between words
_TEXT_CELL_SPLIT = re.compile(r"\s{2,}|\t|\s\|\s")


@dataclass
class Cell:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    line: int  # index of its line on the page
    page: int
    words: list[Word] = field(default_factory=list)
    has_box: bool = True

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def box(self) -> list[float] | None:
        return [round(v, 4) for v in (self.x0, self.y0, self.x1, self.y1)] if self.has_box else None

    def ocr_confidence(self) -> float | None:
        """The lowest OCR confidence among the cell's words, 0..1 (None: not OCR)."""
        scores = [w.confidence for w in self.words if w.confidence is not None]
        return min(scores) / 100.0 if scores else None

    def sub_box(self, start: int, end: int) -> list[float] | None:
        """The box of the words that text[start:end] covers (the value, not its label)."""
        if not self.has_box or not self.words:
            return self.box
        offset, chosen = 0, []
        for word in self.words:
            index = self.text.find(word.text, offset)
            if index < 0:
                break
            offset = index + len(word.text)
            if index < end and offset > start:
                chosen.append(word)
        if not chosen:
            return self.box
        return [
            round(min(w.box[0] for w in chosen), 4),
            round(min(w.box[1] for w in chosen), 4),
            round(max(w.box[2] for w in chosen), 4),
            round(max(w.box[3] for w in chosen), 4),
        ]

    def words_confidence(self, start: int, end: int) -> float | None:
        """The lowest OCR confidence of the words under text[start:end], 0..1."""
        offset, scores = 0, []
        for word in self.words:
            index = self.text.find(word.text, offset)
            if index < 0:
                break
            offset = index + len(word.text)
            if index < end and offset > start and word.confidence is not None:
                scores.append(word.confidence)
        return min(scores) / 100.0 if scores else self.ocr_confidence()


@dataclass
class Page:
    number: int
    lines: list[list[Cell]]
    line_height: float  # the median line height, in the layout's units

    def cells(self) -> list[Cell]:
        return [cell for line in self.lines for cell in line]


def from_words(number: int, words: Sequence[Word]) -> Page:
    words = [w for w in words if w.text.strip()]
    if not words:
        return Page(number, [], 0.01)
    height = median(w.box[3] - w.box[1] for w in words) or 0.01
    rows: list[list[Word]] = []
    centers: list[float] = []
    for word in sorted(words, key=lambda w: ((w.box[1] + w.box[3]) / 2, w.box[0])):
        center = (word.box[1] + word.box[3]) / 2
        if rows and abs(center - centers[-1]) < height * 0.5:
            rows[-1].append(word)
            n = len(rows[-1])
            centers[-1] = centers[-1] + (center - centers[-1]) / n
        else:
            rows.append([word])
            centers.append(center)
    for row in rows:
        row.sort(key=lambda w: w.box[0])
    # A receipt's monospace print spaces its words wider than a letter's height: a cell ends
    # at a gap wide for this page, not only for the font's size.
    gaps = [b.box[0] - a.box[2] for row in rows for a, b in pairwise(row) if b.box[0] > a.box[2]]
    spacing = median(gaps) * WIDE_GAP if gaps else 0.0
    lines: list[list[Cell]] = []
    for index, row in enumerate(rows):
        cells: list[list[Word]] = [[row[0]]]
        for prev, word in pairwise(row):
            gap = word.box[0] - prev.box[2]
            size = max(prev.box[3] - prev.box[1], word.box[3] - word.box[1], height)
            if gap > max(size * CELL_GAP, spacing):
                cells.append([word])
            else:
                cells[-1].append(word)
        lines.append([_cell(ws, index, number) for ws in cells])
    return Page(number, lines, height)


def _cell(words: list[Word], line: int, page: int) -> Cell:
    return Cell(
        " ".join(w.text for w in words),
        min(w.box[0] for w in words),
        min(w.box[1] for w in words),
        max(w.box[2] for w in words),
        max(w.box[3] for w in words),
        line,
        page,
        words,
    )


def from_text(number: int, text: str) -> Page:
    """Positions from the text alone: x is the character column (of the widest line), y the
    line's index (of the line count), so distances compare as they do with real boxes."""
    raw_lines = [ln.rstrip() for ln in text.splitlines()]
    raw_lines = [ln for ln in raw_lines if ln.strip()]
    width = max((len(ln) for ln in raw_lines), default=1) or 1
    count = max(len(raw_lines), 1)
    lines: list[list[Cell]] = []
    for index, line in enumerate(raw_lines):
        cells: list[Cell] = []
        position = 0
        for part in _TEXT_CELL_SPLIT.split(line):
            start = line.find(part, position) if part else position
            position = start + len(part)
            if not part.strip():
                continue
            lead = len(part) - len(part.lstrip())
            cells.append(
                Cell(
                    part.strip(),
                    (start + lead) / width,
                    index / count,
                    (start + len(part.rstrip())) / width,
                    (index + 0.8) / count,
                    index,
                    number,
                    has_box=False,
                )
            )
        lines.append(cells)
    return Page(number, lines, 1 / count)


def right_of(page: Page, cell: Cell) -> Cell | None:
    """The next cell to the right on the same line."""
    line = page.lines[cell.line]
    after = [c for c in line if c.x0 >= cell.x1 - 1e-6 and c is not cell]
    return min(after, key=lambda c: c.x0) if after else None


def below(page: Page, cell: Cell, max_lines: int = 3) -> list[tuple[int, Cell]]:
    """Cells on the next lines that overlap `cell` horizontally, nearest first, with how many
    lines down they are; a cell that starts left of the label's column and ends right of it
    (a paragraph) does not count."""
    out: list[tuple[int, Cell]] = []
    above = cell.y1
    # A form's boxed cell (a DANFE, a fiscal form) prints its label at the box's top left and
    # the value right-aligned under it: the box reaches to the next label on the label's line.
    beside = right_of(page, cell)
    box_end = beside.x0 if beside is not None else None
    for down in range(1, max_lines + 1):
        index = cell.line + down
        if index >= len(page.lines):
            break
        # A blank band of several lines ends the block (measured line to line, not from the
        # label, so a block of keys under a heading is followed to its end).
        if page.lines[index] and page.lines[index][0].y0 - above > page.line_height * 4:
            break
        if page.lines[index]:
            above = max(c.y1 for c in page.lines[index])
        for other in page.lines[index]:
            if not any(c.isalnum() for c in other.text):
                continue  # a rule of dashes or dots between a header and its values
            overlap = min(cell.x1, other.x1) - max(cell.x0, other.x0)
            if overlap > 0 or abs(other.x0 - cell.x0) < 0.02:
                out.append((down, other))
                break
        else:
            boxed = [
                o
                for o in page.lines[index]
                if box_end is not None
                and down == 1
                and o.x0 >= cell.x1
                and o.x1 <= box_end
                and any(c.isalnum() for c in o.text)
            ]
            if boxed:
                out.append((down, min(boxed, key=lambda o: o.x0)))
    return out
