"""The order store's items, as records: an order, a receipt against it, a bill (an invoice's or
a credit note's share of it), an invoice waiting for it. All of one order live in its
partition (`OrderKey.pk`), so one consistent Query reads an order whole.

    sk ORDER                       the order as its latest finalized version said it: supplier,
                                   number, currency, total, lines; and its balance: `billed`
                                   (the amount billed, credit notes given back) and, per order
                                   line n, `bq_<n>` (the quantity billed)
    sk RECEIPT#<documentId>        a delivery note's lines (a newer version replaces its own)
    sk BILL#<documentId>           an invoice's or credit note's consumption: its amount and
                                   quantities per order line, `reserved` from its match until
                                   it finalizes (`billed`) or is archived (`released`)
    sk WAIT#<documentId>#<runId>#<kind>#<round>
                                   an invoice waiting for the order or a receipt: the callback
                                   to complete, and `woken` once it was

Amounts and quantities are decimal strings in the records; the balance's counters are
DynamoDB numbers, so that a conditional update adds to them. Pure: no AWS here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypedDict

from docflow.matching.keys import OrderKey
from docflow.matching.lines import Line, LineJson, decimal_of

ORDER_SK = "ORDER"
RECEIPT, BILL, WAIT = "RECEIPT#", "BILL#", "WAIT#"
RESERVED, BILLED, RELEASED = "reserved", "billed", "released"
ZERO = Decimal("0")


class OrderItem(TypedDict):
    """The order's own attributes as its run writes them (`total` None: left out)."""

    pk: str
    sk: str
    orderNumber: str
    supplier: str
    number: str
    printed: str
    documentId: str
    version: str
    runOrder: str
    vendor: str
    currency: str
    total: str | None
    lines: list[LineJson]
    linesVerified: bool
    finalizedAt: str


class ReceiptItem(TypedDict):
    pk: str
    sk: str
    documentId: str
    version: str
    runOrder: str
    number: str
    deliveredOn: str
    lines: list[LineJson]
    linesVerified: bool


class BillItem(TypedDict):
    """A bill as put (`overriddenBy` None: left out); quantities by order line number."""

    pk: str
    sk: str
    documentId: str
    version: str
    runOrder: str
    role: str
    number: str
    amount: str
    quantities: dict[str, str]
    state: str
    at: str
    overriddenBy: str | None


class WaiterItem(TypedDict):
    pk: str
    sk: str
    documentId: str
    version: str
    runId: str
    kind: str
    round: int
    callbackId: str
    since: str


def qty_attribute(order_line: int) -> str:
    """The balance counter of one order line's billed quantity."""
    return f"bq_{order_line}"


def _amount(raw: Any) -> Decimal | None:
    return decimal_of(raw)


def _lines(raw: Any) -> tuple[Line, ...]:
    return tuple(Line.from_json(r) for r in raw or ())


@dataclass(frozen=True)
class OrderRecord:
    key: OrderKey
    document_id: str
    version: str
    run_order: str
    vendor: str  # as printed
    currency: str
    total: Decimal | None
    lines: tuple[Line, ...]
    lines_verified: bool
    finalized_at: str
    billed: Decimal = ZERO
    billed_qty: Mapping[int, Decimal] = field(default_factory=dict)

    def item(self) -> OrderItem:
        """The order's own attributes (its balance is the store's to update)."""
        return {
            "pk": self.key.pk,
            "sk": ORDER_SK,
            "orderNumber": self.key.number,  # the by-number index: `docflow orders show PO`
            "supplier": self.key.supplier,
            "number": self.key.number,
            "printed": self.key.printed,
            "documentId": self.document_id,
            "version": self.version,
            "runOrder": self.run_order,
            "vendor": self.vendor,
            "currency": self.currency,
            "total": str(self.total) if self.total is not None else None,
            "lines": [line.to_json() for line in self.lines],
            "linesVerified": self.lines_verified,
            "finalizedAt": self.finalized_at,
        }

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> OrderRecord:
        counters = {
            int(name[3:]): Decimal(str(value))
            for name, value in item.items()
            if name.startswith("bq_") and name[3:].isdigit()
        }
        return cls(
            key=OrderKey(str(item["supplier"]), str(item["number"]), str(item.get("printed", ""))),
            document_id=str(item["documentId"]),
            version=str(item["version"]),
            run_order=str(item["runOrder"]),
            vendor=str(item.get("vendor", "")),
            currency=str(item.get("currency", "")),
            total=_amount(item.get("total")),
            lines=_lines(item.get("lines")),
            lines_verified=bool(item.get("linesVerified", False)),
            finalized_at=str(item.get("finalizedAt", "")),
            billed=Decimal(str(item.get("billed", 0))),
            billed_qty=counters,
        )


