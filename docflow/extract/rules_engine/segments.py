"""What the labels on a page point at: `Segment`s (a label's field and the text its value is
read from, with the position score) and the `Candidate` values read from them.

Position scores, before the label's quality and the OCR factor:

    0.95  the value in the label's own cell, or the nearest cell to its right
    0.90  a weak label (a title: `INVOICE INV-1`, a generic `Date`)
    0.88  one line under its label (0.85, 0.82 further down)
    0.60  an amount under a table's column header (a line item, more often than a total)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docflow.extract.base import Evidence
from docflow.extract.declarations.kinds import AMOUNT, DATE, ID, TEXT
from docflow.extract.declarations.labels import READ_AS
from docflow.extract.declarations.parse import find_amounts, find_dates
from docflow.extract.rules_engine.layout import Cell, Page, below, right_of
from docflow.extract.rules_engine.matching import LabelHit, find_labels, fold_keep_length

SAME_LINE, NEXT_LINE, WEAK_LABEL, FALLBACK = 0.95, 0.88, 0.90, 0.70
HEADER = 0.6  # an amount under a column header of a table
UNSURE = 0.45
# What stands between a label and its value: `No.`, `Nr.`, `n°`, `#`, and OCR's readings of
# `nº` (`n2`, `n°`), which would otherwise be taken for the number itself.
_SKIP = re.compile(
    r"^[\s:#.\-=]*(?:(?:no|nr|num|number|nummer|numero|n2|n)\b\.?|n°|nº|#)?[\s:#.\-=]*",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Candidate:
    name: str
    value: str
    confidence: float
    page: int
    raw: str
    order: int
    box: list[float] | None = None
    repaired: str | None = None
    ocr: float = 1.0  # the OCR factor its confidence carries
    # Where the value came from (`source`, `position`, `label` quality, `form`), for the
    # calibration of its confidence (`docflow.extract.rules_engine.calibration`).
    evidence: Evidence = field(default_factory=Evidence, compare=False)


@dataclass(frozen=True)
class Segment:
    """A label's value text: in its own cell, to its right, or `down` lines under it."""

    field: str
    strong: bool
    text: str
    cell: Cell
    start: int  # where the value starts in `cell.text`
    order: int
    base: float
    quality: float
    ocr: bool
    starts_cell: bool


def _blank_beyond_rate(value: str) -> bool:
    return not any(c.isalnum() for c in re.sub(r"\(?\d+(?:[.,]\d+)?\s*%\)?", "", value))


def find_segments(page: Page, ocr: bool) -> list[Segment]:
    """Every label on the page with the value text it points at: in its cell, to its right,
    under it, or (for a title) in the cells beside it."""
    found: list[Segment] = []
    for line_cells in page.lines:
        # A row of several labels is a table's header: the amounts under it are line items
        # more often than totals, so they score lower (reconciliation may still pick them).
        leads = [_leading_label(c, ocr) for c in line_cells]
        led = [hit.field for hit in leads if hit is not None]
        header = len(led) >= 2
        # ... unless every label of the row names one of the document's amounts (`TOTAL HT |
        # TOTAL TVA | TOTAL TTC`, `Netto EUR | MwSt. EUR | Brutto EUR`): that row heads the
        # totals, one line of them, not the items.
        totals = header and len(set(led)) >= 2 and set(led) <= _TOTALS
        for position, cell in enumerate(line_cells):
            hits = find_labels(cell.text, ocr)
            for i, hit in enumerate(hits):
                if hit.field is None:
                    continue
                end = hits[i + 1].start if i + 1 < len(hits) else len(cell.text)
                rest = cell.text[hit.end : end]
                skip = _SKIP.match(rest)
                start = hit.end + (skip.end() if skip else 0)
                value = cell.text[start:end]
                order = page.number * 1_000_000 + cell.line * 100 + position * 10 + i
                starts = not cell.text[: hit.start].strip()
                base = SAME_LINE if hit.strong else WEAK_LABEL
                common = (hit.field, hit.strong)
                kind = READ_AS[hit.field]
                # A name's label starts its cell and has a colon before its value: `Lieferant
                # GmbH` and `LOGO Vendeur` are a name and a caption, not a label and a value.
                if kind == TEXT and (not starts or (value.strip() and ":" not in rest[:3])):
                    continue
                if not hit.strong and _names_another(hit, kind, rest, cell.text):
                    continue
                found.append(
                    Segment(
                        *common, value.strip(), cell, start, order, base, hit.quality, ocr, starts
                    )
                )
                if kind == ID and hit.field == "invoice_number":
                    found.extend(_date_after_number(cell, start, end, order, hit, ocr))
                # The cell's first label names it; later ones qualify it (`Total € incl. VAT`,
                # `Subtotaal ex. BTW`): only the first looks beside and under the cell, and only
                # when nothing after it in the cell is a value.
                lead = hit is next(h for h in hits if h.field)
                value = re.sub(r"^\s*\(\d{1,4}\)", "", value)  # `Handelsrechnung (380)`: a code
                tail = re.sub(r"^\s*\(\d{1,4}\)", "", cell.text[hit.end :])
                empty = _blank_beyond_rate(tail) if kind == TEXT else _no_digits(tail)
                # A label that ends its cell (`Positionen netto || 804,35`) has its value beside
                # it too.
                ends = kind != TEXT and (not value.strip(" :.-") or _no_digits(value))
                if lead and empty and kind == ID and not hit.strong:
                    found.extend(_number_to_the_right(page, cell, hit, order, ocr))
                if not (lead and empty and (starts or ends)):
                    continue
                if not (hit.strong or kind == DATE):
                    continue
                in_header = header and not totals and kind == AMOUNT
                found.extend(_neighbours(page, cell, common, order, hit.quality, ocr, in_header))
            named = [h for h in hits if h.field]
            if named and READ_AS[named[0].field or ""] == AMOUNT:
                found.extend(_amount_to_the_right(page, cell, named[0], ocr))
            if _PLACE_AND_DATE.search(cell.text) and (right := right_of(page, cell)) is not None:
                order = page.number * 1_000_000 + cell.line * 100 + position * 10
                found.append(
                    Segment(
                        "invoice_date",
                        False,
                        right.text,
                        right,
                        0,
                        order,
                        WEAK_LABEL,
                        1.0,
                        ocr,
                        True,
                    )
                )
    return found


