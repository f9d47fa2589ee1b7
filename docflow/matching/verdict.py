"""One invoice (or credit note) against its order, its receipts and what is left of the order.

    basis       `lines` where both the invoice's and the order's lines were read with
                confidence (an e-invoice's always; a page's `lines` table when its checks ran
                and passed); else `header`, and the record says why: the amount is held to
                what is left of the order, the currency to the order's, and no line is judged
    balance     the order's `billed` and each line's billed quantity, without what this same
                document (any version of it) took before: a newer version replaces its own
    differences each one a code, a message a person reads, and the line it concerns:

        no-order       the order never came (or came for another supplier: never matched)
        no-supplier    the invoice cites an order but no supplier could be read
        no-receipt     three-way: no goods receipt came for the order
        not-received   three-way: billed more of a line than was received
        price          a unit price beyond `unit_price_tolerance` of the order's
        quantity       a line billed beyond its ordered quantity
        over-billed    more than is left of the order (its amount or a line's quantity), with
                       what was billed before
        over-credited  a credit note gives back more than was billed
        unordered      an invoice line the order does not have
        currency       another currency than the order's
        unread         a value the check needs was not read (absence is no pass)

Pure: records in, a judgement out; `docflow.pipeline.matching` reads and writes the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NotRequired, TypedDict

from docflow.matching.keys import BILL, CREDIT
from docflow.matching.lines import Line, Pair, pair_lines
from docflow.matching.records import ZERO, OrderFile, OrderRecord
from docflow.rules.matching import MatchRules

LINES, HEADER, NONE = "lines", "header", "none"
BALANCE_CODES = frozenset({"quantity", "over-billed", "over-credited", "not-received"})
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Bill:
    """The invoice's side: what it bills (or a credit note gives back)."""

    role: str  # BILL or CREDIT
    document_id: str
    number: str
    currency: str
    total: Decimal | None
    lines: tuple[Line, ...]
    lines_verified: bool
    why_unverified: str = ""  # why its lines are not matched, when they are not


class DifferenceJson(TypedDict):
    code: str
    message: str
    line: NotRequired[int]
    orderLine: NotRequired[int]


@dataclass(frozen=True)
class Difference:
    code: str
    message: str
    line: int = 0  # the invoice line's number; 0 for the document as a whole
    order_line: int = 0

    def to_json(self) -> DifferenceJson:
        out: DifferenceJson = {"code": self.code, "message": self.message}
        if self.line:
            out["line"] = self.line
        if self.order_line:
            out["orderLine"] = self.order_line
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Difference:
        return cls(
            str(raw["code"]),
            str(raw["message"]),
            int(raw.get("line", 0)),
            int(raw.get("orderLine", 0)),
        )


@dataclass(frozen=True)
class Bounds:
    """What the order's counters may be after this document's consumption is added: at most
    `limit`, at least `floor` (None: unbounded). The store turns them into conditions."""

    limit: Decimal | None = None
    floor: Decimal | None = None


@dataclass(frozen=True)
class Judgement:
    basis: str
    basis_why: str
    differences: tuple[Difference, ...]
    pairs: tuple[Pair, ...] = ()
    received: Mapping[int, Decimal] = field(default_factory=dict)
    billed_before: Decimal = ZERO
    amount: Decimal = ZERO  # signed: what it adds to the order's `billed`
    quantities: Mapping[int, Decimal] = field(default_factory=dict)  # signed, by order line
    amount_bounds: Bounds = Bounds()
    quantity_bounds: Mapping[int, Bounds] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not self.differences

    @property
    def within_balance(self) -> bool:
        """May it take its share of the order now: an order, a total read on both sides, and
        nothing it would overdraw?"""
        unread_total = any(d.code == "unread" and not d.line for d in self.differences)
        overdraws = any(d.code in BALANCE_CODES for d in self.differences)
        return self.basis != NONE and not unread_total and not overdraws


def _fmt(value: Decimal | None) -> str:
    """A quantity as printed plainly: `40`, `2.5`."""
    if value is None:
        return "?"
    return f"{value.normalize():f}" if value == value.to_integral() else f"{value:f}"