@dataclass(frozen=True)
class ReceiptRecord:
    document_id: str
    version: str
    run_order: str
    number: str  # the delivery note's own number, as printed
    delivered_on: str
    lines: tuple[Line, ...]
    lines_verified: bool

    def item(self, key: OrderKey) -> ReceiptItem:
        return {
            "pk": key.pk,
            "sk": RECEIPT + self.document_id,
            "documentId": self.document_id,
            "version": self.version,
            "runOrder": self.run_order,
            "number": self.number,
            "deliveredOn": self.delivered_on,
            "lines": [line.to_json() for line in self.lines],
            "linesVerified": self.lines_verified,
        }

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> ReceiptRecord:
        return cls(
            document_id=str(item["documentId"]),
            version=str(item["version"]),
            run_order=str(item["runOrder"]),
            number=str(item.get("number", "")),
            delivered_on=str(item.get("deliveredOn", "")),
            lines=_lines(item.get("lines")),
            lines_verified=bool(item.get("linesVerified", False)),
        )


@dataclass(frozen=True)
class BillRecord:
    """An invoice's (positive) or credit note's (negative) share of an order."""

    document_id: str
    version: str
    run_order: str
    role: str  # bill | credit
    number: str  # the invoice's own number, as printed
    amount: Decimal  # signed: what it adds to the order's `billed`
    quantities: Mapping[int, Decimal]  # signed, by order line
    state: str = RESERVED
    at: str = ""
    overridden_by: str = ""  # a reviewer who approved it past the balance or a difference

    def item(self, key: OrderKey) -> BillItem:
        return {
            "pk": key.pk,
            "sk": BILL + self.document_id,
            "documentId": self.document_id,
            "version": self.version,
            "runOrder": self.run_order,
            "role": self.role,
            "number": self.number,
            "amount": str(self.amount),
            "quantities": {str(k): str(v) for k, v in sorted(self.quantities.items())},
            "state": self.state,
            "at": self.at,
            "overriddenBy": self.overridden_by or None,
        }

    @property
    def counts(self) -> bool:
        """Does it weigh on the balance? Released ones gave theirs back."""
        return self.state in (RESERVED, BILLED)

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> BillRecord:
        return cls(
            document_id=str(item["documentId"]),
            version=str(item["version"]),
            run_order=str(item["runOrder"]),
            role=str(item.get("role", "bill")),
            number=str(item.get("number", "")),
            amount=Decimal(str(item.get("amount", "0"))),
            quantities={int(k): Decimal(str(v)) for k, v in (item.get("quantities") or {}).items()},
            state=str(item.get("state", RESERVED)),
            at=str(item.get("at", "")),
            overridden_by=str(item.get("overriddenBy") or ""),
        )


@dataclass(frozen=True)
class Waiter:
    document_id: str
    version: str
    run_id: str
    kind: str  # order | receipt
    round: int
    callback_id: str
    since: str
    woken: bool = False

    @property
    def sk(self) -> str:
        return f"{WAIT}{self.document_id}#{self.run_id}#{self.kind}#{self.round}"

    def item(self, key: OrderKey) -> WaiterItem:
        return {
            "pk": key.pk,
            "sk": self.sk,
            "documentId": self.document_id,
            "version": self.version,
            "runId": self.run_id,
            "kind": self.kind,
            "round": self.round,
            "callbackId": self.callback_id,
            "since": self.since,
        }

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> Waiter:
        return cls(
            document_id=str(item["documentId"]),
            version=str(item["version"]),
            run_id=str(item.get("runId", "")),
            kind=str(item["kind"]),
            round=int(item.get("round", 0)),
            callback_id=str(item["callbackId"]),
            since=str(item.get("since", "")),
            woken=bool(item.get("woken", False)),
        )


@dataclass(frozen=True)
class OrderFile:
    """An order's partition read whole: the order (None before it is finalized), its
    receipts, its bills, the invoices waiting for it."""

    order: OrderRecord | None
    receipts: tuple[ReceiptRecord, ...] = ()
    bills: tuple[BillRecord, ...] = ()
    waiters: tuple[Waiter, ...] = ()

    def bill_of(self, document_id: str) -> BillRecord | None:
        return next((b for b in self.bills if b.document_id == document_id), None)

    @staticmethod
    def parse(items: Sequence[Mapping[str, Any]]) -> OrderFile:
        order = None
        receipts: list[ReceiptRecord] = []
        bills: list[BillRecord] = []
        waiters: list[Waiter] = []
        for item in items:
            sk = str(item.get("sk", ""))
            if sk == ORDER_SK and item.get("documentId"):
                order = OrderRecord.from_item(item)
            elif sk.startswith(RECEIPT):
                receipts.append(ReceiptRecord.from_item(item))
            elif sk.startswith(BILL):
                bills.append(BillRecord.from_item(item))
            elif sk.startswith(WAIT):
                waiters.append(Waiter.from_item(item))
        return OrderFile(order, tuple(receipts), tuple(bills), tuple(waiters))
