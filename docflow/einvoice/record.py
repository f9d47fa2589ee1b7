"""The EN 16931 invoice as one frozen record, and its one JSON shape.

Money and quantities are decimal strings exactly as the XML wrote them (`Decimal(value)` is
exact); dates are ISO 8601. `to_json` gives a plain dict in a fixed key order and `from_json`
reads it back, so the record can travel in `fields.json` and through a checkpoint unchanged."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypedDict

# UNTDID 1001 document type codes (BT-3) to docflow's document types. A code not listed
# falls back on the syntax's own root: a UBL CreditNote is a credit note, anything else an
# invoice (the type code is kept beside it).
DOCUMENT_TYPES = {
    "380": "invoice",
    "381": "credit-note",
    "383": "debit-note",
    "384": "corrected-invoice",
    "386": "prepayment-invoice",
    "389": "self-billed-invoice",
    "261": "self-billed-credit-note",
    "326": "partial-invoice",
    "875": "partial-construction-invoice",
    "876": "partial-final-construction-invoice",
    "877": "final-construction-invoice",
    "751": "invoice-information",
}


def document_type(type_code: str | None, credit_note_root: bool = False) -> str:
    if type_code in DOCUMENT_TYPES:
        return DOCUMENT_TYPES[type_code]
    return "credit-note" if credit_note_root else "invoice"


class PartyJson(TypedDict):
    name: str | None
    vat_id: str | None
    tax_number: str | None
    country: str | None


class LineJson(TypedDict, total=False):
    line_id: str | None
    description: str | None
    quantity: str | None
    unit: str | None
    unit_price: str | None
    net: str | None
    vat_category: str | None
    vat_rate: str | None
    item_id: str | None
    order_line: str | None


class VatJson(TypedDict):
    category: str | None
    rate: str | None
    taxable: str | None
    tax: str | None


class EInvoiceJson(TypedDict, total=False):
    """`EInvoice.to_json`: the record's fields by their own names, in their order; every one
    is written, but a file an older release wrote lacks the later ones (`other_accounts`, a
    line's `item_id` and `order_line`), so a reader gets each as it may be missing."""

    syntax: str
    customization: str | None
    number: str | None
    type_code: str | None
    document_type: str
    issue_date: str | None
    due_date: str | None
    currency: str | None
    seller: PartyJson
    buyer: PartyJson
    net: str | None
    tax: str | None
    total: str | None
    payable: str | None
    line_total: str | None
    po_number: str | None
    buyer_reference: str | None
    ibans: list[str]
    bic: str | None
    payment_terms: str | None
    lines: list[LineJson]
    vat: list[VatJson]
    other_accounts: list[str]


@dataclass(frozen=True)
class Party:
    """A seller (BG-4) or buyer (BG-7): legal name, VAT id (BT-31/48), tax number (BT-32)."""

    name: str | None = None
    vat_id: str | None = None
    tax_number: str | None = None
    country: str | None = None

    def to_json(self) -> PartyJson:
        return {
            "name": self.name,
            "vat_id": self.vat_id,
            "tax_number": self.tax_number,
            "country": self.country,
        }


@dataclass(frozen=True)
class Line:
    """An invoice line (BG-25): BT-126, BT-153, BT-129/130, BT-146, BT-131, BT-151/152, and
    BT-155 (the seller's item number) and BT-132 (the order line it bills), which matching
    pairs lines by (docs/matching.md); those two last, with defaults: an einvoice.json
    written before them has none."""

    line_id: str | None
    description: str | None
    quantity: str | None
    unit: str | None
    unit_price: str | None
    net: str | None
    vat_category: str | None
    vat_rate: str | None
    item_id: str | None = None
    order_line: str | None = None

    def to_json(self) -> LineJson:
        return {
            "line_id": self.line_id,
            "description": self.description,
            "quantity": self.quantity,
            "unit": self.unit,
            "unit_price": self.unit_price,
            "net": self.net,
            "vat_category": self.vat_category,
            "vat_rate": self.vat_rate,
            "item_id": self.item_id,
            "order_line": self.order_line,
        }


@dataclass(frozen=True)
class VatBreakdown:
    """A VAT breakdown (BG-23): category, rate, taxable amount, tax amount."""

    category: str | None
    rate: str | None
    taxable: str | None
    tax: str | None

    def to_json(self) -> VatJson:
        return {
            "category": self.category,
            "rate": self.rate,
            "taxable": self.taxable,
            "tax": self.tax,
        }


@dataclass(frozen=True)
class EInvoice:
    syntax: str  # "ubl", "cii" or "zugferd-1"
    customization: str | None  # BT-24: which CIUS or profile the document claims
    number: str | None  # BT-1
    type_code: str | None  # BT-3
    document_type: str
    issue_date: str | None  # BT-2
    due_date: str | None  # BT-9
    currency: str | None  # BT-5
    seller: Party  # BG-4, the vendor
    buyer: Party  # BG-7
    net: str | None  # BT-109, total without VAT
    tax: str | None  # BT-110, total VAT in the invoice currency
    total: str | None  # BT-112, total with VAT
    payable: str | None  # BT-115, amount due
    line_total: str | None  # BT-106, sum of line nets
    po_number: str | None  # BT-13, the buyer's purchase order
    buyer_reference: str | None  # BT-10 (XRechnung's Leitweg-ID)
    ibans: tuple[str, ...]  # the payee accounts (BT-84) shaped as IBANs
    bic: str | None  # BT-86
    payment_terms: str | None  # BT-20
    lines: tuple[Line, ...]
    vat: tuple[VatBreakdown, ...]
    # The payee accounts (BT-84) not shaped as IBANs: a national account, a ProprietaryID.
    # Last, with a default: einvoice.json written before it has none.
    other_accounts: tuple[str, ...] = ()

    @property
    def accounts(self) -> tuple[str, ...]:
        """Every payee account (BT-84) in every payment means, normalized
        (`accounts.normalize_account`): what the bank-details and the hybrid checks compare."""
        return tuple(dict.fromkeys((*self.ibans, *self.other_accounts)))

    def to_json(self) -> EInvoiceJson:
        return {
            "syntax": self.syntax,
            "customization": self.customization,
            "number": self.number,
            "type_code": self.type_code,
            "document_type": self.document_type,
            "issue_date": self.issue_date,
            "due_date": self.due_date,
            "currency": self.currency,
            "seller": self.seller.to_json(),
            "buyer": self.buyer.to_json(),
            "net": self.net,
            "tax": self.tax,
            "total": self.total,
            "payable": self.payable,
            "line_total": self.line_total,
            "po_number": self.po_number,
            "buyer_reference": self.buyer_reference,
            "ibans": list(self.ibans),
            "bic": self.bic,
            "payment_terms": self.payment_terms,
            "lines": [line.to_json() for line in self.lines],
            "vat": [row.to_json() for row in self.vat],
            "other_accounts": list(self.other_accounts),
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> EInvoice:
        names = {f.name for f in fields(cls)}
        unknown = set(value) - names
        if unknown:
            raise ValueError(f"unknown e-invoice keys: {sorted(unknown)}")
        return cls(
            **{
                **value,
                "seller": Party(**value["seller"]),
                "buyer": Party(**value["buyer"]),
                "ibans": tuple(value["ibans"]),
                "other_accounts": tuple(value.get("other_accounts", ())),
                "lines": tuple(Line(**line) for line in value["lines"]),
                "vat": tuple(VatBreakdown(**row) for row in value["vat"]),
            }
        )
