"""`docflow orders show PO [--supplier NAME]`: a purchase order as matching sees it
(docs/matching.md): its lines with what was billed and received of each, its receipts, the
invoices and credit notes billed against it (and what is left), the invoices waiting for it.

Against the local stack when it runs (or --local), otherwise the table DOCFLOW_ORDER_TABLE
names in the configured AWS account: the orders of that number from the table's by-number
index (one Query), each order's partition by one consistent Query. An order number that two
suppliers use is two orders: both are listed, or the one `--supplier` names. With `--supplier`
an order that has not come yet is shown too, with the invoices waiting for it.
"""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal
from typing import Any, TypedDict

from docflow.cli.exits import NOT_FOUND, USAGE
from docflow.cli.output import print_json, table

ORDERS_SHAPE = (
    '{"orders": [ORDER]}; ORDER = {"supplier" (the name\'s normal form), "number" (the '
    'number\'s), "printed", "vendor" (as printed), "documentId", "version" (the purchase '
    'order finalized; null while it has not come), "currency", "total", "billed", "left" '
    '(amounts as decimal strings), "linesVerified": bool, "lines": [{"number", "itemId", '
    '"description", "quantity", "unitPrice", "amount", "billed", "received" (null without a '
    'receipt read line by line)}], "receipts": [{"documentId", "number", "deliveredOn", '
    '"lines": int}], "bills": [{"documentId", "number", "role": "bill"|"credit", "amount" '
    '(a credit note\'s negative), "state": "reserved"|"billed"|"released", "at", '
    '"overriddenBy"}], "waiting": [{"documentId", "kind": "order"|"receipt", "since", '
    '"woken": bool}]}'
)


class OrderLineJson(TypedDict):
    number: int
    itemId: str
    description: str
    quantity: str | None
    unitPrice: str | None
    amount: str | None
    billed: str
    received: str | None


class ReceiptJson(TypedDict):
    documentId: str
    number: str
    deliveredOn: str
    lines: int  # how many


class BillJson(TypedDict):
    documentId: str
    number: str
    role: str
    amount: str
    state: str
    at: str
    overriddenBy: str | None


class WaitingJson(TypedDict):
    documentId: str
    kind: str
    since: str
    woken: bool


class OrderJson(TypedDict):
    supplier: str
    number: str
    printed: str
    vendor: str
    documentId: str | None
    version: str | None
    currency: str
    total: str | None
    billed: str
    left: str | None
    linesVerified: bool
    lines: list[OrderLineJson]
    receipts: list[ReceiptJson]
    bills: list[BillJson]
    waiting: list[WaitingJson]