def money(value: Decimal | None) -> str:
    """An amount or a price: `1,265.00`; a price with more places keeps them (`0.1234`)."""
    if value is None:
        return "?"
    places = max(2, -int(value.normalize().as_tuple().exponent))
    return f"{value:,.{places}f}"


def _name(line: Line) -> str:
    words = line.description[:60] or line.item_id
    return f"line {line.number} ({words})" if words else f"line {line.number}"


def _standing(
    file: OrderFile, order: OrderRecord, document_id: str
) -> tuple[Decimal, dict[int, Decimal]]:
    """The order's balance without what this document (any version) took before."""
    billed, quantities = order.billed, dict(order.billed_qty)
    for bill in file.bills:
        if bill.document_id == document_id and bill.counts:
            billed -= bill.amount
            for line, qty in bill.quantities.items():
                quantities[line] = quantities.get(line, ZERO) - qty
    return billed, quantities


def received_by_line(
    file: OrderFile, order: OrderRecord, min_score: int
) -> dict[int, Decimal] | None:
    """What the receipts delivered, by order line number; None when a receipt's lines were
    not read with confidence (then only its presence is known)."""
    received: dict[int, Decimal] = {}
    for receipt in file.receipts:
        if not receipt.lines_verified or not receipt.lines:
            return None
        for pair in pair_lines(receipt.lines, order.lines, min_score):
            qty = receipt.lines[pair.invoice].quantity
            if pair.order is not None and qty is not None:
                number = order.lines[pair.order].number
                received[number] = received.get(number, ZERO) + qty
    return received


def judge(bill: Bill, file: OrderFile, rules: MatchRules, three_way: bool) -> Judgement:
    order = file.order
    if order is None:
        return Judgement(NONE, "", (Difference("no-order", "no finalized order came"),))
    billed, quantities = _standing(file, order, bill.document_id)
    diffs: list[Difference] = []
    if bill.currency and order.currency and bill.currency != order.currency:
        diffs.append(
            Difference("currency", f"billed in {bill.currency}, ordered in {order.currency}")
        )
    receipts_needed = three_way and bill.role == BILL
    # By order line, what the receipts delivered; None: no line is held to a receipt (none
    # is needed, none came: `no-receipt` says so once, or one was read unsure: the header).
    received = None
    if receipts_needed and file.receipts:
        received = received_by_line(file, order, rules.description_min_score)
    if receipts_needed and not file.receipts:
        diffs.append(Difference("no-receipt", "no goods receipt came for the order"))
    amount, amount_bounds = _amount(bill, order, billed, rules, diffs)
    basis, why = _basis(bill, order)
    if receipts_needed and file.receipts and received is None and basis == LINES:
        basis, why = HEADER, "a goods receipt's lines were not read with confidence"
    if basis != LINES:
        return Judgement(basis, why, tuple(diffs), (), {}, billed, amount, {}, amount_bounds)
    pairs = pair_lines(bill.lines, order.lines, rules.description_min_score)
    taken: dict[int, Decimal] = {}
    bounds: dict[int, Bounds] = {}
    for pair in pairs:
        mine = bill.lines[pair.invoice]
        if pair.order is None:
            diffs.append(Difference("unordered", f"{_name(mine)} is not on the order", mine.number))
            continue
        theirs = order.lines[pair.order]
        _price(mine, theirs, rules, diffs)
        got = _quantity(bill.role, mine, theirs, quantities, received, rules, diffs)
        if got is not None:
            taken[theirs.number], bounds[theirs.number] = got
    return Judgement(
        LINES,
        "",
        tuple(diffs),
        tuple(pairs),
        dict(received or {}),
        billed,
        amount,
        taken,
        amount_bounds,
        bounds,
    )


def _basis(bill: Bill, order: OrderRecord) -> tuple[str, str]:
    if not bill.lines_verified or not bill.lines:
        return HEADER, bill.why_unverified or "the invoice's lines were not read with confidence"
    if not order.lines_verified or not order.lines:
        return HEADER, "the order's lines were not read with confidence"
    return LINES, ""


