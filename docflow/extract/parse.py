"""Locale-aware reading of dates, amounts and currencies, as printed on invoices in English,
German, Spanish and French.

Hand-written rather than `dateparser`/`babel`: the forms are a closed list (the issue names
them), and the engine must be able to say *ambiguous* (04/03/2026) instead of guessing, which
general-purpose parsers do silently. Currency codes are checked against ISO 4217 with
`pycountry`, a well-kept copy of the standard.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import lru_cache

import pycountry

DMY, MDY = "dmy", "mdy"

_MONTHS: dict[str, int] = {}
for _number, _names in enumerate(
    [
        "january jan januar janv enero ene janvier",
        "february feb februar febrero fevrier fevr fev",
        "march mar marz maerz marzo mars",
        "april apr abril avril avr",
        "may mai mayo",
        "june jun juni junio juin",
        "july jul juli julio juillet juil",
        "august aug agosto aout ago",
        "september sep sept septiembre setiembre septembre",
        "october oct oktober okt octubre octobre",
        "november nov noviembre novembre",
        "december dec dezember dez diciembre dic decembre",
    ],
    start=1,
):
    for _name in _names.split():
        _MONTHS[_name] = _number
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))

_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_NUM_DATE = re.compile(r"(?<!\d)(\d{1,2})\s?([./-])\s?(\d{1,2})\s?\2\s?(\d{4}|\d{2})(?!\d)")
_NAME_FIRST = re.compile(
    rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE
)
_DAY_FIRST = re.compile(
    rf"(?<!\d)(\d{{1,2}})(?:er|st|nd|rd|th)?\.?\s+(?:de\s+)?({_MONTH_RE})\.?,?\s+(?:de\s+)?(\d{{4}})\b",
    re.IGNORECASE,
)

# A number as printed: optional grouping by , . ' or a space, optional two decimals.
_AMOUNT = re.compile(
    r"(?<![\w.,'])-?(?:\d{1,3}(?:[,.'\u00a0\u202f ]\d{3})+|\d+)(?:[.,]\d{2})?(?![\w%]|[.,]\d)"
)
_SYMBOLS = {"€": "EUR", "£": "GBP", "$": "USD", "¥": "JPY"}
_CODE = re.compile(r"(?<![A-Za-z])([A-Z]{3})(?![A-Za-z])")
_PERCENT_AFTER = re.compile(r"^\s*%")


def fold(text: str) -> str:
    """Lower case without accents, so `Fälligkeitsdatum` and OCR's `Falligkeitsdatum` match."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


@lru_cache(maxsize=512)
def is_currency(code: str) -> bool:
    return pycountry.currencies.get(alpha_3=code.upper()) is not None


@dataclass(frozen=True)
class DateValue:
    iso: str
    ambiguous: bool  # day and month could be swapped and nothing said which
    resolved: bool  # an ambiguous order was decided by the document's language or currency
    start: int


def _make(year: int, month: int, day: int) -> str | None:
    if year < 100:
        year += 2000
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def find_dates(text: str, order: str | None = None) -> list[DateValue]:
    """Every date in `text`, in order of appearance; `order` decides 04/03 when given."""
    folded = fold(text)
    found: list[DateValue] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, value: DateValue | None) -> None:
        if value and not any(s < end and start < e for s, e in taken):
            taken.append((start, end))
            found.append(value)

    for m in _ISO_DATE.finditer(folded):
        iso = _make(int(m[1]), int(m[2]), int(m[3]))
        add(m.start(), m.end(), DateValue(iso, False, False, m.start()) if iso else None)
    for m in _NAME_FIRST.finditer(folded):
        iso = _make(int(m[3]), _MONTHS[m[1].lower()], int(m[2]))
        add(m.start(), m.end(), DateValue(iso, False, False, m.start()) if iso else None)
    for m in _DAY_FIRST.finditer(folded):
        iso = _make(int(m[3]), _MONTHS[m[2].lower()], int(m[1]))
        add(m.start(), m.end(), DateValue(iso, False, False, m.start()) if iso else None)
    for m in _NUM_DATE.finditer(folded):
        add(m.start(), m.end(), _numeric_date(m, order))
    return sorted(found, key=lambda d: d.start)


def _numeric_date(m: re.Match[str], order: str | None) -> DateValue | None:
    a, sep, b, year = int(m[1]), m[2], int(m[3]), int(m[4])
    if sep == ".":  # 04.03.2026 is day first wherever it is written
        iso = _make(year, b, a)
        return DateValue(iso, False, False, m.start()) if iso else None
    if a > 12 or b > 12 or a == b:
        iso = _make(year, b, a) if a > 12 or a == b else _make(year, a, b)
        return DateValue(iso, False, False, m.start()) if iso else None
    if order == MDY:
        iso = _make(year, a, b)
        return DateValue(iso, True, True, m.start()) if iso else None
    if order == DMY:
        iso = _make(year, b, a)
        return DateValue(iso, True, True, m.start()) if iso else None
    iso = _make(year, b, a)  # a guess, and marked as one
    return DateValue(iso, True, False, m.start()) if iso else None


@dataclass(frozen=True)
class AmountValue:
    value: str  # two places, "1234.50"
    currency: str | None  # a symbol or code printed beside it
    start: int


def parse_number(token: str) -> Decimal | None:
    """`1,234.56`, `1.234,56`, `1 234,56`, `1'234.56`, `1234` -> Decimal, or None."""
    token = token.strip().replace("\u00a0", " ").replace("\u202f", " ")
    negative = token.startswith("-")
    body = token.lstrip("-")
    decimals = ""
    if len(body) > 3 and body[-3] in ".," and body[-2:].isdigit():
        body, decimals = body[:-3], body[-2:]
    groups = re.split(r"[,.' ]", body)
    if len(groups) > 1 and (
        not groups[0].isdigit()
        or len(groups[0]) > 3
        or any(len(g) != 3 or not g.isdigit() for g in groups[1:])
    ):
        return None
    digits = "".join(groups)
    if not digits.isdigit():
        return None
    try:
        value = Decimal(f"{digits}.{decimals or '00'}")
    except InvalidOperation:
        return None
    return -value if negative else value


def format_amount(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.01")))


def currency_in(text: str) -> str | None:
    """The currency a stretch of text names: a symbol, or an ISO 4217 code that exists."""
    for symbol, code in _SYMBOLS.items():
        if symbol in text:
            return code
    for m in _CODE.finditer(text):
        if is_currency(m[1]):
            return m[1]
    return None


def find_amounts(text: str) -> list[AmountValue]:
    """Amounts in `text` (not percentages), each with a currency printed right beside it."""
    found = []
    for m in _AMOUNT.finditer(text):
        if _PERCENT_AFTER.match(text[m.end() :]):
            continue
        number = parse_number(m[0])
        if number is None:
            continue
        near = text[max(0, m.start() - 5) : m.start()] + " " + text[m.end() : m.end() + 5]
        found.append(AmountValue(format_amount(number), currency_in(near), m.start()))
    return found
