"""A table field's rows, read from the word boxes under its header (`table_header.py`).

Under the header a cell that lies under exactly one header cell goes to that column whole; any
other word goes to the column its x-centre falls in. The rows run until a line that fits no
row: a totals line (`Subtotal`, `Total due`, a label of one of the type's own fields such as
`Closing balance`), a blank band taller than `GAP_LINES` line heights, a running footer (`Page
1/2`), or the page's end; a line naming a field the table's checks hold it against (`01.03.
Balance brought forward 1,000.00` where `opening_balance` is so labelled) is no row. A line
with words in text columns only and no amount is a wrapped description: it joins the row above;
a line with words under undeclared columns only, or with no digit before the first row (the
header's second line), is passed over. Where the next page prints the header again the table
goes on there.

Each cell is read by its column's kind (`printed.read_value`); a row whose required column is
blank or does not read is dropped and counted. The confidence is the share of printed cells
that made it into a kept row, times `READ` and the pages' OCR factor, so a table with a
misread cell or a lost row goes to a person.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from docflow.extract.base import Evidence, FoundField
from docflow.extract.declarations.kinds import ADDRESS, PARTY, TEXT
from docflow.extract.declarations.model import FieldDecl
from docflow.extract.declarations.values import MAX_ROWS
from docflow.extract.rules_engine.field_labels import LabelIndex
from docflow.extract.rules_engine.layout import Page
from docflow.extract.rules_engine.matching import find_labels
from docflow.extract.rules_engine.printed import read_value
from docflow.extract.rules_engine.table_header import Header, Token, find_header, tokens_of

READ = 0.95  # a table whose every cell read, on a text layer
GAP_LINES = 3.0
# A description's second line sits right under its first; text further down is no part of it.
WRAP_GAP_LINES = 1.2
_TEXT_KINDS = (TEXT, PARTY, ADDRESS)
_TOTALS = {"net_amount", "tax_amount", "total_amount"}
_CENTS = re.compile(r"\d[.,]\d{2}(?!\d)")
# A running footer (`Page 1/2`, `Seite 1 von 2`): the page's table has ended.
_PAGE_FOOTER = re.compile(
    r"\b(?:page|seite|pagina|página|blatt)\s*\d+\s*(?:/|of|von|van|de|di|sur)\s*\d+",
    re.IGNORECASE,
)


def read_table(
    decl: FieldDecl,
    layouts: Sequence[Page],
    factors: Mapping[int, float],
    ocr: Mapping[int, bool],
    labels: LabelIndex,
    order: str | None = None,
) -> FoundField | None:
    """The table's rows from the first page that prints its header and the pages right after
    it that print it again; None where no page prints it or no line under it is a row."""
    raw: list[dict[str, str]] = []
    box: list[Token] = []
    pages: list[int] = []
    for lay in layouts:
        scanned = ocr.get(lay.number, False)
        header = find_header(decl.columns, lay, scanned)
        if header is None:
            if pages:
                break
            continue
        pages.append(lay.number)
        tokens = _rows(lay, header, scanned, raw, decl, labels)
        if len(pages) == 1 and all(c.has_box for c in lay.cells()):
            box = [*header.tokens, *tokens]
    if not raw:  # no header, or a header with nothing under it: no table read
        return None
    rows, cells, valid, dropped = _cells(decl, raw[:MAX_ROWS], order)
    factor = min(factors.get(p, 1.0) for p in pages)
    confidence = READ * (valid / cells if cells else 1.0) * factor
    evidence: Evidence = {
        "source": "table-header",
        "rows": len(rows),
        "dropped": dropped,
        "cells": cells,
        "valid": valid,
        "pages": pages,
        "ocr": round(factor, 3),
    }
    if len(raw) > MAX_ROWS:
        evidence["truncated"] = len(raw) - MAX_ROWS
    return FoundField(
        f"{len(rows)} rows",
        confidence,
        pages[0],
        box=_box(box),
        raw=" | ".join(" ".join(r.values()) for r in raw[:3]),
        evidence=evidence,
        rows=tuple(rows),
    )


def _rows(
    lay: Page,
    header: Header,
    ocr: bool,
    raw: list[dict[str, str]],
    decl: FieldDecl,
    labels: LabelIndex,
) -> list[Token]:
    """Adds the rows under this page's header to `raw`; the words they were read from."""
    kinds = {c.name: c.kind for c in decl.columns}
    checked = {name for check in decl.checks for name in check.fields()}
    used: list[Token] = []
    bottom = max(t.y1 for t in header.tokens)
    for line in lay.lines[header.line + 1 :]:
        tokens = tokens_of(line)
        if not tokens:
            continue
        top = min(t.y0 for t in tokens)
        gap = top - bottom
        if gap > GAP_LINES * lay.line_height:
            break
        text = " ".join(t.text for t in tokens)
        hits = labels.hits(text, ocr)
        starts = bool(hits) and not text[: hits[0].start].strip()
        if _totals(text, ocr) or starts or _PAGE_FOOTER.search(text):
            break
        bottom = max(t.y1 for t in tokens)
        if any(h.field in checked for h in hits):
            continue  # `01.03. Opening balance 1,000.00`: a figure the checks hold it against
        cells: dict[str, list[str]] = {}
        for token, name in _columns(header, tokens):
            if name is not None:
                cells.setdefault(name, []).append(token.text)
        # Words under undeclared columns only (an article number under `Ref.`), or a header's
        # second line (`(ex. BTW)`, `(EUR)`) before the first row: no row of the table.
        if not cells or (not used and not any(c.isdigit() for c in text)):
            continue
        row = {name: " ".join(words) for name, words in cells.items()}
        wrapped = all(kinds[n] in _TEXT_KINDS for n in row) and not _CENTS.search(text)
        if wrapped and raw and gap > WRAP_GAP_LINES * lay.line_height:
            break  # text set apart under the last row (`Signed by ...`): no row's second line
        if wrapped and raw:
            for name, value in row.items():
                above = raw[-1].get(name, "")
                raw[-1][name] = f"{above} {value}".strip()
        else:
            raw.append(row)
        used.extend(tokens)
    return used


