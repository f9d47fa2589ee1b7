"""A document's lines, and an invoice's lines paired with its order's.

A line is what the invoice, the order or the delivery note prints for one item: its item
number where it prints one, its words, its quantity, its unit price and its amount (a page's
`lines` table, or an e-invoice's BG-25 lines, which are exact). Pairs are made in tiers, best
first, each line used once:

    item     both print an item number, and it is the same (normalized as order numbers are)
    words    the same words (case, spacing and punctuation aside)
    fuzzy    words alike by rapidfuzz's token_set_ratio, at least `[matching]
             description_min_score`; among several, the nearest unit price, then quantity

Two lines that both print an item number and differ in it are never paired by their words:
they are different items. Pure: lines in, pairs out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple, NotRequired, TypedDict

from rapidfuzz import fuzz, process, utils

from docflow.suppliers.duplicate_keys import number_key

ITEM, WORDS, FUZZY = "item", "words", "fuzzy"
MAX_LINES = 500  # as many rows as a table keeps (docs/fields.md)
_SPACE = re.compile(r"[\W_]+")


def decimal_of(raw: Any) -> Decimal | None:
    """A cell's number (`"12.5"`, `"1100.00"`); None if it has none. Values arrive in their
    kinds' normal forms (docflow/extract/values.py), so no locale is guessed here."""
    if raw is None or isinstance(raw, bool):
        return None
    try:
        value = Decimal(str(raw).strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _text(raw: Any) -> str:
    return " ".join(str(raw or "").split())


class LineJson(TypedDict):
    """A line as the order store and match.json keep it: numbers as decimal strings, each
    only where the document prints it."""

    number: int
    description: str
    quantity: NotRequired[str]
    unitPrice: NotRequired[str]
    amount: NotRequired[str]
    itemId: NotRequired[str]


@dataclass(frozen=True)
class Line:
    number: int  # 1-based, its place on its document
    description: str
    quantity: Decimal | None = None
    unit_price: Decimal | None = None
    amount: Decimal | None = None
    item_id: str = ""  # as printed; "" when none is

    @property
    def price(self) -> Decimal | None:
        """The unit price as printed, or the amount over the quantity where only those are."""
        if self.unit_price is not None:
            return self.unit_price
        if self.amount is not None and self.quantity:
            return (self.amount / self.quantity).quantize(Decimal("0.0001"))
        return None

    @property
    def item(self) -> str:
        """The item number's normal form (case, separators and leading zeros aside)."""
        return item_key(self.item_id)

    @property
    def words(self) -> str:
        return _SPACE.sub(" ", self.description.casefold()).strip()

    def to_json(self) -> LineJson:
        out: LineJson = {"number": self.number, "description": self.description}
        if self.quantity is not None:
            out["quantity"] = str(self.quantity)
        if self.unit_price is not None:
            out["unitPrice"] = str(self.unit_price)
        if self.amount is not None:
            out["amount"] = str(self.amount)
        if self.item_id:
            out["itemId"] = self.item_id
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Line:
        return cls(
            number=int(raw["number"]),
            description=str(raw.get("description", "")),
            quantity=decimal_of(raw.get("quantity")),
            unit_price=decimal_of(raw.get("unitPrice")),
            amount=decimal_of(raw.get("amount")),
            item_id=str(raw.get("itemId", "")),
        )


def item_key(raw: Any) -> str:
    text = _text(raw)
    return number_key(text) if text else ""


def lines_from_rows(rows: Iterable[Mapping[str, Any]]) -> tuple[Line, ...]:
    """A page's `lines` table (rows of `item_id`, `description`, `quantity`, `unit_price`,
    `amount`, each in its kind's normal form); rows without words or numbers are skipped."""
    out: list[Line] = []
    for row in rows:
        line = Line(
            number=len(out) + 1,
            description=_text(row.get("description"))[:200],
            quantity=decimal_of(row.get("quantity")),
            unit_price=decimal_of(row.get("unit_price")),
            amount=decimal_of(row.get("amount")),
            item_id=_text(row.get("item_id"))[:64],
        )
        if line.description or line.item_id:
            out.append(line)
        if len(out) >= MAX_LINES:
            break
    return tuple(out)


def lines_from_einvoice(lines: Iterable[Mapping[str, Any]]) -> tuple[Line, ...]:
    """An e-invoice's lines (docflow.einvoice.record.Line as JSON): BT-153 name, BT-129
    quantity, BT-146 net price, BT-131 net amount, BT-155 the seller's item number."""
    out: list[Line] = []
    for raw in lines:
        out.append(
            Line(
                number=len(out) + 1,
                description=_text(raw.get("description"))[:200],
                quantity=decimal_of(raw.get("quantity")),
                unit_price=decimal_of(raw.get("unit_price")),
                amount=decimal_of(raw.get("net")),
                item_id=_text(raw.get("item_id"))[:64],
            )
        )
        if len(out) >= MAX_LINES:
            break
    return tuple(out)


@dataclass(frozen=True)
class Pair:
    """An invoice line (its index) and the order line it bills (its index), or None."""

    invoice: int
    order: int | None
    how: str = ""
    score: int = 0


def _gap(a: Decimal | None, b: Decimal | None) -> Decimal:
    return abs(a - b) if a is not None and b is not None else Decimal("Infinity")


class _Candidate(NamedTuple):
    tier: int
    score: int
    price_gap: Decimal
    quantity_gap: Decimal
    distance: int  # how far apart the two lines stand: a copied order keeps its line order
    order: int
    invoice: int
    how: str

    @property
    def rank(self) -> tuple[int, int, Decimal, Decimal, int, int, int]:
        return (
            self.tier,
            -self.score,
            self.price_gap,
            self.quantity_gap,
            self.distance,
            self.order,
            self.invoice,
        )


def pair_lines(invoice: Sequence[Line], order: Sequence[Line], min_score: int = 80) -> list[Pair]:
    """Each invoice line with the order line it bills (tiers above), in the invoice's order."""
    scores = _scores(invoice, order, min_score)
    candidates: list[_Candidate] = []
    for i, mine in enumerate(invoice):
        for o, theirs in enumerate(order):
            if mine.item and theirs.item:
                if mine.item != theirs.item:
                    continue  # two different items, whatever their words say
                tier, how, score = 0, ITEM, 100
            elif mine.words and mine.words == theirs.words:
                tier, how, score = 1, WORDS, 100
            else:
                score = int(scores[i][o]) if scores else 0
                if score < min_score or not mine.words:
                    continue
                tier, how = 2, FUZZY
            price = _gap(mine.price, theirs.price)
            quantity = _gap(mine.quantity, theirs.quantity)
            candidates.append(_Candidate(tier, score, price, quantity, abs(i - o), o, i, how))
    paired: dict[int, Pair] = {}
    used: set[int] = set()
    for c in sorted(candidates, key=lambda c: c.rank):
        if c.invoice not in paired and c.order not in used:
            paired[c.invoice] = Pair(c.invoice, c.order, c.how, c.score)
            used.add(c.order)
    return [paired.get(i, Pair(i, None)) for i in range(len(invoice))]


def _scores(invoice: Sequence[Line], order: Sequence[Line], min_score: int) -> Any:
    """token_set_ratio of every invoice line's words against every order line's, at C speed
    (a 500 x 500 table in well under a second); empty when either side has no lines."""
    if not invoice or not order:
        return []
    return process.cdist(
        [line.description for line in invoice],
        [line.description for line in order],
        scorer=fuzz.token_set_ratio,
        processor=utils.default_process,
        score_cutoff=min_score,
    ).tolist()
