"""The `match` stage's part of the review page (docs/matching.md): the invoice's lines beside
the order's, with what was received and billed before of each, every difference marked on its
line and said in words; the order, what is left of it and who billed it before; and the basis
the match was made on.

It reads the match step's `match.json` as the contract writes it (docflow.matching.detail),
not through docflow.matching's records: the reviewers' door loads none of the matcher. Every
text a person sees passes the detectors' masking, as the page text does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from docflow.review.stage.masking import masked_value
from docflow.rules.matching import MATCH_BECAUSE

__all__ = ["MATCH_BECAUSE", "MatchRow", "MatchView", "match_view"]

MAX_ROWS = 500  # as many lines as a table keeps; the rest are in the download
# The differences' codes as a reviewer reads them (their messages say the figures).
CODES = {
    "no-order": "order never came",
    "no-supplier": "no supplier read",
    "no-receipt": "no goods receipt",
    "not-received": "not received",
    "price": "unit price",
    "quantity": "quantity over the order",
    "over-billed": "more than is left",
    "over-credited": "more than was billed",
    "unordered": "not on the order",
    "currency": "currency",
    "unread": "not read",
    "superseded": "a newer version",
}
# Which cells of a line a difference marks.
MARKS = {
    "price": ("price_billed", "price_ordered"),
    "quantity": ("qty_billed", "qty_ordered"),
    "over-billed": ("qty_billed", "billed_before"),
    "over-credited": ("qty_billed", "billed_before"),
    "not-received": ("qty_billed", "qty_received"),
    "unordered": ("description",),
    "unread": ("qty_billed", "price_billed"),
}
STATES = {
    "reserved": "held for an invoice under review",
    "billed": "billed",
    "released": "given back",
}


def _number(raw: Any) -> Decimal | None:
    try:
        value = Decimal(str(raw))
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() else None


def money(raw: Any) -> str:
    value = _number(raw)
    if value is None:
        return ""
    places = max(2, -int(value.normalize().as_tuple().exponent))
    return f"{value:,.{places}f}"


def quantity(raw: Any) -> str:
    value = _number(raw)
    if value is None:
        return ""
    return f"{value.normalize():f}" if value == value.to_integral() else f"{value:f}"


@dataclass(frozen=True)
class MatchRow:
    kind: str  # billed | unordered | not-billed
    invoice_line: str
    order_line: str
    item: str
    description: str
    qty_billed: str
    qty_ordered: str
    qty_received: str
    billed_before: str
    price_billed: str
    price_ordered: str
    how: str  # how the two lines were paired
    marked: frozenset[str] = frozenset()
    said: tuple[str, ...] = ()


@dataclass(frozen=True)
class MatchView:
    readable: bool
    matched: bool
    order_number: str
    supplier: str
    order_document: str
    currency: str
    order_total: str
    billed_before: str
    left: str
    invoice_total: str
    basis: str  # lines | header | none
    basis_why: str
    three_way: bool
    receipts: list[str] = field(default_factory=list)
    rows: list[MatchRow] = field(default_factory=list)
    general: list[str] = field(default_factory=list)  # differences of no single line
    bills: list[dict[str, str]] = field(default_factory=list)
    tolerance: str = ""
    more_rows: int = 0

    @property
    def count(self) -> int:
        return len(self.general) + sum(len(r.said) for r in self.rows)


def _said(difference: Mapping[str, Any]) -> str:
    code = str(difference.get("code", ""))
    message = masked_value(str(difference.get("message", "")))
    return f"{CODES.get(code, code)}: {message}"


def _tolerance(raw: Mapping[str, Any] | None) -> str:
    if not raw:
        return ""
    out = []
    for key, name in (("unitPrice", "unit price"), ("quantity", "quantity"), ("total", "total")):
        part = raw.get(key) or {}
        share = _number(part.get("share")) or Decimal(0)
        absolute = _number(part.get("absolute")) or Decimal(0)
        out.append(f"{name} {share * 100:g}% or {quantity(absolute)}")
    return "; ".join(out)


def _by_line(differences: Sequence[Mapping[str, Any]]) -> tuple[dict[int, list[Any]], list[str]]:
    lines: dict[int, list[Any]] = {}
    general: list[str] = []
    for d in differences:
        if d.get("line"):
            lines.setdefault(int(d["line"]), []).append(d)
        else:
            general.append(_said(d))
    return lines, general


def _rows(detail: Mapping[str, Any]) -> list[MatchRow]:
    invoice = list((detail.get("invoice") or {}).get("lines") or [])
    order = detail.get("order") or {}
    ordered = list(order.get("lines") or [])
    received = detail.get("received") or {}
    before = order.get("billedQuantities") or {}
    by_line, _general = _by_line(detail.get("differences") or [])
    rows: list[MatchRow] = []
    paired: set[int] = set()
    for pair in detail.get("pairs") or []:
        mine = invoice[int(pair["invoice"])] if int(pair["invoice"]) < len(invoice) else {}
        theirs = ordered[int(pair["order"])] if pair.get("order") is not None else {}
        if pair.get("order") is not None:
            paired.add(int(pair["order"]))
        number = str(theirs.get("number", ""))
        said = by_line.get(int(mine.get("number", 0)), [])
        marked = frozenset(m for d in said for m in MARKS.get(str(d.get("code")), ()))
        rows.append(
            MatchRow(
                kind="billed" if theirs else "unordered",
                invoice_line=str(mine.get("number", "")),
                order_line=number,
                item=masked_value(str(mine.get("itemId") or theirs.get("itemId") or "")),
                description=masked_value(str(mine.get("description", ""))),
                qty_billed=quantity(mine.get("quantity")),
                qty_ordered=quantity(theirs.get("quantity")),
                qty_received=quantity(received.get(number)) if received else "",
                billed_before=quantity(before.get(number)) if theirs else "",
                price_billed=money(mine.get("unitPrice")),
                price_ordered=money(theirs.get("unitPrice")),
                how=str(pair.get("how") or ""),
                marked=marked,
                said=tuple(_said(d) for d in said),
            )
        )
    for index, theirs in enumerate(ordered):
        if index in paired or not detail.get("pairs"):
            continue
        number = str(theirs.get("number", ""))
        rows.append(
            MatchRow(
                kind="not-billed",
                invoice_line="",
                order_line=number,
                item=masked_value(str(theirs.get("itemId") or "")),
                description=masked_value(str(theirs.get("description", ""))),
                qty_billed="",
                qty_ordered=quantity(theirs.get("quantity")),
                qty_received=quantity(received.get(number)) if received else "",
                billed_before=quantity(before.get(number)),
                price_billed="",
                price_ordered=money(theirs.get("unitPrice")),
                how="",
            )
        )
    return rows


def match_view(match: Mapping[str, Any], detail: Mapping[str, Any] | None) -> MatchView:
    """The match as the page shows it: from the run's `match` and its `match.json` (None: it
    could not be read, and the page says so beside what the small record tells)."""
    ref = match.get("order") or {}
    if not detail:
        return MatchView(
            readable=False,
            matched=bool(match.get("matched")),
            order_number=str(ref.get("printed") or ref.get("number") or ""),
            supplier=str(ref.get("supplier") or ""),
            order_document=str(ref.get("documentId") or ""),
            currency="",
            order_total="",
            billed_before=money(match.get("billedBefore")),
            left="",
            invoice_total="",
            basis=str(match.get("basis", "")),
            basis_why=str(match.get("basisWhy", "")),
            three_way=bool(match.get("threeWay")),
            general=[_said(d) for d in match.get("differences") or []],
            tolerance=_tolerance(match.get("tolerance")),
        )
    order = detail.get("order") or {}
    invoice = detail.get("invoice") or {}
    total, before = _number(order.get("total")), _number(match.get("billedBefore"))
    _lines, general = _by_line(detail.get("differences") or [])
    rows = _rows(detail)
    return MatchView(
        readable=True,
        matched=bool(match.get("matched")),
        order_number=str(order.get("printed") or ref.get("printed") or ref.get("number") or ""),
        supplier=masked_value(str(order.get("vendor") or ref.get("supplier") or "")),
        order_document=str(order.get("documentId") or ""),
        currency=str(order.get("currency") or invoice.get("currency") or ""),
        order_total=money(total),
        billed_before=money(before),
        left=money(total - before) if total is not None and before is not None else "",
        invoice_total=money(invoice.get("total")),
        basis=str(match.get("basis", "")),
        basis_why=str(match.get("basisWhy", "")),
        three_way=bool(match.get("threeWay")),
        receipts=[
            f"{r.get('number') or r.get('documentId')}"
            + (f", delivered {r['deliveredOn']}" if r.get("deliveredOn") else "")
            for r in detail.get("receipts") or []
        ],
        rows=rows[:MAX_ROWS],
        general=general,
        bills=[
            {
                "number": str(b.get("number") or b.get("documentId") or ""),
                "amount": money(b.get("amount")),
                "state": STATES.get(str(b.get("state")), str(b.get("state"))),
                "credit": "yes" if b.get("role") == "credit" else "",
            }
            for b in detail.get("bills") or []
        ],
        tolerance=_tolerance(match.get("tolerance")),
        more_rows=max(0, len(rows) - MAX_ROWS),
    )
