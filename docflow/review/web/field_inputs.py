"""The review page's key-field inputs, one per field the document's type declares
(`docflow/extract/declarations/model.py`), in declaration order, each the input its kind asks for.

A date is a date picker, an enum a select of its values, a checkbox a checkbox, an amount,
number or percent a text input a phone opens with its decimal keypad, an address a text area,
anything else a text input; each with the field's description as its hint and the value the
engine read, its confidence and page. A declared field the engine did not read gets an empty
input, so a reviewer can add it. A table field is a table of inputs (`table_input.html`): a row
per row read, an input per column by its kind, a "Remove" tick per row and three blank rows to
add; no script, so the page works without JavaScript.

Names: `field.<name>` for a scalar, `table.<field>.<row>.<column>` and
`table.<field>.<row>.remove` for a table (read by `docflow.review.decision_form`). A checkbox
sends a hidden input before it (`false` where the value was read, "" where it was not), so an
unticked box says "false" without making a correction of a field nobody read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from docflow.document import DocumentSummary, Field
from docflow.extract.declarations.kinds import (
    ADDRESS,
    AMOUNT,
    CHECKBOX,
    DATE,
    ENUM,
    NUMBER,
    PERCENT,
)
from docflow.extract.declarations.labels import BUILTIN_KINDS
from docflow.extract.declarations.model import Column, FieldDecl, TypeDecl
from docflow.review.decision_form import TypedRow
from docflow.review.stage.masking import masked_value
from docflow.review.web.einvoice_view import check_text
from docflow.suppliers.shown import SOURCES

BLANK_ROWS = 3  # rows a reviewer may add to a table in one go (submit, and three more come)
# Words a field's name holds that are written in capitals (`po_number` is the "PO number").
_ACRONYMS = {"po": "PO", "iban": "IBAN", "vat": "VAT", "id": "ID", "ssn": "SSN"}
_DECIMAL = (AMOUNT, NUMBER, PERCENT)


def field_label(name: str) -> str:
    """A field's name as a person reads it: `po_number` -> "PO number"."""
    words = [_ACRONYMS.get(w, w) for w in name.split("_")]
    first = words[0] if words[0].isupper() else words[0].capitalize()
    return " ".join([first, *words[1:]])


def input_of(kind: str) -> str:
    """The input a kind is typed in: date, select, checkbox, decimal, textarea or text."""
    if kind == DATE:
        return "date"
    if kind == ENUM:
        return "select"
    if kind == CHECKBOX:
        return "checkbox"
    if kind in _DECIMAL:
        return "decimal"
    return "textarea" if kind == ADDRESS else "text"


class ColumnInput(TypedDict):
    """A table column's input on the page: its name, label, kind, input, an enum's options,
    whether it must be filled, and its hint."""

    name: str
    label: str
    kind: str
    input: str
    options: list[str]
    required: bool
    hint: str


class TableRowInput(TypedDict):
    """A table row on the page: its place (`index`, 0-based; `number`, as shown), its cells
    masked, a checkbox cell's unticked value, whether it is marked removed and was read."""

    index: int
    number: int
    cells: dict[str, str]
    unticked: dict[str, str]
    remove: bool
    read: bool


@dataclass
class FieldRow:
    """One key field's input on the page: what it is (name, label, kind, the input its kind
    asks for, a hint), what was read (the value as the page shows it, confidence, page, where
    as CSS over the preview, from where, who corrected it), what is said beside it (its
    checks, a refusal's message), and what its kind adds (an enum's options, a checkbox's
    state, a table's columns and rows). `href` is set where the page places its outline."""

    name: str
    label: str
    kind: str
    input: str
    hint: str
    value: str
    confidence: float | None
    page: int | None
    low: bool
    checks: list[str]
    error: str
    box: str
    found: bool
    source: str
    corrected_by: str
    options: list[str] = field(default_factory=list)
    checked: bool = False
    unticked: str = ""
    columns: list[ColumnInput] = field(default_factory=list)
    rows: list[TableRowInput] = field(default_factory=list)
    href: str = ""