def _amount(
    bill: Bill, order: OrderRecord, billed: Decimal, rules: MatchRules, diffs: list[Difference]
) -> tuple[Decimal, Bounds]:
    """The amount it takes (a credit note: gives back), checked against what is left."""
    if bill.total is None or order.total is None:
        whose = "invoice's" if bill.total is None else "order's"
        diffs.append(Difference("unread", f"the {whose} total was not read"))
        return ZERO, Bounds()
    slack = rules.total.slack(order.total)
    if bill.role == CREDIT:
        if bill.total > billed + slack:
            diffs.append(
                Difference(
                    "over-credited",
                    f"gives back {money(bill.total)} {bill.currency} of an order billed "
                    f"{money(billed)} so far",
                )
            )
        return -bill.total, Bounds(floor=-slack)
    limit = order.total + slack
    if billed + bill.total > limit:
        left = order.total - billed
        diffs.append(
            Difference(
                "over-billed",
                f"bills {money(bill.total)} {bill.currency} where {money(left)} is left of the "
                f"order's {money(order.total)} ({money(billed)} billed before)",
            )
        )
    return bill.total, Bounds(limit=limit)


def _price(mine: Line, theirs: Line, rules: MatchRules, diffs: list[Difference]) -> None:
    ordered = theirs.price
    if ordered is None:
        return  # the order names no price for it: the amount is what is held
    billed = mine.price
    if billed is None:
        diffs.append(
            Difference(
                "unread", f"{_name(mine)}: no unit price was read", mine.number, theirs.number
            )
        )
        return
    slack = rules.unit_price.slack(ordered)
    if abs(billed - ordered) > slack:
        share = f" ({(billed - ordered) / ordered * 100:+.1f}%)" if ordered else ""
        diffs.append(
            Difference(
                "price",
                f"{_name(mine)}: unit price {money(billed)} where the order says "
                f"{money(ordered)}{share}, beyond the {money(slack)} allowed",
                mine.number,
                theirs.number,
            )
        )


def _quantity(
    role: str,
    mine: Line,
    theirs: Line,
    quantities: Mapping[int, Decimal],
    received: Mapping[int, Decimal] | None,
    rules: MatchRules,
    diffs: list[Difference],
) -> tuple[Decimal, Bounds] | None:
    """The quantity it takes from the order line (signed) and the line's bounds after it."""
    before = quantities.get(theirs.number, ZERO)
    qty = mine.quantity
    if qty is None:
        if theirs.quantity is not None:
            diffs.append(
                Difference(
                    "unread", f"{_name(mine)}: no quantity was read", mine.number, theirs.number
                )
            )
        return None
    if role == CREDIT:
        if qty > before:
            diffs.append(
                Difference(
                    "over-credited",
                    f"{_name(mine)}: gives back {_fmt(qty)} of {_fmt(before)} billed",
                    mine.number,
                    theirs.number,
                )
            )
        return -qty, Bounds(floor=ZERO)
    limits: list[Decimal] = []
    if theirs.quantity is not None:
        allowed = theirs.quantity + rules.quantity.slack(theirs.quantity)
        limits.append(allowed)
        if before + qty > allowed:
            code = "over-billed" if before > 0 and qty <= allowed else "quantity"
            said = f", {_fmt(before)} billed before" if before > 0 else ""
            diffs.append(
                Difference(
                    code,
                    f"{_name(mine)}: bills {_fmt(qty)} of {_fmt(theirs.quantity)} ordered{said}",
                    mine.number,
                    theirs.number,
                )
            )
    if received is not None:
        got = received.get(theirs.number, ZERO)
        base = theirs.quantity if theirs.quantity is not None else got
        allowed = got + rules.quantity.slack(base)
        limits.append(allowed)
        if before + qty > allowed:
            said = f" ({_fmt(before)} billed before)" if before > 0 else ""
            diffs.append(
                Difference(
                    "not-received",
                    f"{_name(mine)}: bills {_fmt(qty)} where {_fmt(got)} was received{said}",
                    mine.number,
                    theirs.number,
                )
            )
    return qty, Bounds(limit=min(limits) if limits else None)
