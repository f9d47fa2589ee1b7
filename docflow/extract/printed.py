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

from docflow.extract.kinds import AMOUNT, CHECKBOX, DATE, ENUM, ID, NUMBER, PERCENT
from docflow.extract.parse import find_amounts, find_dates, fold
from docflow.extract.values import normalize

# A tick by a checkbox's label, and an empty box. A lone `X` counts only as a word of its own.
TICKED = re.compile(r"[☑✓✔☒]|\[\s*[xX✓✔]\s*\]|(?<![\w\[])[xX](?![\w\]])")
UNTICKED = re.compile(r"[☐□]|\[\s*\]")
_NUMBER = re.compile(r"-?\d[\d.,'\u00a0 ]*\d\s*%?|-?\d\s*%?")
_WIDE = re.compile(r"\s{2,}|\s\|\s|\t")


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
    scale = 1.0
    part = _WIDE.split(text)[0].strip(" ,;")
    if kind == DATE:
        dates = find_dates(text, order)
        if not dates:
            return Reading(None, "no date")
        first = dates[0]
        if first.ambiguous and not first.resolved:
            return Reading(None, "day and month could be either way round")
        part, scale = first.iso, (0.95 if first.ambiguous else 1.0)
    elif kind == AMOUNT:
        amounts = find_amounts(text)
        one = re.match(r"\s*-?\d+[.,]\d\b", text)  # `35.5`: one decimal
        part = amounts[0].value if amounts else (one[0] if one else part)
    elif kind in (NUMBER, PERCENT):
        number = _NUMBER.search(text)
        part = number[0].replace("\u00a0", "").strip() if number else part
    elif kind == ENUM:
        part = _enum(text, values) or part
    elif kind == ID and pattern:
        found = re.search(pattern, text)
        part = found[0] if found else part.split()[0]
    elif kind == ID:
        part = part.split()[0].strip(".,;:()[]")
        if not any(c.isdigit() for c in part):  # `Policy number is below`: no number
            return Reading(None, "no number")
    value, error = normalize(kind, part, values, pattern)
    return Reading(value, error, scale if value is not None else 1.0)


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
