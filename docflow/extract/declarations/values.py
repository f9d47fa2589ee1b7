"""A value of a declared kind in its normal form, from what a person typed or an engine answered.

Pure, so the review page (before it sends a decision), the orchestrator (reading a decision
back, defensively) and every engine (holding its answers to the declaration) run the same rules.
A table's rows are normalized cell by cell, by their columns' kinds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from docflow.extract.declarations.kinds import (
    ADDRESS,
    AMOUNT,
    CHECKBOX,
    CURRENCY,
    DATE,
    ENUM,
    ID,
    NUMBER,
    PARTY,
    PERCENT,
    TEXT,
)
from docflow.extract.declarations.parse import (
    MAX_AMOUNT_DIGITS,
    find_dates,
    format_amount,
    is_currency,
    parse_number,
    too_large,
)

_SYMBOLS = re.compile(r"[€$£¥]|\b[A-Za-z]{3}\b")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# The dot a detector's mask is made of (docflow.rules.detectors.DOT).
MASK = "•"
LIMITS = {ID: 64, TEXT: 200, PARTY: 200, ADDRESS: 400}
TRUE = {"true", "yes", "x", "✓", "✔", "☑", "1", "checked", "ja", "oui", "sí", "si", "sim"}
FALSE = {"false", "no", "", "0", "☐", "unchecked", "nein", "non", "não", "nee"}
_ONE_DECIMAL = re.compile(r"(-?\d+)[.,](\d)")
_DOT_DECIMAL = re.compile(r"-?\d+\.\d+")
_GROUPED = re.compile(r"-?[1-9]\d{0,2}\.\d{3}")
# Rows a table may carry: the fields are read from the first pages (`[fields] max_pages`).
MAX_ROWS = 500
TOO_LARGE = f"too large: at most {MAX_AMOUNT_DIGITS} digits before the decimal point"
MAX_DIGITS = 28  # a number's digits in all: Decimal's default context keeps no more


def normalize(
    kind: str, text: str, values: Sequence[str] = (), pattern: str | None = None
) -> tuple[str | None, str | None]:
    """(value in normal form, None) or (None, a message for the reviewer); `values` are an
    enum's, `pattern` a declaration's own (held against the normal form)."""
    text = text.strip()
    if kind == CHECKBOX:
        flag = text.lower()
        if flag in TRUE or flag in FALSE:
            return ("true" if flag in TRUE else "false"), None
        return None, "tick it or not: true or false"
    if not text:
        return None, "enter a value"
    if _CONTROL.search(text):
        return None, "remove the control characters"
    if MASK in text:  # a masked value as the page showed it is no value to keep
        return None, "type the whole value: the page shows it masked"
    value, error = _normal(kind, text, values)
    if value is not None and pattern and not re.fullmatch(pattern, value):
        return None, f"does not match the declared pattern {pattern}"
    return value, error


def _normal(kind: str, text: str, values: Sequence[str]) -> tuple[str | None, str | None]:
    if kind in LIMITS:
        limit = LIMITS[kind]
        return (text, None) if len(text) <= limit else (None, f"at most {limit} characters")
    if kind == DATE:
        dates = find_dates(text)
        if len(dates) != 1:
            return None, "enter one date, for example 2026-03-04"
        if dates[0].ambiguous:
            return None, "day and month could be either way round: write it as YYYY-MM-DD"
        if sum(c.isdigit() for c in text) > 8:
            return None, "enter one date, for example 2026-03-04"
        return dates[0].iso, None
    if kind == AMOUNT:
        return _amount(text)
    if kind in (NUMBER, PERCENT):
        return _number(kind, text)
    if kind == CURRENCY:
        code = text.upper()
        if not re.fullmatch(r"[A-Z]{3}", code) or not is_currency(code):
            return None, "enter an ISO 4217 currency code, for example EUR"
        return code, None
    if kind == ENUM:
        folded = {v.lower(): v for v in values}
        if text.lower() in folded:
            return folded[text.lower()], None
        return None, f"one of {', '.join(values)}"
    return None, "this field cannot be corrected"


def _amount(text: str) -> tuple[str | None, str | None]:
    bare = _SYMBOLS.sub("", text).strip()
    # `35.5`, `35,5`: one decimal, typed as a person types it, is 35.50.
    one = _ONE_DECIMAL.fullmatch(bare)
    number = Decimal(f"{one[1]}.{one[2]}") if one else parse_number(bare)
    if number is None:
        return None, "enter an amount, for example 1234.50"
    if too_large(number):  # two decimals past 26 digits overflow Decimal's context
        return None, TOO_LARGE
    return format_amount(number), None


def _number(kind: str, text: str) -> tuple[str | None, str | None]:
    bare = text.replace("%", "").strip()
    # `12.5`, `0.125`: a dot that cannot be a thousands separator is a decimal point (`1.500`
    # still reads as fifteen hundred, as it is printed in German).
    if _DOT_DECIMAL.fullmatch(bare) and not _GROUPED.fullmatch(bare):
        number: Decimal | None = Decimal(bare)
    else:
        number = parse_number(bare)
    if number is None:
        return None, "enter a number, for example 12.5"
    if too_large(number):
        return None, f"too large: at most {MAX_AMOUNT_DIGITS} digits before the point"
    if len(number.as_tuple().digits) > MAX_DIGITS:  # Decimal's context would round it
        return None, f"at most {MAX_DIGITS} digits"
    if kind == PERCENT and not Decimal(-1000) < number < Decimal(1000):
        return None, "enter a percentage, for example 19"
    return _plain(number), None


def _plain(number: Decimal) -> str:
    """A number without exponent or trailing zeros: `12.50` -> `12.5`, `3.0` -> `3`."""
    text = format(number.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def normalize_rows(
    columns: Sequence[Any], rows: Any
) -> tuple[list[dict[str, str]] | None, str | None]:
    """A table's rows with every cell in its column's normal form, or a message naming the
    first bad cell (`row 3, amount: enter an amount`). A blank optional cell is left out; a
    row with no cell at all is dropped (an empty row a reviewer added)."""
    if not isinstance(rows, list):
        return None, "rows: a list of rows"
    if len(rows) > MAX_ROWS:
        return None, f"at most {MAX_ROWS} rows"
    by_name = {c.name: c for c in columns}
    out: list[dict[str, str]] = []
    for number, row in enumerate(rows, 1):
        if not isinstance(row, Mapping):
            return None, f"row {number}: an object of column names to values"
        unknown = set(row) - set(by_name)
        if unknown:
            return None, f"row {number}: no column {sorted(unknown)[0]!r}"
        cells: dict[str, str] = {}
        for column in columns:
            raw = row.get(column.name)
            if raw is None or (
                isinstance(raw, str) and not raw.strip() and column.kind != CHECKBOX
            ):
                continue
            if not isinstance(raw, str):
                return None, f"row {number}, {column.name}: must be text"
            value, error = normalize(column.kind, raw, column.values, column.pattern)
            if error is not None:
                return None, f"row {number}, {column.name}: {error}"
            if value is not None:
                cells[column.name] = value
        if not cells:
            continue
        missing = [c.name for c in columns if c.required and c.name not in cells]
        if missing:
            return None, f"row {number}: {missing[0]} is required"
        out.append(cells)
    return out, None
