"""A supplier's layout fingerprint: the lines its invoices print every time, where they print
them; learned from confirmed invoices, matched on a new one when no checked id names its issuer.

A line's text is folded and each token holding a digit is masked to `#` (amounts, dates,
numbers change from one invoice to the next; `Kaiweg 12, 20457 Hamburg` keeps its words as
`kaiweg # # hamburg`); a line left with fewer than MIN_LETTERS letters (a line of values) is
no part of it. The first confirmed invoice gives every such line of its first page; each later
one keeps only the lines printed again near the same place (`merged`), so the body's line items
fall away and the header, the labels, the footer and the supplier's own address remain.

Only page 1 counts (where letterheads and labels are), at most MAX_LINES lines of at most
MAX_TEXT characters: a fingerprint is a few kilobytes inside the supplier's registry item.

`score` is the share of a fingerprint's lines the page prints near their place. A fingerprint
of fewer than MIN_LINES lines, or a page of fewer, matches nothing: a blank or one-line page
is no layout. Two suppliers of one invoicing software share most lines; `match` tells them
apart by the lines each prints and the other does not (name, address, ids), or names neither.

A scan sits on its sheet a little off where the original printed (a margin, a feed), and OCR
misreads a letter or splits a line: "near their place" is taken after the page's shift
(`shift`: the median offset of the anchors, the fingerprint's lines the page prints once, by
their text alone), and a scanned page's lines are compared at SCAN_LINE_SCORE. OCR also sets
one page's lines out differently from the next: it joins a label to a stray mark or to the
next column's cell across a wide gap, or splits a skewed line into two rows. A scan's lines
are looked for among its `pieces_of` too (each run of a line's cells, each two rows at one
height joined): only the page's own words in their order, so a page that does not print a
line does not find it there either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from statistics import median

from rapidfuzz import fuzz

from docflow.extract.declarations.parse import fold
from docflow.extract.rules_engine.layout import Page
from docflow.suppliers.shapes import Profile

MAX_LINES = 60
MAX_TEXT = 60
MIN_LETTERS = 3
MIN_LINES = 4
LINE_SCORE = 90.0  # rapidfuzz ratio between two lines' masked texts
SCAN_LINE_SCORE = 80.0  # the same on a scan (OCR misreads a letter in a short line)
MIN_ANCHORS = 3  # lines found by their text alone that say how far a page is shifted
NEAR_X, NEAR_Y = 0.12, 0.2  # page-relative: an extra line or a longer address moves lines
SCORE = 0.8  # share of the fingerprint's lines found for a layout match
OWN_SCORE = 0.6  # share of a supplier's own lines (those the other candidate lacks) found
OWN_LINES = 1  # a supplier told apart from a look-alike by at least this many own lines
MAX_PIECES = 2000  # a scanned page's other settings of its lines (`pieces_of`), at most

# One line: [masked text, x0, y0], page-relative.
Line = list[str | float]


def _masked(text: str) -> str:
    tokens = ("#" if any(c.isdigit() for c in t) else t for t in fold(text).split())
    return " ".join(tokens)[:MAX_TEXT]


def lines_of(layouts: Sequence[Page]) -> list[Line]:
    """Page 1's lines, masked, with the position of each line's first cell."""
    page = next((p for p in layouts if p.number == 1), None)
    if page is None:
        return []
    out: list[Line] = []
    for cells in page.lines:
        if not cells:
            continue
        text = _masked(" ".join(c.text for c in cells))
        if sum(c.isalpha() for c in text) < MIN_LETTERS:
            continue
        first = min(cells, key=lambda c: c.x0)
        out.append([text, round(first.x0, 3), round(first.y0, 3)])
    return out[:MAX_LINES]


def pieces_of(layouts: Sequence[Page]) -> list[Line]:
    """Page 1's lines as OCR might have set them out on another scan of the layout, beside
    the lines it did set (`lines_of`): each run of a line's cells short of the whole line (a
    label OCR joined to a stray mark or to another column's cell across a wide gap), and each
    two consecutive lines whose first cells start within a line's height of each other,
    their cells joined in x order (one skewed line OCR split in two rows). Each masked, at
    its first cell, with at least MIN_LETTERS letters: the page's own words in their order."""
    page = next((p for p in layouts if p.number == 1), None)
    if page is None:
        return []
    rows = [cells for cells in page.lines if cells]
    runs = [
        cells[i:j]
        for cells in rows
        for i in range(len(cells))
        for j in range(i + 1, len(cells) + 1)
        if j - i < len(cells)
    ]
    for a, b in pairwise(rows):
        if abs(min(c.y0 for c in a) - min(c.y0 for c in b)) < page.line_height:
            runs.append(sorted([*a, *b], key=lambda c: c.x0))
    out: list[Line] = []
    for cells in runs:
        text = _masked(" ".join(c.text for c in cells))
        if sum(c.isalpha() for c in text) >= MIN_LETTERS:
            first = min(cells, key=lambda c: c.x0)
            out.append([text, round(first.x0, 3), round(first.y0, 3)])
    return out[:MAX_PIECES]


