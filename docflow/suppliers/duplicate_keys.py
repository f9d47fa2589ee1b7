"""What makes two documents one bill: the normal forms of the values a duplicate key is made
of, and the keys a document claims (docs/payment-controls.md "Duplicates").

A type whose fields declare `invoice_number` (an invoice, a credit note) claims, for each way
its supplier is known (the registry's id when the match is certain, and the printed vendor
name, folded):

    number   supplier + the invoice number in its normal form (`number_key`)
    amount   supplier + the invoice date + the total (two decimals) + the currency

and once, whoever the supplier is:

    bill     the number + the total + the currency (a supplier's name printed another way,
             or not matched to the registry this time, is the same bill)

It also looks, with consistent reads, at the `amount` keys of the days around its date
(`window`: the same supplier, total and currency up to `WINDOW_DAYS` days apart): a hit there
is a possible duplicate. Any declared type with `duplicate_key = [fields...]` claims

    declared the type + each named field's value in its kind's normal form

Every key is made only from values that were read: a missing value makes no key of that kind.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import TypedDict

from docflow.document import DocumentSummary
from docflow.extract.declarations.kinds import AMOUNT, CURRENCY, DATE, ID, NUMBER, PARTY
from docflow.extract.declarations.model import TypeDecl
from docflow.extract.declarations.parse import fold
from docflow.extract.rules_engine.vendor import LEGAL_FORM

# The key kinds, as claims store them and `duplicateOf[].by` lists them.
NUMBER_KEY, AMOUNT_KEY, BILL_KEY, WINDOW_KEY, DECLARED_KEY = (
    "number",
    "amount",
    "bill",
    "window",
    "declared",
)
# Only a `window` hit is a possible duplicate; every other kind is the same bill.
FIRM_KINDS = (NUMBER_KEY, AMOUNT_KEY, BILL_KEY, DECLARED_KEY)
# How far apart two dates of one supplier's same total may be and still be looked at.
WINDOW_DAYS = 7
# The fields an invoice's keys are made of: a reviewer's correction of one claims again.
KEY_FIELDS = ("invoice_number", "invoice_date", "total_amount", "currency", "vendor_name")

_NOT_WORD = re.compile(r"[^0-9a-z]+")
_TOKEN = re.compile(r"[0-9]+|[^\W\d_]+")


def _plain_digits(text: str) -> str:
    """Any script's decimal digit as its ASCII digit (`٤٢` and `４２` are 42), and no format
    character (a zero-width space inside a number is invisible on the page)."""
    out = []
    for c in text:
        if unicodedata.category(c) == "Cf":
            continue
        out.append(str(unicodedata.decimal(c)) if c.isdecimal() else c)
    return "".join(out)


def number_key(number: str) -> str:
    """A printed number's normal form: upper case, no separators, and no leading zeros in any
    group of digits, so `INV-0042`, `inv 42` and `INV42` are one number, and `2024/007` is
    `2024-7` (`2024.7`).

    Leading zeros go because an uploader chooses them: one zero added to a number already
    paid made a new key, and the bill went through again. Two numbers one supplier really
    prints as `42` and `0042` are the rarer case, and a person tells them apart in one
    click. A separator between two groups of digits stays, as `.`, so `2024-7` is not `20247`
    nor `202-47`: numbers whose groups of digits differ never share a key."""
    out: list[str] = []
    digits_last = False
    for token in _TOKEN.findall(_plain_digits(fold(number)).upper()):
        if token.isdigit():
            out.append(("." if digits_last else "") + (token.lstrip("0") or "0"))
            digits_last = True
        else:
            out.append(token)
            digits_last = False
    return "".join(out)


def vendor_key(name: str) -> str:
    """The printed name without case, accents, punctuation or its legal form: `Blauwal
    Hafenlogistik GmbH` and `BLAUWAL HAFENLOGISTIK` are one vendor."""
    return _NOT_WORD.sub(" ", fold(LEGAL_FORM.sub(" ", name))).strip()


def amount_key(raw: str) -> str:
    """An amount in two decimals (`1,100.00`, `1.100,00`, `1100` -> `1100.00`); "" if none."""
    text = re.sub(r"[^0-9,.\-]", "", _plain_digits(str(raw)))
    if "," in text and "." in text:  # the later one is the decimal separator
        thousands = "," if text.rfind(",") < text.rfind(".") else "."
        text = text.replace(thousands, "").replace(",", ".")
    elif "," in text:
        head, _, tail = text.rpartition(",")
        text = f"{head.replace(',', '')}.{tail}" if len(tail) != 3 else text.replace(",", "")
    try:
        return str(Decimal(text).quantize(Decimal("0.01")))
    except (InvalidOperation, ValueError):
        return ""


def day_of(raw: str) -> date | None:
    """An ISO date (the date kind's normal form), or None."""
    try:
        return date.fromisoformat(raw.strip())
    except ValueError:
        return None


def value_key(kind: str, raw: str) -> str:
    """A declared field's value in its kind's normal form for a key ("" if none)."""
    if kind == AMOUNT:
        return amount_key(raw)
    if kind == ID:
        return number_key(raw)
    if kind == PARTY:
        return vendor_key(raw)
    if kind == DATE:
        day = day_of(raw)
        return day.isoformat() if day else ""
    if kind == CURRENCY:
        return raw.strip().upper()
    if kind == NUMBER:
        try:
            return str(Decimal(_plain_digits(raw).strip()).normalize())
        except InvalidOperation:
            return ""
    return _NOT_WORD.sub(" ", fold(raw)).strip()


def suppliers_of(summary: DocumentSummary) -> list[str]:
    """How this invoice's supplier is known: the registry's id (a certain match only) and
    the printed name, folded. Both, so an invoice read before its supplier was registered
    still meets its copy read after."""
    out = []
    if summary.supplier_id:
        out.append(f"id:{summary.supplier_id}")
    name = vendor_key(summary.text("vendor_name"))
    if name:
        out.append(f"name:{name}")
    return out


def _first_of_kind(decl: TypeDecl | None, names: Iterable[str], kind: str) -> str:
    for name in names:
        field = decl.get(name) if decl else None
        if field is not None and field.kind == kind:
            return name
    return ""


class FactsJson(TypedDict):
    """The facts a claim keeps for the earlier document's reviewer, normalized."""

    number: str
    date: str
    total: str
    currency: str
    vendor: str


@dataclass(frozen=True)
class Facts:
    """What a document's keys are made of, as the claim stores and the review page shows: an
    invoice's number, date, total, currency and vendor; a declared type's date, amount and
    party of its `duplicate_key` in their place."""

    number: str
    date: str
    total: str
    currency: str
    vendor: str

    @classmethod
    def of(cls, summary: DocumentSummary, decl: TypeDecl | None = None) -> Facts:
        named = decl.duplicate_key if decl else ()

        def pick(own: str, kind: str) -> str:
            return summary.text(own) or summary.text(_first_of_kind(decl, named, kind))

        return cls(
            number=pick("invoice_number", ID),
            date=pick("invoice_date", DATE),
            total=pick("total_amount", AMOUNT),
            currency=summary.text("currency").upper(),
            vendor=pick("vendor_name", PARTY),
        )

    def keys(self, suppliers: list[str]) -> dict[str, str]:
        """{readable key: kind}: for each supplier, the number key and the amount key, and the
        supplier-free bill key (each only when its values were read)."""
        out: dict[str, str] = {}
        number, total = number_key(self.number), amount_key(self.total)
        for supplier in suppliers:
            if number:
                out[f"number|{supplier}|{number}"] = NUMBER_KEY
            if total and self.date:
                out[self._amount(supplier, self.date, total)] = AMOUNT_KEY
        if number and total:
            out[f"bill|{number}|{total}|{self.currency}"] = BILL_KEY
        return out

    def window(self, suppliers: list[str]) -> dict[str, str]:
        """{readable key: "window"}: the amount keys of the other days up to `WINDOW_DAYS`
        before and after this date, for each supplier (none without a date or a total)."""
        day, total = day_of(self.date), amount_key(self.total)
        if day is None or not total:
            return {}
        out: dict[str, str] = {}
        for supplier in suppliers:
            for offset in range(-WINDOW_DAYS, WINDOW_DAYS + 1):
                if offset:
                    other = (day + timedelta(days=offset)).isoformat()
                    out[self._amount(supplier, other, total)] = WINDOW_KEY
        return out

    def _amount(self, supplier: str, day: str, total: str) -> str:
        return f"amount|{supplier}|{day}|{total}|{self.currency}"

    def to_json(self) -> FactsJson:
        return {
            "number": self.number,
            "date": self.date,
            "total": self.total,
            "currency": self.currency,
            "vendor": self.vendor,
        }


def declared_key(decl: TypeDecl, summary: DocumentSummary) -> dict[str, str]:
    """{readable key: "declared"} from the type's `duplicate_key` fields, each in its kind's
    normal form; nothing when the type declares none or one of its values was not read (a
    key of fewer values would call different documents one)."""
    if not decl.duplicate_key:
        return {}
    parts = []
    for name in decl.duplicate_key:
        field = decl.get(name)
        value = value_key(field.kind, summary.text(name)) if field else ""
        if not value:
            return {}
        parts.append(value)
    return {"|".join(["declared", decl.name, *parts]): DECLARED_KEY}
