"""match.json: an invoice's match as the match stage's page shows it, beside the run's small
`match` (docflow.matching.results): the invoice's lines, the order's with what was billed and
received of each, the pairs, every difference, and what other documents billed the order.
Pure: records in, JSON out (the match step writes it to S3, `docflow.storage.match_key`)."""

from __future__ import annotations

from typing import Any

from docflow.matching.records import OrderFile
from docflow.matching.results import MatchRecord
from docflow.matching.verdict import Bill, Judgement


def match_detail(
    record: MatchRecord, bill: Bill, file: OrderFile, judged: Judgement
) -> dict[str, Any]:
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
