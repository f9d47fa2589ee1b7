"""Reviewers' corrections: validated and put in normal form before they can decide anything.

Pure, so the review page (before it sends a decision) and the orchestrator (reading the
decision back, defensively) run the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from docflow.extract.fields import AMOUNT, CURRENCY, DATE, FIELD_KINDS, ID, TEXT
from docflow.extract.parse import find_dates, format_amount, is_currency, parse_number

MAX_CORRECTIONS = 20
_SYMBOLS = re.compile(r"[€$£¥]|\b[A-Za-z]{3}\b")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# The dot a detector's mask is made of (docflow.rules.detectors.DOT).
MASK = "•"


def normalize(kind: str, text: str) -> tuple[str | None, str | None]:
    """(value in normal form, None) or (None, a message for the reviewer)."""
    text = text.strip()
    if not text:
        return None, "enter a value"
    if _CONTROL.search(text):
        return None, "remove the control characters"
    if MASK in text:  # a masked value as the page showed it is no value to keep
        return None, "type the whole value: the page shows it masked"
    if kind in (ID, TEXT):
        limit = 64 if kind == ID else 200
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
        number = parse_number(_SYMBOLS.sub("", text).strip())
        if number is None:
            return None, "enter an amount, for example 1234.50"
        return format_amount(number), None
    if kind == CURRENCY:
        code = text.upper()
        if not re.fullmatch(r"[A-Z]{3}", code) or not is_currency(code):
            return None, "enter an ISO 4217 currency code, for example EUR"
        return code, None
    return None, "this field cannot be corrected"


def validate_corrections(
    fields: Mapping[str, Any], corrections: Mapping[str, Any]
) -> tuple[dict[str, str], dict[str, str]]:
    """(normalized values, errors), both keyed by field name.

    `fields` is the document's current `{name: {value, confidence, page}}`; a correction equal
    to the current value is no correction and is left out. Any field the rules know may be
    corrected, including one the engine did not find.
    """
    normalized: dict[str, str] = {}
    errors: dict[str, str] = {}
    if not isinstance(corrections, Mapping):
        return {}, {"corrections": "must be an object of field names to values"}
    if len(corrections) > MAX_CORRECTIONS:
        return {}, {"corrections": f"at most {MAX_CORRECTIONS} corrections"}
    for key, raw in corrections.items():
        name = str(key)
        kind = FIELD_KINDS.get(name)
        if kind is None:
            errors[name[:64]] = "not a field this document has"
            continue
        if not isinstance(raw, str):
            errors[name] = "must be text"
            continue
        current = fields.get(name, {})
        if (
            isinstance(current, Mapping)
            and current.get("masked")
            and raw.strip() == current.get("value")
        ):
            continue  # a masked field sent back untouched: no correction, the mask never a value
        value, error = normalize(kind, raw)
        if error is not None:
            errors[name] = error
        elif value is not None:
            current = fields.get(name, {})
            if not (isinstance(current, Mapping) and current.get("value") == value):
                normalized[name] = value
    return normalized, errors


def describe_corrections(
    fields: dict[str, Any], corrections: dict[str, str] | None
) -> dict[str, dict[str, Any]]:
    """For the history: each corrected field's new value and the value it replaced."""
    return {
        name: {"value": value, "original": (fields.get(name) or {}).get("value")}
        for name, value in sorted((corrections or {}).items())
    }
