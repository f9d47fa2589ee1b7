"""Locale-aware reading of dates, amounts and currencies, as printed on invoices in English,
German, French, Spanish, Italian, Dutch and Portuguese.

Dates are found with patterns of our own, because the engine must be able to say *ambiguous*
(04/03/2026) instead of guessing, which general-purpose parsers do silently; month names come
from `babel`'s CLDR data for each language rather than a list typed here, and a labelled value
none of the patterns reads is given to `dateparser` (`parse_date_loosely`). Currency codes are
checked against ISO 4217 with `pycountry`; currency signs other than a code (`₹`, `Rs.`, `zł`)
are read with `price-parser`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import lru_cache

import pycountry
from babel.dates import get_month_names

DMY, MDY = "dmy", "mdy"
DATE_LOCALES = ("en", "de", "fr", "es", "it", "nl", "pt")


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


_MONTHS: dict[str, int] = {}
for _locale in DATE_LOCALES:
    for _width in ("wide", "abbreviated"):
        for _number, _name in get_month_names(_width, locale=_locale).items():
            _MONTHS.setdefault(_fold(_name).rstrip("."), _number)
# Short forms printed on invoices that CLDR spells otherwise.
for _name, _number in {
    "sept": 9,
    "janv": 1,
    "fevr": 2,
    "fev": 2,
    "avr": 4,
    "juil": 7,
    "marz": 3,
    "maerz": 3,
    "setiembre": 9,
    "mrz": 3,
}.items():
    _MONTHS.setdefault(_name, _number)
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))

_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_NUM_DATE = re.compile(r"(?<!\d)(\d{1,2})\s?([./-])\s?(\d{1,2})\s?\2\s?(\d{4}|\d{2})(?!\d)")
_NAME_FIRST = re.compile(
    rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE
)
_DAY_FIRST = re.compile(
    rf"(?<!\d)(\d{{1,2}})(?:er|st|nd|rd|th|º|°)?\.?(?:\s+|[-/])(?:de\s+)?({_MONTH_RE})\.?,?"
    rf"(?:\s+|[-/])(?:de\s+)?(\d{{4}})\b",
    re.IGNORECASE,
)

# A number as printed: optional grouping by , . ' or a space, optional two decimals.
_AMOUNT = re.compile(
    r"(?<![\w.,'])-?(?:\d{1,2}(?:,\d{2})+,\d{3}|\d{1,3}(?:[,.'\u00a0\u202f ]\d{3})+|\d+)"
    r"(?:[.,]\d{2})?(?![\w%]|[.,]\d)"
)
_SYMBOLS = {"€": "EUR", "£": "GBP", "₹": "INR", "R$": "BRL", "US$": "USD", "$": "USD", "¥": "JPY"}
# What price-parser reports as a currency, for signs that are not ISO codes. `kr` and `Fr.`
# name several currencies and are left out: the document must say which.
_SIGNS = {
    "rs": "INR",
    "rs.": "INR",
    "₹": "INR",
    "zł": "PLN",
    "zl": "PLN",
    "r$": "BRL",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "us$": "USD",
    "a$": "AUD",
    "c$": "CAD",
    "s$": "SGD",
    "kč": "CZK",
    "lei": "RON",
    "ft": "HUF",
    "rm": "MYR",
}
_CODE = re.compile(r"(?<![A-Za-z])([A-Z]{3})(?![A-Za-z])")
_PERCENT_AFTER = re.compile(r"^\s*%")


def fold(text: str) -> str:
    """Lower case without accents, so `Fälligkeitsdatum` and OCR's `Falligkeitsdatum` match."""
    return _fold(text)


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
    end: int = -1  # where the printed number ends (-1: not known)


def parse_number(token: str) -> Decimal | None:
    """`1,234.56`, `1.234,56`, `1 234,56`, `1'234.56`, `1,23,456.00`, `1234` -> Decimal."""
    token = token.strip().replace("\u00a0", " ").replace("\u202f", " ")
    negative = token.startswith("-")
    body = token.lstrip("-")
    decimals = ""
    if len(body) > 3 and body[-3] in ".," and body[-2:].isdigit():
        body, decimals = body[:-3], body[-2:]
    if re.fullmatch(r"\d{1,2}(?:,\d{2})+,\d{3}", body):  # Indian grouping: 1,23,456
        body = body.replace(",", "")
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


# The digits an amount may have before its decimal point: a trillion trillion is no invoice's,
# and past 26 digits two decimals no longer fit Decimal's 28-digit context (quantize raises).
MAX_AMOUNT_DIGITS = 18


def too_large(value: Decimal) -> bool:
    """More than MAX_AMOUNT_DIGITS digits before the decimal point."""
    return value != 0 and value.adjusted() >= MAX_AMOUNT_DIGITS


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
    return sign_currency(text)


def sign_currency(text: str) -> str | None:
    """A currency sign price-parser finds that is not an ISO code (`Rs.`, `zł`), or None."""
    if not any(c.isdigit() for c in text):
        text = f"{text} 1"  # price-parser looks for a sign beside a number
    from price_parser import Price  # deferred: only amounts without a code or symbol need it

    sign = (Price.fromstring(text).currency or "").strip().lower()
    return _SIGNS.get(sign)


def parse_date_loosely(text: str, order: str | None, languages: tuple[str, ...]) -> str | None:
    """A labelled date none of the patterns reads (`Dec 31st '17`), by `dateparser`, strictly:
    day, month and year must all be printed. ISO form, or None."""
    import dateparser  # deferred: slow to import, and most dates never need it

    settings = {
        "REQUIRE_PARTS": ["day", "month", "year"],
        "PREFER_DATES_FROM": "past",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    if order:
        settings["DATE_ORDER"] = order.upper()
    found = dateparser.parse(text[:40], languages=list(languages), settings=settings)
    return found.date().isoformat() if found and 1990 <= found.year <= 2100 else None


def find_amounts(text: str) -> list[AmountValue]:
    """Amounts in `text` (not percentages), each with a currency printed right beside it."""
    found = []
    for m in _AMOUNT.finditer(text):
        if _PERCENT_AFTER.match(text[m.end() :]):
            continue
        number = parse_number(m[0])
        if number is None or too_large(number):  # a reference number, no amount
            continue
        near = text[max(0, m.start() - 5) : m.start()] + " " + text[m.end() : m.end() + 5]
        found.append(AmountValue(format_amount(number), currency_in(near), m.start(), m.end()))
    return found
