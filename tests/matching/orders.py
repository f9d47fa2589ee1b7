"""Orders, bills and receipts as the matcher takes them, built in a line: what the matching unit
tests share (the property tests draw their lines from these catalogues)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from docflow.matching.keys import BILL, OrderKey
from docflow.matching.lines import Line
from docflow.matching.records import OrderFile, OrderRecord, ReceiptRecord
from docflow.matching.verdict import Bill

KEY = OrderKey("acme supplies", "PO4411", "PO-4411")
TAX = Decimal("1.20")
CENT = Decimal("0.01")

# Products an order is drawn from, each with its own words and item number; and products no
# order of these tests holds (an invoice line the order does not have).
CATALOGUE = (
    ("A-100", "Paper A4, box of 5 reams"),
    ("B-220", "Toner cartridge black"),
    ("C-310", "Stapler heavy duty"),
    ("D-415", "Ring binder 50 mm, blue"),
    ("E-520", "Whiteboard markers, set of 4"),
    ("F-630", "Desk lamp with LED bulb"),
    ("G-745", "Ergonomic office chair"),
    ("H-850", "USB-C docking station"),
)
STRANGERS = (
    ("X-901", "Catering for the annual party"),
    ("Y-902", "Window cleaning service"),
    ("Z-903", "Parking garage rent"),
)


def line(number: int, item: str, words: str, qty: str, price: str) -> Line:
    q, p = Decimal(qty), Decimal(price)
    return Line(number, words, q, p, (q * p).quantize(CENT), item)


def renumbered(lines: Sequence[Line]) -> tuple[Line, ...]:
    return tuple(
        Line(n, x.description, x.quantity, x.unit_price, x.amount, x.item_id)
        for n, x in enumerate(lines, 1)
    )


def total(lines: Sequence[Line]) -> Decimal:
    net = sum((x.amount or Decimal(0) for x in lines), Decimal(0))
    return (net * TAX).quantize(CENT)


def order(
    lines: Sequence[Line],
    billed: Decimal = Decimal(0),
    billed_qty: dict[int, Decimal] | None = None,
    verified: bool = True,
    currency: str = "EUR",
) -> OrderRecord:
    return OrderRecord(
        key=KEY,
        document_id="d-order",
        version="v1",
        run_order="1",
        vendor="ACME SUPPLIES LTD",
        currency=currency,
        total=total(lines),
        lines=tuple(lines),
        lines_verified=verified,
        finalized_at="2026-03-01T00:00:00+00:00",
        billed=billed,
        billed_qty=billed_qty or {},
    )


def bill(
    lines: Sequence[Line],
    role: str = BILL,
    verified: bool = True,
    currency: str = "EUR",
    amount: Decimal | None = None,
) -> Bill:
    return Bill(
        role=role,
        document_id="d-invoice",
        number="INV-1",
        currency=currency,
        total=total(lines) if amount is None else amount,
        lines=tuple(lines),
        lines_verified=verified,
    )


def receipt(lines: Sequence[Line], verified: bool = True, number: str = "DN-1") -> ReceiptRecord:
    return ReceiptRecord(f"d-{number}", "v1", "1", number, "2026-03-03", tuple(lines), verified)


def file_of(the_order: OrderRecord | None, receipts: Sequence[ReceiptRecord] = ()) -> OrderFile:
    return OrderFile(the_order, tuple(receipts))