@dataclass(frozen=True)
class Reading:
    """How a page's lines are compared with a fingerprint's: its shift (dx, dy) and the text
    score lines must reach."""

    dx: float = 0.0
    dy: float = 0.0
    text: float = LINE_SCORE


EXACT = Reading()


def _same(a: Line, b: Line, how: Reading = EXACT) -> bool:
    return (
        abs(float(b[1]) - how.dx - float(a[1])) <= NEAR_X
        and abs(float(b[2]) - how.dy - float(a[2])) <= NEAR_Y
        and fuzz.ratio(str(a[0]), str(b[0])) >= how.text
    )


def _found(line: Line, among: Sequence[Line], how: Reading = EXACT) -> bool:
    return any(_same(line, other, how) for other in among)


def shift(fingerprint: Sequence[Line], page: Sequence[Line], text: float) -> tuple[float, float]:
    """How far the page sits from where the fingerprint was learned: the median offset of its
    anchors (fingerprint lines the page prints exactly once, by their text alone); none with
    fewer than MIN_ANCHORS."""
    dxs, dys = [], []
    for line in fingerprint:
        alike = [p for p in page if fuzz.ratio(str(line[0]), str(p[0])) >= text]
        if len(alike) == 1:
            dxs.append(float(alike[0][1]) - float(line[1]))
            dys.append(float(alike[0][2]) - float(line[2]))
    if len(dxs) < MIN_ANCHORS:
        return 0.0, 0.0
    return median(dxs), median(dys)


def _among(page: Sequence[Line], scanned: bool, pieces: Sequence[Line]) -> list[Line]:
    """Where a fingerprint's lines are looked for: the page's lines, and a scan's pieces."""
    return [*page, *pieces] if scanned else list(page)


def reading(
    fingerprint: Sequence[Line], page: Sequence[Line], scanned: bool, pieces: Sequence[Line] = ()
) -> Reading:
    text = SCAN_LINE_SCORE if scanned else LINE_SCORE
    dx, dy = shift(fingerprint, _among(page, scanned, pieces), max(text, LINE_SCORE))
    return Reading(dx, dy, text)


def merged(old: Sequence[Line], new: Sequence[Line], scanned: bool = False) -> list[Line]:
    """The fingerprint after one more confirmed invoice: the first gives its lines, each
    later one keeps those it prints again (the values that change fall away); a scan's lines
    are compared after its shift."""
    if not old:
        return [list(line) for line in new[:MAX_LINES]]
    how = reading(old, new, scanned)
    kept = [list(line) for line in old if _found(line, new, how)]
    # Never merged down to nothing by one odd invoice: too few left keeps the old one.
    return kept if len(kept) >= MIN_LINES else [list(line) for line in old]


