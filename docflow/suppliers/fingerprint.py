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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from docflow.extract.declarations.parse import fold
from docflow.extract.rules_engine.layout import Page
from docflow.suppliers.shapes import Profile

MAX_LINES = 60
MAX_TEXT = 60
MIN_LETTERS = 3
MIN_LINES = 4
LINE_SCORE = 90.0  # rapidfuzz ratio between two lines' masked texts
NEAR_X, NEAR_Y = 0.12, 0.2  # page-relative: an extra line or a longer address moves lines
SCORE = 0.8  # share of the fingerprint's lines found for a layout match
OWN_SCORE = 0.6  # share of a supplier's own lines (those the other candidate lacks) found
OWN_LINES = 1  # a supplier told apart from a look-alike by at least this many own lines

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


def _same(a: Line, b: Line) -> bool:
    return (
        abs(float(a[1]) - float(b[1])) <= NEAR_X
        and abs(float(a[2]) - float(b[2])) <= NEAR_Y
        and fuzz.ratio(str(a[0]), str(b[0])) >= LINE_SCORE
    )


def _found(line: Line, among: Sequence[Line]) -> bool:
    return any(_same(line, other) for other in among)


def merged(old: Sequence[Line], new: Sequence[Line]) -> list[Line]:
    """The fingerprint after one more confirmed invoice: the first gives its lines, each
    later one keeps those it prints again (the values that change fall away)."""
    if not old:
        return [list(line) for line in new[:MAX_LINES]]
    kept = [list(line) for line in old if _found(line, new)]
    # Never merged down to nothing by one odd invoice: too few left keeps the old one.
    return kept if len(kept) >= MIN_LINES else [list(line) for line in old]


def score(fingerprint: Sequence[Line], page: Sequence[Line]) -> float:
    """The share of the fingerprint's lines the page prints near their place; 0.0 for a
    fingerprint or a page too short to be a layout."""
    if len(fingerprint) < MIN_LINES or len(page) < MIN_LINES:
        return 0.0
    return sum(1 for line in fingerprint if _found(line, page)) / len(fingerprint)


def _own(mine: Sequence[Line], other: Sequence[Line]) -> list[Line]:
    return [line for line in mine if not _found(line, other)]


@dataclass(frozen=True)
class Verdict:
    """`winner`: the index of the fingerprint the page matches, or None; `score` its score;
    `ambiguous`: two or more matched and their own lines did not tell them apart."""

    winner: int | None
    score: float = 0.0
    ambiguous: bool = False


def match(fingerprints: Sequence[Sequence[Line]], page: Sequence[Line]) -> Verdict:
    """Which of `fingerprints` the page's lines match (`lines_of`). Each candidate at SCORE
    or more must, against every other candidate, print at least OWN_LINES of the lines that
    are its own and not the other's, at OWN_SCORE or more, while the other's own lines are
    mostly absent; else the page is ambiguous and names none."""
    scores = [score(fp, page) for fp in fingerprints]
    candidates = [i for i, s in enumerate(scores) if s >= SCORE]
    if not candidates:
        return Verdict(None)
    best = max(candidates, key=lambda i: scores[i])
    for other in candidates:
        if other == best:
            continue
        mine = _own(fingerprints[best], fingerprints[other])
        theirs = _own(fingerprints[other], fingerprints[best])
        found_mine = sum(1 for line in mine if _found(line, page))
        found_theirs = sum(1 for line in theirs if _found(line, page))
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


def with_layout(new: Profile, old: Profile, lines: Sequence[Line]) -> Profile:
    """The profile after a confirmed invoice (`new`, from profile.updated) with the page's
    `lines` merged into the fingerprint `old` held; a page too short to be a layout teaches
    none."""
    before = fingerprint_of(old.get("fingerprint"))
    if len(lines) < MIN_LINES:
        return {**new, "fingerprint": before} if before else new
    return {**new, "fingerprint": merged(before, lines)}