_NUMBER_KEY = re.compile(r"^\s*(?:nr|no|n°|nº|#|number|numero|nummer)\.?\s*:?\s*", re.IGNORECASE)


def _number_to_the_right(
    page: Page, cell: Cell, hit: LabelHit, order: int, ocr: bool
) -> list[Segment]:
    """`Rechnung || Nr. 471102`: a title whose number stands in the next cell behind `Nr.`."""
    assert hit.field is not None
    right = right_of(page, cell)
    m = _NUMBER_KEY.match(right.text) if right is not None else None
    if right is None or not m or not m.group().strip():
        return []
    found = [
        Segment(
            hit.field,
            False,
            right.text[m.end() :],
            right,
            m.end(),
            order,
            WEAK_LABEL,
            hit.quality,
            ocr,
            True,
        )
    ]
    # `... || Nr. 47110815 || vom || 01.12.2025`: the date of the number, beside it.
    after = right_of(page, right)
    if after is not None and _DATE_OF.match(after.text):
        dated = after if find_dates(after.text) else right_of(page, after)
        if dated is not None and find_dates(dated.text):
            found.append(
                Segment(
                    "invoice_date",
                    True,
                    dated.text,
                    dated,
                    0,
                    order,
                    NEXT_LINE,
                    hit.quality,
                    ocr,
                    False,
                )
            )
    return found


# `München, den || 01.11.2024`: a letter's place and date, which is the invoice's date.
_PLACE_AND_DATE = re.compile(r"\w,\s*(?:den|le|el|il)$", re.IGNORECASE)
_DATE_OF = re.compile(r"^\s*(?:vom|von|du|del|de|dated|of|issued|den)\b", re.IGNORECASE)


# A generic `Date` qualified by a word before its colon names another date (`Date début :`,
# `Date fin :`: a service period); one printed with a page number is a running header's or
# footer's print stamp (`Datum: 30.10.2024 Zeit: 04:59:13 Seite: 1`), not the document's.
_QUALIFIED = re.compile(r"^\s*[^\W\d_]{2,}\.?\s*:")
_PAGE_NUMBER = re.compile(r"\b(?:seite|page|pagina|pag|blatt)\b\.?\s*:?\s*\d", re.IGNORECASE)


_WORD = re.compile(r"[^\W\d_]{2,}")


def _names_another(hit: LabelHit, kind: str, rest: str, cell: str) -> bool:
    """A weak label that, here, names something else than the document's field."""
    if kind == DATE:
        return bool(_QUALIFIED.match(rest) or _PAGE_NUMBER.search(fold_keep_length(cell)))
    # A bare `Nº` after a word is that word's number (`CAE Nº`, `SINIESTRO Nº`: an
    # authorization, a claim), not the document's.
    bare = len(cell[hit.start : hit.end].strip()) <= 3
    return kind == ID and bare and bool(_WORD.search(cell[: hit.start]))


def _no_digits(value: str) -> bool:
    return not any(c.isdigit() for c in re.sub(r"\(?\d+(?:[.,]\d+)?\s*%\)?", "", value))