def score(
    fingerprint: Sequence[Line],
    page: Sequence[Line],
    scanned: bool = False,
    pieces: Sequence[Line] = (),
) -> float:
    """The share of the fingerprint's lines the page prints near their place (after the
    page's shift; a scan's lines or its `pieces`); 0.0 for a fingerprint or a page too short
    to be a layout (the page's lines counted, never its pieces)."""
    if len(fingerprint) < MIN_LINES or len(page) < MIN_LINES:
        return 0.0
    how = reading(fingerprint, page, scanned, pieces)
    among = _among(page, scanned, pieces)
    return sum(1 for line in fingerprint if _found(line, among, how)) / len(fingerprint)


def _own(mine: Sequence[Line], other: Sequence[Line]) -> list[Line]:
    return [line for line in mine if not _found(line, other)]


@dataclass(frozen=True)
class Verdict:
    """`winner`: the index of the fingerprint the page matches, or None; `score` its score;
    `ambiguous`: two or more matched and their own lines did not tell them apart."""

    winner: int | None
    score: float = 0.0
    ambiguous: bool = False


def match(
    fingerprints: Sequence[Sequence[Line]],
    page: Sequence[Line],
    scanned: bool = False,
    pieces: Sequence[Line] = (),
    kin: Sequence[str] = (),
) -> Verdict:
    """Which of `fingerprints` the page's lines match (`lines_of`; `scanned`: read by OCR,
    with its `pieces_of`). The best candidate at SCORE or more must, against every other
    candidate, print at least OWN_LINES of the lines that are its own and not the other's, at
    OWN_SCORE or more, while the other's own lines are mostly absent; else the page is
    ambiguous and names none. `kin`: a key per fingerprint ("" for none) the caller gives
    one issuer's layouts (its text pages' and its scans'); a candidate of the best's
    non-empty key is no look-alike to tell apart, and the best is taken over it."""
    scores = [score(fp, page, scanned, pieces) for fp in fingerprints]
    candidates = [i for i, s in enumerate(scores) if s >= SCORE]
    if not candidates:
        return Verdict(None)
    best = max(candidates, key=lambda i: scores[i])
    keys = list(kin) if len(kin) == len(fingerprints) else [""] * len(fingerprints)
    among = _among(page, scanned, pieces)
    for other in candidates:
        if other == best or (keys[best] and keys[other] == keys[best]):
            continue
        mine = _own(fingerprints[best], fingerprints[other])
        theirs = _own(fingerprints[other], fingerprints[best])
        how = reading(fingerprints[best], page, scanned, pieces)
        found_mine = sum(1 for line in mine if _found(line, among, how))
        found_theirs = sum(1 for line in theirs if _found(line, among, how))
        told_apart = (
            found_mine >= OWN_LINES
            and found_mine >= OWN_SCORE * len(mine)
            and found_theirs < OWN_SCORE * max(len(theirs), 1)
        )
        if not told_apart:
            return Verdict(None, scores[best], ambiguous=True)
    return Verdict(best, round(scores[best], 3))


def fingerprint_of(raw: object) -> list[Line]:
    """A stored fingerprint (a profile's `fingerprint`), tolerant of absent or odd values."""
    if not isinstance(raw, list):
        return []
    out: list[Line] = []
    for line in raw:
        if isinstance(line, (list, tuple)) and len(line) == 3:
            out.append([str(line[0]), float(line[1]), float(line[2])])
    return out


def with_layout(
    new: Profile, old: Profile, lines: Sequence[Line], scanned: bool = False
) -> Profile:
    """The profile after a confirmed invoice (`new`, from trust.updated) with the page's
    `lines` merged into the fingerprint `old` held; a page too short to be a layout teaches
    none."""
    before = fingerprint_of(old.get("fingerprint"))
    if len(lines) < MIN_LINES:
        return {**new, "fingerprint": before} if before else new
    return {**new, "fingerprint": merged(before, lines, scanned)}
