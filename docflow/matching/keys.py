"""Which order a document cites, as a key both sides compute alike: the supplier's printed name
and the order number, each in its normal form.

An order is one supplier's: `PO-4711` from two suppliers is two orders, and an invoice is only
ever matched to an order of the supplier that issued it (the invoice's `vendor_name`, the
order's `vendor_name`, the delivery note's `vendor_name`). Names compare without case, accents,
punctuation or legal form (`Acme Supplies Ltd` is `ACME SUPPLIES`), numbers without case,
separators or leading zeros (`po 4711` is `PO-04711`): `docflow.suppliers.duplicate_keys`, the
forms the duplicate check keys a bill by. A name spelt with look-alike letters of another
script is another name: that invoice finds no order and waits, it is never matched.

Pure: a document's record in, a key (or why there is none) out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docflow.document import DocumentSummary
from docflow.rules.card_numbers import card_spans
from docflow.rules.matching import BILLS, CREDITS, ORDERS, RECEIPTS
from docflow.suppliers.duplicate_keys import number_key, vendor_key

# What a document is to matching, by its type.
BILL, CREDIT, ORDER, RECEIPT = "bill", "credit", "order", "receipt"
MAX_KEY = 200  # characters of a name or number kept in a key (DynamoDB allows 2 KB)


@dataclass(frozen=True)
class OrderKey:
    """An order: its supplier's and its number's normal forms, and the number as printed."""

    supplier: str
    number: str
    printed: str = ""

    @property
    def pk(self) -> str:
        return f"ORDER#{self.supplier}#{self.number}"

    def to_json(self) -> dict[str, str]:
        return {"supplier": self.supplier, "number": self.number, "printed": self.printed}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> OrderKey:
        return cls(str(raw["supplier"]), str(raw["number"]), str(raw.get("printed", "")))


@dataclass(frozen=True)
class Cited:
    """What a document's summary says of the order it cites: its role (bill, credit, order,
    receipt; "" for a type matching leaves alone), the key, or why there is no key although
    an order is cited (`problem`: a person must see it)."""

    role: str
    key: OrderKey | None = None
    problem: str = ""


def role_of(doc_type: str) -> str:
    if doc_type in BILLS:
        return BILL
    if doc_type in CREDITS:
        return CREDIT
    if doc_type in ORDERS:
        return ORDER
    if doc_type in RECEIPTS:
        return RECEIPT
    return ""


def order_number(printed: str) -> str:
    """The number's normal form; "" for what is no order number: nothing, or no digit in it
    (`n/a`, `none`, `see below`, as e-invoices and forms print where there is no order)."""
    key = number_key(printed)[:MAX_KEY]
    return key if any(c.isdigit() for c in key) else ""


def supplier_of(name: str) -> str:
    return vendor_key(name)[:MAX_KEY]


def key_for(vendor: str, number: str) -> OrderKey | None:
    """The order `number` of supplier `vendor` as printed; None if either has no normal form."""
    supplier, normal = supplier_of(vendor), order_number(number)
    if not supplier or not normal:
        return None
    return OrderKey(supplier, normal, number.strip()[:MAX_KEY])


def cited(summary: DocumentSummary) -> Cited:
    """The order a document's summary cites: its own number for an order, the number it was
    delivered or billed against for a receipt, a bill or a credit note."""
    role = role_of(summary.doc_type)
    if not role or not summary.has_fields:
        return Cited("")
    number, vendor = summary.text("po_number"), summary.text("vendor_name")
    if not order_number(number):
        return Cited(role)  # cites no order: matching leaves it alone
    if next(card_spans(number), None) is not None:
        # A card number where the order number goes is never kept as a key (the order store,
        # the awaiting record): a person sees it, and the number is not repeated.
        return Cited(role, None, "its order number holds a card number")
    key = key_for(vendor, number)
    if key is None:
        return Cited(role, None, f"it cites order {number[:MAX_KEY]} but no supplier could be read")
    return Cited(role, key)
