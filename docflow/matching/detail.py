"""match.json: an invoice's match as the match stage's page shows it, beside the run's small
`match` (docflow.matching.results): the invoice's lines, the order's with what was billed and
received of each, the pairs, every difference, and what other documents billed the order.
Pure: records in, JSON out (the match step writes it to S3, `docflow.storage.match_key`)."""

from __future__ import annotations

from typing import TypedDict

from docflow.matching.lines import LineJson
from docflow.matching.records import OrderFile
from docflow.matching.results import MatchJson, MatchRecord
from docflow.matching.verdict import Bill, DifferenceJson, Judgement


class InvoiceSide(TypedDict):
    number: str
    currency: str
    total: str | None
    lines: list[LineJson]
    linesVerified: bool


class OrderSide(TypedDict):
    """The order with what was billed of it, in all and per order line (by its number)."""

    documentId: str
    printed: str
    vendor: str
    currency: str
    total: str | None
    lines: list[LineJson]
    linesVerified: bool
    billed: str
    billedQuantities: dict[str, str]


class ReceiptShown(TypedDict):
    documentId: str
    number: str
    deliveredOn: str


class PairShown(TypedDict):
    """An invoice line's index, the order line's it bills (None: none), how, how alike."""

    invoice: int
    order: int | None
    how: str
    score: int


class OtherBill(TypedDict):
    """Another document's share of the order: what it billed (or gave back) and its state."""

    documentId: str
    number: str
    amount: str
    state: str
    at: str
    role: str


class MatchDetail(TypedDict):
    """match.json (the module's docstring): `received` is per order line, by its number."""

    match: MatchJson
    differences: list[DifferenceJson]
    invoice: InvoiceSide
    order: OrderSide | None
    received: dict[str, str]
    receipts: list[ReceiptShown]
    pairs: list[PairShown]
    bills: list[OtherBill]


def match_detail(
    record: MatchRecord, bill: Bill, file: OrderFile, judged: Judgement
) -> MatchDetail:
    """match.json: everything the match stage's page sets side by side."""
    order = file.order
    return {
        "match": record.to_json(),
        "differences": [d.to_json() for d in judged.differences],
        "invoice": {
            "number": bill.number,
            "currency": bill.currency,
            "total": str(bill.total) if bill.total is not None else None,
            "lines": [line.to_json() for line in bill.lines],
            "linesVerified": bill.lines_verified,
        },
        "order": (
            {
                "documentId": order.document_id,
                "printed": order.key.printed,
                "vendor": order.vendor,
                "currency": order.currency,
                "total": str(order.total) if order.total is not None else None,
                "lines": [line.to_json() for line in order.lines],
                "linesVerified": order.lines_verified,
                "billed": str(order.billed),
                "billedQuantities": {str(k): str(v) for k, v in order.billed_qty.items()},
            }
            if order
            else None
        ),
        "received": {str(k): str(v) for k, v in judged.received.items()},
        "receipts": [
            {"documentId": r.document_id, "number": r.number, "deliveredOn": r.delivered_on}
            for r in file.receipts
        ],
        "pairs": [
            {"invoice": p.invoice, "order": p.order, "how": p.how, "score": p.score}
            for p in judged.pairs
        ],
        "bills": [
            {
                "documentId": b.document_id,
                "number": b.number,
                "amount": str(b.amount),
                "state": b.state,
                "at": b.at,
                "role": b.role,
            }
            for b in file.bills
            if b.document_id != bill.document_id
        ],
    }