def _text(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def _money(value: Decimal | None) -> str | None:
    """An amount as docflow writes amounts (`1200.00`): the balance's counters come back
    from DynamoDB as plain numbers."""
    return None if value is None else str(value.quantize(Decimal("0.01")))


def order_json(file: Any, key: Any, min_score: int) -> OrderJson:
    """One order's partition as `--json` prints it."""
    from docflow.matching.verdict import received_by_line

    order = file.order
    received = received_by_line(file, order, min_score) if order and file.receipts else None
    lines: list[OrderLineJson] = [
        {
            "number": line.number,
            "itemId": line.item_id,
            "description": line.description,
            "quantity": _text(line.quantity),
            "unitPrice": _text(line.unit_price),
            "amount": _text(line.amount),
            "billed": str(order.billed_qty.get(line.number, Decimal(0))),
            "received": _text(received.get(line.number, Decimal(0))) if received else None,
        }
        for line in (order.lines if order else ())
    ]
    total = order.total if order else None
    billed = order.billed if order else Decimal(0)
    return {
        "supplier": key.supplier,
        "number": key.number,
        "printed": (order.key.printed if order else "") or key.printed,
        "vendor": order.vendor if order else "",
        "documentId": order.document_id if order else None,
        "version": order.version if order else None,
        "currency": order.currency if order else "",
        "total": _money(total),
        "billed": str(_money(billed)),
        "left": _money(total - billed) if total is not None else None,
        "linesVerified": bool(order and order.lines_verified),
        "lines": lines,
        "receipts": [
            {
                "documentId": r.document_id,
                "number": r.number,
                "deliveredOn": r.delivered_on,
                "lines": len(r.lines),
            }
            for r in file.receipts
        ],
        "bills": [
            {
                "documentId": b.document_id,
                "number": b.number,
                "role": b.role,
                "amount": str(_money(b.amount)),
                "state": b.state,
                "at": b.at,
                "overriddenBy": b.overridden_by or None,
            }
            for b in file.bills
        ],
        "waiting": [
            {"documentId": w.document_id, "kind": w.kind, "since": w.since, "woken": w.woken}
            for w in file.waiters
        ],
    }


def _store(args: argparse.Namespace) -> Any:
    from docflow.cli.stack import maybe_local
    from docflow.matching.store import OrderStore
    from docflow.settings import load_settings

    maybe_local(args)
    load_settings.cache_clear()
    return OrderStore(load_settings().order_table)


def cmd_orders(args: argparse.Namespace) -> int:
    from docflow.matching.keys import key_for, order_number, supplier_of
    from docflow.rules.model import load_rules
    from docflow.settings import load_settings

    store = _store(args)
    number = order_number(args.number)
    if not number:
        print(f"docflow: {args.number!r} is no order number (it has no digit)", file=sys.stderr)
        return USAGE
    if args.supplier:
        key = key_for(args.supplier, args.number)
        keys = [key] if key is not None else []
    else:
        keys = store.numbered(number)
    min_score = load_rules(load_settings().rules_path or None).matching.description_min_score
    shown = [order_json(store.read(k), k, min_score) for k in keys]
    shown = [o for o in shown if o["documentId"] or o["bills"] or o["receipts"] or o["waiting"]]
    if not shown:
        whose = f" of {supplier_of(args.supplier)}" if args.supplier else ""
        print(f"docflow: no order {args.number}{whose}", file=sys.stderr)
        return NOT_FOUND
    if args.json:
        print_json({"orders": shown})
        return 0
    for n, order in enumerate(shown):
        if n:
            print()
        _print(order)
    return 0


def _print(order: OrderJson) -> None:
    title = f"order {order['printed']} of {order['vendor'] or order['supplier']}"
    if order["documentId"]:
        print(f"{title}: {order['documentId']} (version {order['version']})")
        currency = order["currency"]
        print(f"total {order['total']} {currency}, billed {order['billed']}, left {order['left']}")
        if not order["linesVerified"]:
            print("its lines were not read with confidence: invoices match it on the total")
    else:
        print(f"{title}: not come yet")
    if order["lines"]:
        rows = [
            [
                line["number"],
                line["itemId"] or "-",
                line["description"][:40],
                line["quantity"] or "-",
                line["unitPrice"] or "-",
                line["billed"],
                line["received"] if line["received"] is not None else "-",
            ]
            for line in order["lines"]
        ]
        print(
            table(rows, ["line", "item", "description", "ordered", "price", "billed", "received"])
        )
    for receipt in order["receipts"]:
        print(
            f"receipt {receipt['number'] or receipt['documentId']}: {receipt['lines']} lines, "
            f"delivered {receipt['deliveredOn'] or '?'}"
        )
    for bill in order["bills"]:
        by = f", approved past the order by {bill['overriddenBy']}" if bill["overriddenBy"] else ""
        kind = "credit note" if bill["role"] == "credit" else "invoice"
        name = bill["number"] or bill["documentId"]
        print(f"{kind} {name}: {bill['amount']} {bill['state']}{by}")
    for waiting in order["waiting"]:
        if not waiting["woken"]:
            since = waiting["since"]
            print(f"waiting for its {waiting['kind']}: {waiting['documentId']} since {since}")


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["show"], help="show: the order, its receipts and bills")
    p.add_argument(
        "number", metavar="PO", help="the order's number, as printed (any case or separators)"
    )
    p.add_argument(
        "--supplier",
        metavar="NAME",
        help="the supplier's name as printed (any case, accents or legal form): the one order "
        "of that supplier, also when it has not come yet; without it, every supplier's order "
        "of that number",
    )