def _amount_to_the_right(page: Page, cell: Cell, hit: LabelHit, ocr: bool) -> list[Segment]:
    """`USt. 19% auf 804,35 € || 152,83 €`: an amount label's cell holds a rate or a base, and
    the amount itself stands alone in the next cell; that reading is the stronger one."""
    assert hit.field is not None
    right = _right_of(page, cell, ocr)
    if right is not None and _no_digits(right.text):
        right = _right_of(page, right, ocr)  # `Nettobetrag || (zzgl. MwSt.) || 376,37`
    if right is None or not find_amounts(right.text) or _starts_with_label(right, ocr):
        return []
    if any(c.isalpha() for c in _CURRENCY_SIGNS.sub("", right.text)):
        return []
    order = page.number * 1_000_000 + cell.line * 100 + 99
    return [
        Segment(
            hit.field, hit.strong, right.text, right, 0, order, SAME_LINE, hit.quality, ocr, True
        )
    ]


# What may stand beside an amount in its cell: a code or a sign (`RM 68.87`, `Rs. 450`).
_CURRENCY_SIGNS = re.compile(r"[A-Z]{3}|€|\$|£|₹|\bRM\b|\bRs\.?|R\$|zł|\bkr\b")


def _right_of(page: Page, cell: Cell, ocr: bool) -> Cell | None:
    """The nearest cell to the right; on a scan, past specks OCR read as a letter or two
    (`Sub Total || o || RM 68.87`)."""
    right = right_of(page, cell)
    if ocr and right is not None and len(right.text.strip()) <= 2:
        return right_of(page, right) or right
    return right


def _date_after_number(
    cell: Cell, start: int, end: int, order: int, hit: LabelHit, ocr: bool
) -> list[Segment]:
    """`Rechnung Nr. RE-1 vom 09.05.2017`, `Invoice # 508 issued at 2020-11-21`: a date printed
    right after the invoice's number, in the same cell, is the invoice's date."""
    value = cell.text[start:end]
    parts = value.split(maxsplit=1)
    if len(parts) < 2 or not find_dates(parts[1][:40]):
        return []
    offset = start + value.index(parts[1])
    return [
        Segment(
            "invoice_date", True, parts[1], cell, offset, order, SAME_LINE, hit.quality, ocr, False
        )
    ]


def _neighbours(
    page: Page,
    cell: Cell,
    common: tuple[str, bool],
    order: int,
    quality: float,
    ocr: bool,
    in_header: bool = False,
) -> list[Segment]:
    """A label alone in its cell: the value may be the cell to its right or under it."""
    out = []
    right = _right_of(page, cell, ocr)
    if right is not None and not _starts_with_label(right, ocr):
        out.append(Segment(*common, right.text, right, 0, order, SAME_LINE, quality, ocr, True))
    if READ_AS[common[0]] == TEXT:
        out.extend(_name_under(page, cell, common, order, quality, ocr))
    for down, under in below(page, cell, max_lines=4):
        if _starts_with_label(under, ocr):
            break
        if under.text.rstrip().endswith(":"):  # a key of its own (`Nummer:`), not a value
            continue
        base = (HEADER if in_header else NEXT_LINE) - 0.03 * (down - 1)
        out.append(Segment(*common, under.text, under, 0, order, base, quality, ocr, True))
        break
    return out


_NAME_KEY = re.compile(
    r"^(?:name|company|firma|firmenname|nom|raison sociale|nombre|razon social|denominacion"
    r"|ragione sociale|denominazione|naam|bedrijfsnaam|nome|razao social)\s*:?\s*",
    re.IGNORECASE,
)


def _name_under(
    page: Page, cell: Cell, common: tuple[str, bool], order: int, quality: float, ocr: bool
) -> list[Segment]:
    """`Verkäufer` over a block of keys: the value of its `Name:` key is the name."""
    for _down, under in below(page, cell, max_lines=6):
        m = _NAME_KEY.match(fold_keep_length(under.text))
        if not m:
            continue
        if under.text[m.end() :].strip():
            return [
                Segment(
                    *common,
                    under.text[m.end() :].strip(),
                    under,
                    m.end(),
                    order,
                    NEXT_LINE,
                    quality,
                    ocr,
                    True,
                )
            ]
        right = right_of(page, under)
        if right is not None:
            return [Segment(*common, right.text, right, 0, order, NEXT_LINE, quality, ocr, True)]
    return []


_TOTALS = {"net_amount", "tax_amount", "total_amount"}


def _leading_label(cell: Cell, ocr: bool) -> LabelHit | None:
    """The label the cell starts with, if any."""
    hits = find_labels(cell.text, ocr)
    return hits[0] if hits and not cell.text[: hits[0].start].strip() else None


def _starts_with_label(cell: Cell, ocr: bool) -> bool:
    return _leading_label(cell, ocr) is not None
