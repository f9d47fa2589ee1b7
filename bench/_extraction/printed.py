"""How an invoice prints a value, learned from one printed occurrence, so a new value can be
printed the same way: the date's pattern (order, separators, padding, month names and their
case), the amount's number format (decimal mark, thousands separator), the invoice number's
shape (letters and separators kept, digits new).

Used by the variant generator (`variants.py`); nothing here touches a PDF.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from babel.dates import get_month_names

# A printed date form: the date -> its text, given the document's language.
DateForm = Callable[[date], str]


def _months(language: str, width: str) -> dict[int, str]:
    return {int(k): str(v) for k, v in get_month_names(width, locale=language).items()}


def date_forms(language: str) -> list[tuple[str, DateForm]]:
    """Every date pattern the set's invoices print, most common first (a padded day before
    an unpadded one: `15.11.2024` fits both, and padding is what layouts do)."""
    forms: list[tuple[str, DateForm]] = []
    for pad in (True, False):

        def dd(n: int, pad: bool = pad) -> str:
            return f"{n:02d}" if pad else str(n)

        for sep in (".", "/", "-", ". "):
            forms += [
                (f"dmy{sep}{pad}", lambda d, s=sep, f=dd: f"{f(d.day)}{s}{f(d.month)}{s}{d.year}"),
                (f"ymd{sep}{pad}", lambda d, s=sep, f=dd: f"{d.year}{s}{f(d.month)}{s}{f(d.day)}"),
                (f"mdy{sep}{pad}", lambda d, s=sep, f=dd: f"{f(d.month)}{s}{f(d.day)}{s}{d.year}"),
                (
                    f"dmyy{sep}{pad}",
                    lambda d, s=sep, f=dd: f"{f(d.day)}{s}{f(d.month)}{s}{d.year % 100:02d}",
                ),
            ]
    for lang in dict.fromkeys((language, "en")):
        for width in ("wide", "abbreviated"):
            names = _months(lang, width)
            tables = [names]
            if width == "abbreviated":  # `Jan.` and `Jan` are both printed
                tables.append({m: n.rstrip(".") for m, n in names.items()})
            for table in tables:
                for case in (str, str.title, str.upper, str.lower):
                    _named_forms(forms, table, case, f"{lang}{width}{case.__name__}")
    return forms


def _named_forms(
    forms: list[tuple[str, DateForm]],
    names: dict[int, str],
    case: Callable[[str], str],
    tag: str,
) -> None:
    def m(d: date) -> str:
        return case(names[d.month])

    forms += [
        (f"{tag}-d m y", lambda d: f"{d.day} {m(d)} {d.year}"),
        (f"{tag}-dd m y", lambda d: f"{d.day:02d} {m(d)} {d.year}"),
        (f"{tag}-d. m y", lambda d: f"{d.day}. {m(d)} {d.year}"),
        (f"{tag}-m d, y", lambda d: f"{m(d)} {d.day}, {d.year}"),
        (f"{tag}-d-m-y", lambda d: f"{d.day:02d}-{m(d)}-{d.year}"),
        (f"{tag}-d de m de y", lambda d: f"{d.day} de {m(d)} de {d.year}"),
    ]


def boundary(text: str) -> str:
    """A regex for `text` printed as a whole token (no digit or letter glued to either end)."""
    return rf"(?<![0-9A-Za-z]){re.escape(text)}(?![0-9A-Za-z])"


# An amount as printed: digits in groups of three (dot, comma, apostrophe or a space) or not
# grouped, then a decimal mark and exactly two decimals; a sign and a currency sign glued to
# its front are part of it (re-printed with it), a `%` after it makes it a rate.
AMOUNT = re.compile(
    r"(?<![\d.,'])(?P<pre>[-\u2212]?(?:R\$|[$€£])?[-\u2212]?)"
    r"(?P<int>\d{1,3}(?:(?P<group>[.,'\u00a0\u202f ])\d{3})+|\d+)"
    r"(?P<mark>[.,])(?P<cents>\d{2})(?![\d])(?!\s?%)(?!,\d)(?!\.\d)"
)


@dataclass(frozen=True)
class Amount:
    """One printed amount: where it is in its line's text, its value, its format."""

    start: int
    end: int
    value: Decimal  # without sign
    pre: str  # the sign and currency sign printed before the digits
    group: str | None  # the thousands separator printed, if any
    mark: str  # the decimal mark

    def printed(self, value: Decimal, group: str | None) -> str:
        whole, cents = f"{value:.2f}".split(".")
        if group:
            whole = f"{int(whole):,}".replace(",", group)
        return f"{self.pre}{whole}{self.mark}{cents}"


def amounts_in(text: str) -> list[Amount]:
    out = []
    for m in AMOUNT.finditer(text):
        group, mark = m.group("group"), m.group("mark")
        if group == mark:
            continue
        digits = m.group("int").replace(group, "") if group else m.group("int")
        value = Decimal(f"{digits}.{m.group('cents')}")
        out.append(Amount(m.start(), m.end(), value, m.group("pre"), group, mark))
    return out


def thousands(amounts: list[Amount]) -> str | None:
    """The document's thousands separator: as printed on a grouped amount; none if an amount
    of 1,000 or more is printed without; else the usual partner of the decimal mark."""
    for a in amounts:
        if a.group:
            return a.group
    if any(a.value >= 1000 for a in amounts):
        return None
    marks = [a.mark for a in amounts]
    if not marks:
        return None
    return "." if max(set(marks), key=marks.count) == "," else ","


def new_number(number: str, rng: random.Random) -> str:
    """The same shape with other digits: letters and separators kept, each run of digits
    new (never a leading zero where the old run had none), and never the old number."""
    while True:
        out = []
        for run in re.split(r"(\d+)", number):
            if not run.isdigit():
                out.append(run)
                continue
            digits = [str(rng.randrange(10)) for _ in run]
            if run[0] != "0" and digits[0] == "0":
                digits[0] = str(rng.randrange(1, 10))
            out.append("".join(digits))
        made = "".join(out)
        if made != number:
            return made
