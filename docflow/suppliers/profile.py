"""A layout's learned profile: where its documents print each field, after which label, in
which shape; learned from approved reviews, read on that layout's next documents (first as a
shadow read the person's values grade, then, once trusted, as values: docflow.suppliers.trust).

`learn_entry` turns a confirmed value and the page layout into a profile entry; `read` finds a
field where an entry says. Both are pure (layouts in, values out); the store's conditional
write and the extract hook decide what to do with them.

A profile read counts only when all three agree: the entry's label is on the page, the value
after it has the entry's shape, and it lies where the entry says from that label (its
`offset`, within MARGIN: the label and its value move together when a longer address or an
extra line pushes them down); an entry learned before offsets, in its region. Dates keep
their kind as shape; amounts their kind and printed form (`amount,2`: a decimal comma and two
places; `amount0`: no decimals), since a supplier prints its amounts one way and a misread
(`27/10/2011` taken for `27102011`) rarely keeps that form; ids and numbers get a pattern
(`E\\d{13}`, `INV-\\d{4}-\\d{3}`). An entry learned before amounts had a form (`amount`)
takes any amount.

On a scan, OCR confuses letters and digits (`O`/`0`, `S`/`5`, `B`/`8`, `I`/`1`): a value that
misses its shape only by such letters is read repaired (`docflow.suppliers.ocr_repair`) where
the repaired value then fits it (an id's learned pattern; a date that parses; an amount of the
learned printed form), and marked `repaired`. A repaired amount is given only where, with it,
net + tax = total (`docflow.suppliers.layout_read`).

The issuer's name is a constant of the layout (`value`): read where a line outside the
customer's block prints it, as people confirmed it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from rapidfuzz import fuzz

from docflow.extract.declarations.kinds import AMOUNT, DATE, ID
from docflow.extract.declarations.labels import READ_AS
from docflow.extract.declarations.parse import find_amounts, find_dates, fold
from docflow.extract.rules_engine.layout import Cell, Page, below, right_of
from docflow.extract.rules_engine.vendor import customer_cells
from docflow.suppliers.ocr_repair import amount_repaired, date_repaired, repaired_id
from docflow.suppliers.shapes import ProfileEntry

PARTY = "party"
LEARNED_KINDS = (ID, DATE, AMOUNT)
CONSTANTS = ("vendor_name",)  # fields a layout prints the same every time
MARGIN = 0.08  # page-relative slack around a learned region, or around a learned offset
DRIFT = 0.2  # how far a label may move on the page (lines added over it) and still be read
LABEL_SCORE = 90.0  # rapidfuzz ratio between a printed label and the learned one
NAME_SCORE = 90.0  # rapidfuzz partial ratio of a constant (a name) within a printed line
SCAN_NAME_SCORE = 85.0  # the same within a line OCR read (a letter or two misread)


@dataclass(frozen=True)
class Located:
    value: str
    label: str
    box: list[float]
    page: int
    printed: str = ""  # the value as printed (an amount's shape is its printed form)
    ocr: float | None = None  # the OCR confidence of the value's own words (None: text layer)
    anchor: tuple[float, float] | None = None  # the top left of its label's cell
    repaired: bool = False  # OCR's letters put back to the digits the shape wants


def amount_form(printed: str) -> str:
    """How an amount is printed: its decimal mark and places (`,2`, `.2`), or `0` for none."""
    m = re.search(r"([.,])(\d{1,3})\s*$", printed)
    if m is None or len(m[2]) == 3:  # `1.234` is a thousands mark, not three places
        return "0"
    return f"{m[1]}{len(m[2])}"


def shape_of(value: str, kind: str, printed: str = "") -> str:
    """A regular expression for an id's printed form; the kind for dates; the kind and the
    printed form for amounts."""
    if kind == AMOUNT and printed:
        return f"{AMOUNT}{amount_form(printed)}"
    if kind != ID:
        return kind
    out, first = [], True
    for run in re.finditer(r"[A-Za-z]+|\d+|[^A-Za-z\d]+", value):
        text = run[0]
        if text.isdigit():
            out.append(rf"\d{{{len(text)}}}")
        elif text.isalpha():
            # A leading prefix is the supplier's constant (`E`, `INV`); later letters vary.
            out.append(re.escape(text.upper()) if first else f"[A-Z]{{{len(text)}}}")
        else:
            out.append(re.escape(text))
        first = False
    return "".join(out)


def _token_value(
    text: str, kind: str, shape: str | None, repair: bool = False
) -> tuple[str, int, int] | None:
    """The first value of `kind` (and `shape`, for ids and amounts) in `text`: (normal
    form, span). `repair`: an id, a date or an amount whose digits OCR read as letters is
    read with them put back (`docflow.suppliers.ocr_repair`)."""
    if kind == ID:
        tokens = list(re.finditer(r"[A-Za-z0-9][A-Za-z0-9\-/._]*[A-Za-z0-9]|[A-Za-z0-9]", text))
        for m in tokens:
            token = m[0].upper()
            if shape is None or re.fullmatch(shape, token):
                return token, m.start(), m.end()
        if repair and shape is not None:
            for m in tokens:
                fixed = repaired_id(m[0], shape)
                if fixed is not None:
                    return fixed, m.start(), m.end()
        return None
    if kind == AMOUNT:
        if repair:
            text = amount_repaired(text)  # the same length: spans stay the printed ones
        for amount in find_amounts(text):
            end = amount.end if amount.end >= 0 else len(text)
            form = f"{AMOUNT}{amount_form(text[amount.start : end])}"
            if shape in (None, AMOUNT) or shape == form:
                return amount.value, amount.start, end
        return None
    if kind == DATE:
        dates = find_dates(text)
        if not dates and repair:
            dates = find_dates(date_repaired(text))
        return (dates[0].iso, dates[0].start, len(text)) if dates else None
    return None


def _same(kind: str, printed: str, value: str) -> bool:
    if kind == AMOUNT:
        try:
            return Decimal(printed) == Decimal(str(value))
        except InvalidOperation:
            return False
    return printed.upper() == str(value).upper()


def _is_value(token: str) -> bool:
    """A printed value of its own (a date, a number), not a rate inside a label (`19,00%`)."""
    return sum(c.isdigit() for c in token) >= 4 and "%" not in token


def _label_text(before: str) -> str:
    """A label from the text before a value: only the words after its last printed value
    (`Datum: 20 april 2022 Nummer:` labels the number after it `Nummer`, not the date)."""
    numbers = [m for m in re.finditer(r"\S*\d\S*", before) if _is_value(m[0])]
    own = before[numbers[-1].end() :] if numbers else before
    return own.strip(" :#.-\t*")


def _label_before(page: Page, cell: Cell, start: int) -> tuple[str, Cell | None]:
    """The label of a value at `cell.text[start:]` and the cell it is printed in: the words
    before it in its cell, else the cell to its left, else the cell over it."""
    own = _label_text(cell.text[:start])
    if sum(c.isalpha() for c in own) >= 2:
        return own, cell
    left = [c for c in page.lines[cell.line] if c.x1 <= cell.x0 + 1e-6]
    if left:
        label = max(left, key=lambda c: c.x1)
        return _label_text(label.text), label
    for line in range(cell.line - 1, max(-1, cell.line - 3), -1):
        for other in page.lines[line]:
            if min(cell.x1, other.x1) - max(cell.x0, other.x0) > 0:
                return _label_text(other.text), other
    return "", None


def _offset(box: Sequence[float], anchor: tuple[float, float]) -> list[float]:
    """Where a value's box centre lies from its label cell's top left, page-relative."""
    return [
        round((box[0] + box[2]) / 2 - anchor[0], 4),
        round((box[1] + box[3]) / 2 - anchor[1], 4),
    ]


def locate(layouts: Sequence[Page], kind: str, value: str) -> Located | None:
    """Where a confirmed value is printed (the first place), with the label before it."""
    for page in layouts:
        for cell in page.cells():
            found = _token_value(cell.text, kind, None)
            spans: list[tuple[str, int, int]] = []
            if kind == ID:
                spans = [
                    (m[0].upper(), m.start(), m.end())
                    for m in re.finditer(r"[A-Za-z0-9][A-Za-z0-9\-/._]*[A-Za-z0-9]", cell.text)
                ]
            elif found:
                spans = [found]
            for normal, start, end in spans:
                if _same(kind, normal, value):
                    label, at = _label_before(page, cell, start)
                    box = cell.sub_box(start, end) or [cell.x0, cell.y0, cell.x1, cell.y1]
                    return Located(
                        normal,
                        label,
                        [round(v, 4) for v in box],
                        page.number,
                        printed=cell.text[start:end].strip(),
                        anchor=(at.x0, at.y0) if at is not None else None,
                    )
    return None


def _named_in(layouts: Sequence[Page], value: str) -> tuple[Cell, int, float | None] | None:
    """The first line outside the customer's block that prints `value` (a name, folded;
    OCR may misread a letter): its first cell, its page, and its words' OCR confidence."""
    want = " ".join(fold(value).split())
    if len(want) < 4:
        return None
    for page in layouts:
        customer = customer_cells(page)
        for line in page.lines:
            cells = [c for c in line if id(c) not in customer]
            text = " ".join(fold(" ".join(c.text for c in cells)).split())
            scores = [w.confidence for c in cells for w in c.words if w.confidence is not None]
            enough = SCAN_NAME_SCORE if scores else NAME_SCORE
            if len(text) >= len(want) and fuzz.partial_ratio(want, text) >= enough:
                ocr = min(scores) / 100 if scores else None
                return cells[0], page.number, ocr
    return None


