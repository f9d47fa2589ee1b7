"""Two-way match of an invoice with the purchase order it cites, finalized earlier by docflow.

The order is found in the read model by its number (`ReadModel.finalized_orders`, a Query on
the sparse `orders` index, never a Scan); this module only compares. The invoice and the
order agree when the supplier's name is the same (folded: case, accents, punctuation,
legal-form spacing), the currency is the same, and the totals differ by at most the rules
file's tolerance (`[fields.orders] total_tolerance`, a share of the order's total, and
`total_tolerance_abs`, in the currency's units: the larger applies). Fields one side does
not have are not compared; the totals must be on both.

    match       the invoice's total, net, tax and currency become confident (`PO_MATCH`):
                a document docflow already finalized says the same
    mismatch    an `order-mismatch` check on the total, whose message sets the order's
                figures beside the invoice's, so the reviewer sees both
    None        no finalized order by that number, or nothing to compare

Pure: summaries in, a verdict out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, TypedDict

from docflow.document import Check
from docflow.document.shown import FieldValue

PO_MATCH = 0.99
_CONFIRMED = ("total_amount", "net_amount", "tax_amount", "currency")
_SHOWN = ("vendor_name", "currency", "total_amount")


@dataclass(frozen=True)
class OrderRules:
    total_tolerance: Decimal = Decimal("0.01")  # a share of the order's total
    total_tolerance_abs: Decimal = Decimal("0.05")  # in the currency's units

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None) -> OrderRules:
        """The `[fields.orders]` table; raises ValueError naming what is wrong."""
        raw = raw or {}
        try:
            share = Decimal(str(raw.get("total_tolerance", "0.01")))
            absolute = Decimal(str(raw.get("total_tolerance_abs", "0.05")))
        except InvalidOperation:
            raise ValueError("fields.orders: tolerances must be numbers") from None
        if not (0 <= share <= 1 and absolute >= 0):
            raise ValueError("fields.orders.total_tolerance must be 0..1, _abs at least 0")
        return cls(share, absolute)


def _value(fields: Mapping[str, Any], name: str) -> str | None:
    got = fields.get(name) or {}
    value = got.get("value") if isinstance(got, Mapping) else None
    return str(value) if value not in (None, "") else None


def _fold(name: str) -> str:
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return re.sub(r"[^a-z0-9]", "", text)


class CitedOrder(TypedDict):
    """The order an invoice cites, as the verdict keeps it (and the step's full answer
    writes it): its document id, its number and the figures compared."""

    documentId: str | None
    po_number: str | None
    fields: dict[str, FieldValue]  # the figures compared, as the read model holds them


@dataclass(frozen=True)
class OrderVerdict:
    verdict: str  # match | mismatch
    order: CitedOrder
    differences: tuple[str, ...]

    def check(self, fields: Mapping[str, FieldValue]) -> Check:
        number = self.order["po_number"]
        mine = _figures(fields)
        theirs = _figures(self.order["fields"])
        return Check(
            "order-mismatch",
            f"{', '.join(self.differences)} differ from purchase order {number} "
            f"(finalized as {self.order['documentId']}): invoice {mine}; order {theirs}",
            "total_amount",
        )


def _figures(fields: Mapping[str, Any]) -> str:
    total = _value(fields, "total_amount") or "?"
    currency = _value(fields, "currency") or ""
    vendor = _value(fields, "vendor_name") or "no supplier"
    return f"total {total} {currency}".rstrip() + f", {vendor}"


def compare(
    fields: Mapping[str, Any], orders: Sequence[Mapping[str, Any]], rules: OrderRules
) -> OrderVerdict | None:
    """The verdict against the newest finalized order cited (several finalized versions of
    one number: the latest is the order)."""
    if not orders:
        return None
    order = max(orders, key=lambda o: str(o.get("updatedAt", "")))
    theirs = order.get("fields") or {}
    summary: CitedOrder = {
        "documentId": order.get("documentId"),
        "po_number": _value(theirs, "po_number"),
        "fields": {
            n: theirs[n] for n in ("vendor_name", "currency", "total_amount") if n in theirs
        },
    }
    total, their_total = _value(fields, "total_amount"), _value(theirs, "total_amount")
    if total is None or their_total is None:
        return None
    differences = []
    vendor, their_vendor = _value(fields, "vendor_name"), _value(theirs, "vendor_name")
    if vendor and their_vendor and _fold(vendor) != _fold(their_vendor):
        differences.append("supplier")
    currency, their_currency = _value(fields, "currency"), _value(theirs, "currency")
    if currency and their_currency and currency != their_currency:
        differences.append("currency")
    mine, expected = Decimal(total), Decimal(their_total)
    slack = max(abs(expected) * rules.total_tolerance, rules.total_tolerance_abs)
    if abs(mine - expected) > slack:
        differences.append("total")
    return OrderVerdict("mismatch" if differences else "match", summary, tuple(differences))


def confirmed(fields: Mapping[str, FieldValue]) -> dict[str, FieldValue]:
    """The fields after a match: the amounts and currency confident, their evidence noted."""
    out = dict(fields)
    for name in _CONFIRMED:
        if name in out and isinstance(out[name], Mapping):
            got = out[name].copy()
            got["confidence"] = max(float(got.get("confidence", 0.0)), PO_MATCH)
            out[name] = got
    return out