def fields_rows(
    summary: DocumentSummary,
    submitted: Mapping[str, str],
    errors: Mapping[str, str],
    decl: TypeDecl | None = None,
    tables: Mapping[str, Sequence[TypedRow]] | None = None,
) -> list[FieldRow]:
    """The key fields as the page shows them: every declared field (read or not), then any
    other field read or named by a check; the low ones marked; what a reviewer submitted kept
    when the form comes back with a problem. Without a declaration (a type the rules file
    declares no fields for): the fields read and checked, as the rules engine knows them."""
    fields = summary.fields or {}
    checks: dict[str, list[str]] = {}
    for check in summary.checks:
        checks.setdefault(check.field, []).append(check_text(check))
    declared = decl.names if decl is not None else ()
    known = dict.fromkeys((*declared, *(BUILTIN_KINDS if decl is None else ()), *fields))
    names = [n for n in known if n in declared or n in fields or n in checks]
    # A check's message names the field by its label, not its code name.
    checks = {n: [m.replace(n, field_label(n)) for m in ms] for n, ms in checks.items()}
    rows = []
    for name in names:
        found = fields.get(name)
        spec = decl.get(name) if decl is not None else None
        kind = spec.kind if spec is not None else BUILTIN_KINDS.get(name, "text")
        # The extracted value passes the detectors like the page text; a reviewer's own
        # submitted value comes back as typed, but for a detected number (refused, masked).
        read = found.value if found else None
        value = masked_value(submitted[name] if name in submitted else str(read or ""))
        row = FieldRow(
            name=name,
            label=field_label(name),
            kind=kind,
            input="table" if spec is not None and spec.is_table else input_of(kind),
            hint=(spec.description if spec is not None else "")
            or str(found.more.get("description") or "" if found else ""),
            value=value,
            confidence=found.confidence if found else None,
            page=found.page if found else None,
            low=name in checks,
            checks=checks.get(name, []),
            error=errors.get(name, ""),
            # Where it was read, as CSS over the page preview ("" when not known).
            box=box_style(found.box if found else None),
            found=bool(read),
            source=SOURCES.get(found.source if found else "", ""),
            # An earlier stage's reviewer typed it: said instead of a confidence.
            corrected_by=(found.corrected_by or "") if found else "",
        )
        if spec is not None:
            _by_kind(row, spec, found, (tables or {}).get(name))
        rows.append(row)
    return rows


def _by_kind(
    row: FieldRow, spec: FieldDecl, found: Field | None, typed: Sequence[TypedRow] | None
) -> None:
    """What the field's input needs beyond a value: an enum's options, a checkbox's state, a
    table's columns and rows."""
    if spec.kind == ENUM:
        row.options = list(spec.values)
    elif spec.kind == CHECKBOX:
        row.checked = row.value == "true"
        row.unticked = "false" if found and found.value else ""
    elif spec.is_table:
        row.columns = [_column(c) for c in spec.columns]
        row.rows = _table_rows(spec, found, typed)


def _column(column: Column) -> ColumnInput:
    return {
        "name": column.name,
        "label": field_label(column.name),
        "kind": column.kind,
        "input": input_of(column.kind),
        "options": list(column.values),
        "required": column.required,
        "hint": column.description,
    }


def _table_rows(
    spec: FieldDecl, found: Field | None, typed: Sequence[TypedRow] | None
) -> list[TableRowInput]:
    """The table's rows on the page: as the reviewer sent them when the form comes back (each
    at its own number, which a message names), else the rows read; then blank rows to add."""
    read = [dict(r) for r in (found.rows if found else None) or () if isinstance(r, Mapping)]
    if typed is not None:
        shown = [(r.index, dict(r.cells), r.remove) for r in sorted(typed, key=lambda r: r.index)]
    else:
        shown = [(i, cells, False) for i, cells in enumerate(read)]
    rows = [_row(spec, i, cells, remove, i < len(read)) for i, cells, remove in shown]
    trailing = 0
    for row in reversed(rows):
        if row["read"] or any(row["cells"].values()):
            break
        trailing += 1
    after = rows[-1]["index"] + 1 if rows else 0
    rows += [_row(spec, after + k, {}, False, False) for k in range(BLANK_ROWS - trailing)]
    return rows


def _row(
    spec: FieldDecl, index: int, cells: Mapping[str, str], remove: bool, read: bool
) -> TableRowInput:
    values = {c.name: masked_value(str(cells.get(c.name) or "")) for c in spec.columns}
    return {
        "index": index,
        "number": index + 1,
        "cells": values,
        # A checkbox cell sends "false" unticked only where it held a value.
        "unticked": {name: "false" if v else "" for name, v in values.items()},
        "remove": remove,
        "read": read,
    }


def box_style(box: Any) -> str:
    """A field's box `[x0, y0, x1, y1]` (page-relative, top-left origin) as the outline's
    position in percent of the preview, or "" when there is no usable box."""
    if not isinstance(box, list | tuple) or len(box) != 4:
        return ""
    try:
        x0, y0, x1, y1 = (min(1.0, max(0.0, float(v))) for v in box)
    except (TypeError, ValueError):
        return ""
    if x1 <= x0 or y1 <= y0:
        return ""
    return (
        f"left:{x0 * 100:.2f}%;top:{y0 * 100:.2f}%;"
        f"width:{(x1 - x0) * 100:.2f}%;height:{(y1 - y0) * 100:.2f}%"
    )