def _constant_entry(layouts: Sequence[Page], value: str) -> ProfileEntry | None:
    found = _named_in(layouts, value)
    if found is None:
        return None
    cell, page, _ocr = found
    box = [round(v, 4) for v in (cell.x0, cell.y0, cell.x1, cell.y1)]
    return ProfileEntry(value=value[:200], label="", region=box, page=page, shape=PARTY)


def learn_entry(layouts: Sequence[Page], name: str, value: str) -> ProfileEntry | None:
    if name in CONSTANTS:
        return _constant_entry(layouts, value) if value else None
    kind = READ_AS.get(name)
    if kind not in LEARNED_KINDS or not value:
        return None
    where = locate(layouts, kind, value)
    # A label is words: a table's previous column (`1`, `€`) is no label to read after.
    if where is None or sum(c.isalpha() for c in where.label) < 3:
        return None
    entry = ProfileEntry(
        label=where.label[:80],
        region=where.box,
        page=where.page,
        shape=shape_of(where.value, kind, where.printed),
    )
    if where.anchor is not None:
        entry["offset"] = _offset(where.box, where.anchor)
    return entry


def _placed(box: Sequence[float], label: Cell, entry: ProfileEntry) -> float | None:
    """How far the label lies from where it was learned, when the value lies where the entry
    says: from its label as learned (a longer address or an extra line moves both); for an
    entry learned before offsets, 0.0 inside its region. None: not there."""
    offset = entry.get("offset")
    if not offset:
        return 0.0 if _inside(box, entry["region"]) else None
    dx, dy = _offset(box, (label.x0, label.y0))
    if abs(dx - float(offset[0])) > MARGIN or abs(dy - float(offset[1])) > MARGIN:
        return None
    # The label itself may move with the lines over it, not across the page (the same label
    # in another part of the page is another layout).
    region = entry["region"]
    x = (region[0] + region[2]) / 2 - float(offset[0])
    y = (region[1] + region[3]) / 2 - float(offset[1])
    if abs(label.x0 - x) > DRIFT or abs(label.y0 - y) > DRIFT:
        return None
    return abs(label.x0 - x) + abs(label.y0 - y)


