"""A declared kind's value in a stretch of printed text: the part of the text after a label (or
in a table's cell) that is the value, held to the kind's normal form (`values.normalize`).

What is printed after a label is seldom the value alone (`1,000.00 EUR`, `19 %`, `12 March
2026 (signed)`), so each kind takes its own part first: a date found by the date patterns
(in the document's day/month order), the first amount, the first number, an enum's value
where it stands, a tick for a checkbox; free text up to a wide gap. The result's `scale`
says how sure the reading is (a day/month order the document decided reads at 0.95).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

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
from docflow.extract.declarations.parse import find_amounts, find_dates, fold
from docflow.extract.declarations.values import normalize

# A tick by a checkbox's label, and an empty box. A lone `X` counts only as a word of its own.
TICKED = re.compile(r"[☑✓✔☒]|\[\s*[xX✓✔]\s*\]|(?<![\w\[])[xX](?![\w\]])")
UNTICKED = re.compile(r"[☐□]|\[\s*\]")
_NUMBER = re.compile(r"-?\d[\d.,'\u00a0 ]*\d\s*%?|-?\d\s*%?")
_WIDE = re.compile(r"\s{2,}|\s\|\s|\t")
SENTENCE = 10  # words
# Where the next label starts on the same line, after a sentence's end: `Delaware. Signature:`.
_NEXT_LABEL = re.compile(r"(?<=[.;])\s+[A-Z][\w'/ -]{0,30}:(?=\s|$)")


@dataclass(frozen=True)
class Reading:
    """A value in its normal form (or None with the reason it did not read), and how sure."""

    value: str | None
    error: str | None = None
    scale: float = 1.0


def read_value(
    kind: str,
    text: str,
    values: Sequence[str] = (),
    pattern: str | None = None,
    order: str | None = None,
) -> Reading:
    """The value of `kind` at the start of `text` (what follows a label, or a table cell)."""
    text = text.strip(" :=\t")
    if kind == CHECKBOX:
        return _checkbox(text)
    if not text.strip(" .-"):
        return Reading(None, "nothing printed")
    first = _first(kind, text, values, pattern, order)
    if first.value is None:
        return first
    value, error = normalize(kind, first.value, values, pattern)
    return Reading(value, error, first.scale if value is not None else 1.0)


def _first(
    kind: str, text: str, values: Sequence[str], pattern: str | None, order: str | None
) -> Reading:
    """The part of the text that is the kind's value (not yet in its normal form)."""
    part = _WIDE.split(text)[0].strip(" ,;")
    if kind in (TEXT, PARTY, ADDRESS) and (label := _NEXT_LABEL.search(part)):
        part = part[: label.start()].rstrip(".;")
    if kind == DATE:
        dates = find_dates(text, order)
        if not dates:
            return Reading(None, "no date")
        if dates[0].ambiguous and not dates[0].resolved:
            return Reading(None, "day and month could be either way round")
        return Reading(dates[0].iso, scale=0.95 if dates[0].ambiguous else 1.0)
    if kind == AMOUNT:
        amounts = find_amounts(text)
        if not amounts:
            one = re.match(r"\s*-?\d+[.,]\d\b", text)  # `35.5`: one decimal
            return Reading(one[0] if one else part)
        # An amount is printed with its cents; a whole number is as often OCR's `51.42`.
        cents = re.search(r"[.,]\d{1,2}$", text[amounts[0].start : amounts[0].end])
        return Reading(amounts[0].value, scale=1.0 if cents else 0.85)
    if kind in (NUMBER, PERCENT):
        number = _NUMBER.search(text)
        return Reading(number[0].replace("\u00a0", "").strip() if number else part)
    if kind == ENUM:
        return Reading(_enum(text, values) or part)
    if kind == ID:
        found = re.search(pattern, text) if pattern else None
        token = found[0] if found else part.split()[0].strip(".,;:()[]")
        if not pattern and not any(c.isdigit() for c in token):
            return Reading(None, "no number")  # `Policy number is below`
        return Reading(token)
    if kind in (TEXT, PARTY) and len(part.split()) > SENTENCE:
        return Reading(part, scale=0.6)  # a sentence after a label: a person confirms it
    return Reading(part)


def _enum(text: str, values: Sequence[str]) -> str | None:
    """The declared value printed first in the text (accent-folded, whole words)."""
    folded = fold(text)
    spots = [
        (m.start(), value)
        for value in values
        if (m := re.search(rf"(?<!\w){re.escape(fold(value))}(?!\w)", folded))
    ]
    return min(spots)[1] if spots else None


def _checkbox(text: str) -> Reading:
    ticked, empty = TICKED.search(text), UNTICKED.search(text)
    if ticked and (not empty or ticked.start() < empty.start()):
        return Reading("true")
    if empty:
        return Reading("false")
    word = text.split(maxsplit=1)[0].strip(".,;:") if text.split() else ""
    if word:
        value, _error = normalize(CHECKBOX, word)
        if value is not None:
            return Reading(value)
    return Reading(None, "no tick or box by the label")
