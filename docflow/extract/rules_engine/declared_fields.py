"""The rules engine's reading of declared fields that have no built-in labels (`labels.toml`):
each by its own labels (every language, accent-folded, fuzzily at a cell's start on OCR
pages), a table by its header (`tables.py`).

A label's value is what follows it in its cell (after `:` and the like), else the next cell on
its line, else the cell under it; it is read by the field's kind (`printed.read_value`), and the
first label whose value reads wins. Confidences, before the OCR factor of the value's words
(or its page's):

    0.90  a label and its value on one line        0.85  the value under its label
    0.85  no label found: the field's `pattern` matches one value on the pages
    0.45  two labels read two different values (a person decides)

A checkbox reads a tick (☑ ✓ ✔ ☒ [x] X) or an empty box (☐ [ ]) after its label or before it.
A label whose value does not read is `rejected` (the checks say `unreadable`); on a text layer
a label with nothing after it is a form field left blank, not a value lost.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from docflow.extract.base import Evidence, FoundField
from docflow.extract.declarations.kinds import (
    ADDRESS,
    AMOUNT,
    CHECKBOX,
    DATE,
    ENUM,
    ID,
    NUMBER,
    PARTY,
    PERCENT,
    TEXT,
)
from docflow.extract.declarations.labels import READ_AS
from docflow.extract.declarations.model import FieldDecl, TypeDecl
from docflow.extract.declarations.values import normalize
from docflow.extract.rules_engine.field_labels import Hit, LabelIndex
from docflow.extract.rules_engine.layout import Cell, Page, below, right_of
from docflow.extract.rules_engine.printed import TICKED, UNTICKED, read_value
from docflow.extract.rules_engine.segments import UNSURE
from docflow.extract.rules_engine.table_header import find_header
from docflow.extract.rules_engine.tables import read_table

SAME_LINE, UNDER, PATTERN = 0.90, 0.85, 0.85
NOTHING = "nothing printed"
# Kinds whose label must start its cell (or follow a box): a word in a sentence is no label.
_FREE = (TEXT, PARTY, ADDRESS)
_WORDS = (*_FREE, ID, ENUM)
_FIGURES = (AMOUNT, NUMBER, PERCENT, DATE)
SHORT = 10  # words: free text longer than this is a sentence
# What stands between a label and its value (a minus before a digit is the value's sign).
_LEAD = re.compile(r"(?:[\s:.=#]|-(?!\d))*")


def read_declared(
    decl: TypeDecl,
    layouts: Sequence[Page],
    factors: Mapping[int, float],
    ocr: Mapping[int, bool],
    order: str | None = None,
) -> tuple[dict[str, FoundField], list[dict[str, str]]]:
    """The type's fields without built-in labels that these pages print, and the ones whose
    label was found and whose value did not read (`rejected`)."""
    fields = [f for f in decl.fields if f.name not in READ_AS]
    index = LabelIndex([f for f in decl.fields if not f.is_table])
    found: dict[str, FoundField] = {}
    rejected: list[dict[str, str]] = []
    # A table's header line (`Date  Details  Amount`) holds no scalar field's label and value.
    headers = {
        (lay.number, header.line)
        for f in fields
        if f.is_table
        for lay in layouts
        if (header := find_header(f.columns, lay, ocr.get(lay.number, False))) is not None
    }
    for f in fields:
        if f.is_table:
            table = read_table(f, layouts, factors, ocr, index, order)
            if table is not None:
                found[f.name] = table
            continue
        value, error = read_field(f, layouts, index, factors, ocr, order, headers)
        if value is not None:
            found[f.name] = value
        elif error is not None:
            reason = f"label found, value unreadable: {error}"
            rejected.append({"field": f.name, "reason": reason})
    return found, rejected


@dataclass(frozen=True)
class _Candidate:
    value: str
    confidence: float
    page: int
    box: list[float] | None
    raw: str
    evidence: Evidence


def read_field(
    decl: FieldDecl,
    layouts: Sequence[Page],
    index: LabelIndex,
    factors: Mapping[int, float],
    ocr: Mapping[int, bool],
    order: str | None = None,
    headers: Collection[tuple[int, int]] = (),
) -> tuple[FoundField | None, str | None]:
    """(the field, None), or (None, why a label's value did not read), or (None, None);
    `headers` are the (page, line)s of tables' headers, where no label counts."""
    found: list[_Candidate] = []
    errors: list[str] = []
    for lay in layouts:
        scanned = ocr.get(lay.number, False)
        for cell in lay.cells():
            if (lay.number, cell.line) in headers:
                continue
            hits = index.hits(cell.text, scanned)
            for i, hit in enumerate(hits):
                if hit.field != decl.name or (decl.kind in _WORDS and not _leads(cell, hit)):
                    continue
                stop = hits[i + 1].start if i + 1 < len(hits) else len(cell.text)
                got = _at_label(decl, lay, cell, hit, stop, index, scanned, factors, order)
                if isinstance(got, _Candidate):
                    found.append(got)
                elif scanned or got != NOTHING:
                    errors.append(got)
    if not found and decl.pattern:
        found = _by_pattern(decl, layouts, factors)
    if not found:
        return None, (errors[0] if errors else None)
    best = found[0]
    values = {c.value for c in found}
    confidence = min(best.confidence, UNSURE) if len(values) > 1 else best.confidence
    evidence: Evidence = {**best.evidence, "rivals": len(values) > 1, "values": len(values)}
    field = FoundField(
        best.value, confidence, best.page, box=best.box, raw=best.raw, evidence=evidence
    )
    return field, None


def _at_label(
    decl: FieldDecl,
    lay: Page,
    cell: Cell,
    hit: Hit,
    stop: int,
    index: LabelIndex,
    ocr: bool,
    factors: Mapping[int, float],
    order: str | None,
) -> _Candidate | str:
    """The value by this label: in its cell, the next cell, or under it; else why not."""
    rest = cell.text[hit.end : stop]
    lead = m.end() if (m := _LEAD.match(rest)) else 0
    places: list[tuple[Cell, int, int, float]] = []
    printed = bool(rest.strip(" :.-=\t"))
    # Free text after its label in one cell only behind a colon: `Claimant: Jane Doe`, not
    # `Claimant agrees to the terms`.
    if printed and (decl.kind not in _FREE or ":" in rest[:lead]):
        places.append((cell, hit.end + lead, stop, SAME_LINE))
    before = cell.text[max(0, hit.start - 4) : hit.start]
    if decl.kind == CHECKBOX and (TICKED.search(before) or UNTICKED.search(before)):
        places.append((cell, max(0, hit.start - 4), hit.start, SAME_LINE))  # `[x] Label`
    # A figure's label may carry a qualifier in its cell (`Total Sales (excl. GST) || 60.91`).
    others: list[tuple[Cell, float]] = []
    if not places or (printed and decl.kind in _FIGURES):
        right = right_of(lay, cell)
        if right is not None and not index.starts_line(right.text, ocr):
            others.append((right, SAME_LINE))
    if not printed and decl.kind != CHECKBOX:
        for _down, under in below(lay, cell, max_lines=2):
            if not index.starts_line(under.text, ocr):
                others.append((under, UNDER))
            break
    # A heading over a paragraph (`Governing Law` over `This Agreement shall be ...`) is no
    # label and its value: free text from another cell is a few words.
    places += [
        (other, 0, len(other.text), base)
        for other, base in others
        if decl.kind not in _FREE or len(other.text.split()) <= SHORT
    ]
    error = NOTHING
    for where, start, end, base in places:
        text = where.text[start:end]
        reading = read_value(decl.kind, text, decl.values, decl.pattern, order)
        if reading.value is None:
            if reading.error and text.strip(" :.-=\t"):
                error = reading.error
            continue
        words = where.words_confidence(start, end) if ocr else None
        factor = factors.get(lay.number, 1.0) if words is None else min(1.0, words + 0.04)
        evidence: Evidence = {
            "source": "declared-label",
            "position": base,
            "label": round(hit.quality, 3),
            "form": reading.scale,
            "ocr": round(factor, 3),
        }
        confidence = base * hit.quality * reading.scale * factor
        box = where.sub_box(start, end)
        return _Candidate(reading.value, confidence, lay.number, box, where.text, evidence)
    return error


def _leads(cell: Cell, hit: Hit) -> bool:
    """The label starts its cell: nothing but a box, a bullet or a number before it."""
    return not re.sub(r"[\W\d_xX☐☑✓✔☒]+", "", cell.text[: hit.start])


def _by_pattern(
    decl: FieldDecl, layouts: Sequence[Page], factors: Mapping[int, float]
) -> list[_Candidate]:
    """The field's pattern where it matches one value on the pages (the same value printed
    twice is one); two different values are no reading."""
    assert decl.pattern is not None
    pattern = re.compile(rf"(?<!\w)(?:{decl.pattern})(?!\w)")
    found: list[_Candidate] = []
    for lay in layouts:
        for cell in lay.cells():
            for m in pattern.finditer(cell.text):
                value, _error = normalize(decl.kind, m[0], decl.values, decl.pattern)
                if value is None:
                    continue
                factor = factors.get(lay.number, 1.0)
                evidence: Evidence = {
                    "source": "pattern",
                    "position": PATTERN,
                    "ocr": round(factor, 3),
                }
                box = cell.sub_box(m.start(), m.end())
                found.append(
                    _Candidate(value, PATTERN * factor, lay.number, box, cell.text, evidence)
                )
    return found if len({c.value for c in found}) == 1 else []