def _inside(box: Sequence[float], region: Sequence[float]) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return (
        region[0] - MARGIN <= cx <= region[2] + MARGIN
        and region[1] - MARGIN <= cy <= region[3] + MARGIN
    )


def _label_in(text: str, label: str) -> int | None:
    """Where the learned label ends in `text` (fuzzily, for OCR), or None."""
    folded, want = fold(text), fold(label)
    index = folded.find(want)
    if index >= 0:
        return index + len(want)
    head = folded[: len(want)]
    # OCR misreads a letter; a different number is a different label (`IVA 27%` is not
    # `IVA 21%`, whose ratio is 90).
    digits = [c for c in head if c.isdigit()] == [c for c in want if c.isdigit()]
    if digits and fuzz.ratio(head, want) >= LABEL_SCORE:
        return len(want)
    return None


def read_constant(layouts: Sequence[Page], value: str) -> Located | None:
    """A layout's constant (its issuer's name) where a line outside the customer's block
    prints it, or None."""
    found = _named_in(layouts, value)
    if found is None:
        return None
    cell, page, ocr = found
    return Located(value, "", list(cell.box or [0.0, 0.0, 0.0, 0.0]), page, value, ocr)


def read(layouts: Sequence[Page], name: str, entry: ProfileEntry) -> Located | None:
    """The field's value where the profile entry says it is, or None. A label printed twice
    (`vom` after the invoice's number and after the order's) is the one nearest its place.
    On a scan a value may be read repaired (the module's docstring)."""
    if entry.get("suspended") or entry.get("absent"):
        return None
    if entry.get("value"):
        return read_constant(layouts, str(entry["value"]))
    kind = READ_AS.get(name)
    if kind not in LEARNED_KINDS:
        return None
    shape = entry["shape"] if kind in (ID, AMOUNT) else None
    found: list[tuple[float, int, Located]] = []
    for page in layouts:
        if page.number != int(entry.get("page", 1)):
            continue
        for cell in page.cells():
            end = _label_in(cell.text, str(entry["label"]))
            if end is None:
                continue
            places: list[tuple[Cell, int]] = [(cell, end)]
            if (right := right_of(page, cell)) is not None:
                places.append((right, 0))
            places.extend((under, 0) for _d, under in below(page, cell, max_lines=2))
            for where, offset in places:
                scanned = any(w.confidence is not None for w in where.words)
                token = _token_value(where.text[offset:], kind, shape)
                repaired = token is None and scanned
                if repaired:
                    token = _token_value(where.text[offset:], kind, shape, repair=True)
                if not token:
                    continue
                value, start, stop = token
                box = where.sub_box(offset + start, offset + stop) or [
                    where.x0,
                    where.y0,
                    where.x1,
                    where.y1,
                ]
                far = _placed(box, cell, entry)
                if far is None:
                    continue
                at = offset + start, offset + stop
                ocr = where.words_confidence(*at) if scanned else None
                printed = where.text[at[0] : at[1]].strip()
                located = Located(
                    value,
                    str(entry["label"]),
                    list(box),
                    page.number,
                    printed=printed,
                    ocr=ocr,
                    repaired=repaired,
                )
                found.append((far, len(found), located))
                break  # the first place after this label that fits
    return min(found)[2] if found else None