def _columns(header: Header, tokens: Sequence[Token]) -> list[tuple[Token, str | None]]:
    """Each word's column: a cell of the line under exactly one header cell goes there whole
    (`Food Purchase - AnyCompany - 1194089245` under `Description`, however far it reaches);
    the words of any other cell go where their middles fall."""
    out: list[tuple[Token, str | None]] = []
    for index in dict.fromkeys(t.cell for t in tokens):
        words = [t for t in tokens if t.cell == index]
        x0, x1 = min(t.x0 for t in words), max(t.x1 for t in words)
        under = [s for s in header.spans if min(s.x1, x1) > max(s.x0, x0)]
        if len(under) == 1:
            out.extend((t, under[0].name) for t in words)
        else:
            out.extend((t, header.column_at(t.centre)) for t in words)
    return out


def _totals(text: str, ocr: bool) -> bool:
    """A totals line: it starts with a total's label and has at most one more word before its
    figures (`Total due 1,100.00`, `Tax (10%) 100.00`; not `Tax advisory services 300.00`)."""
    hits = find_labels(text, ocr)
    if not hits or hits[0].field not in _TOTALS or text[: hits[0].start].strip():
        return False
    before = re.split(r"\d", text[hits[0].end :], maxsplit=1)[0]
    return len(re.findall(r"[^\W\d_]{2,}", before)) <= 1


def _cells(
    decl: FieldDecl, raw: Sequence[Mapping[str, str]], order: str | None
) -> tuple[list[dict[str, str]], int, int, int]:
    """(rows in their columns' normal forms, printed cells, cells read into a kept row, rows
    dropped)."""
    rows: list[dict[str, str]] = []
    cells = valid = dropped = 0
    for printed in raw:
        row: dict[str, str] = {}
        keep = True
        for column in decl.columns:
            text = printed.get(column.name, "").strip()
            reading = read_value(column.kind, text, column.values, column.pattern, order)
            cells += bool(text)
            if text and reading.value is not None:
                row[column.name] = reading.value
            elif column.required:
                keep = False
        if keep and row:
            rows.append(row)
            valid += len(row)
        else:
            dropped += 1
    return rows, cells, valid, dropped


def _box(tokens: Sequence[Token]) -> list[float] | None:
    if not tokens:
        return None
    return [
        round(min(t.x0 for t in tokens), 4),
        round(min(t.y0 for t in tokens), 4),
        round(max(t.x1 for t in tokens), 4),
        round(max(t.y1 for t in tokens), 4),
    ]
