"""Choosing net, tax and total among their candidates so that net + tax = total.

Each amount label on a page gives candidates (its cell, the cell to its right, the cells under
it), and a document often prints several: a line item's amount under a `Total` column header,
a subtotal per page, CGST and SGST on two lines. The reconciliation tries every combination of
the best few distinct values of each, plus the sum of two tax lines, and keeps the combination
that adds up (within a cent) with the highest summed score. What it chose is held by the
arithmetic as well as by its labels, so its confidence rises; where nothing adds up the
amounts keep their own scores and the checks send the document to a person.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from itertools import combinations, product
from typing import Protocol, TypeVar

TOLERANCE = Decimal("0.01")
TOP = 4  # distinct values tried per field
RECONCILED = 0.97  # the most the arithmetic lifts an amount to (before OCR scaling)
LIFT = 0.15  # what agreeing arithmetic adds to the weakest of the amounts it ties together
MAX_RATE = Decimal("0.35")


class AmountCandidate(Protocol):
    # Read-only, so a frozen dataclass (the rules engine's `Candidate`) is one.
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def order(self) -> int: ...


# The caller's own candidate type goes in and comes back out.
C = TypeVar("C", bound=AmountCandidate)


def _distinct(cands: Sequence[C]) -> list[C]:
    best: dict[str, C] = {}
    for c in sorted(cands, key=lambda c: (-c.confidence, -c.order)):
        best.setdefault(c.value, c)
    return list(best.values())[:TOP]


def reconcile(
    by_name: dict[str, list[C]],
) -> tuple[dict[str, tuple[C, ...]], bool, bool]:
    """({field: the candidates chosen (two for a sum of two lines)}, reconciled?, whether the
    tax's sign was turned to match a negative net and total).

    Only fields with candidates appear; without all three amounts nothing is reconciled.
    """
    nets = _distinct(by_name.get("net_amount", []))
    taxes = _distinct(by_name.get("tax_amount", []))
    totals = _distinct(by_name.get("total_amount", []))
    if not (nets and taxes and totals):
        return {}, False, False
    # Two tax lines (CGST + SGST, two rates) or two net lines (goods + shipping): their sum.
    net_options = _with_pairs(nets, by_name.get("net_amount", []))
    tax_options = _with_pairs(taxes, by_name.get("tax_amount", []))
    best: tuple[float, dict[str, tuple[C, ...]], bool] | None = None
    for net, tax, (total,) in product(net_options, tax_options, [(t,) for t in totals]):
        net_value = sum((Decimal(n.value) for n in net), Decimal(0))
        tax_value = sum((Decimal(t.value) for t in tax), Decimal(0))
        flipped = False
        if abs(net_value + tax_value - Decimal(total.value)) > TOLERANCE:
            # A credit note prints its tax without the sign its net and total carry.
            flipped = net_value < 0 and Decimal(total.value) < 0 and tax_value > 0
            if not flipped or abs(net_value - tax_value - Decimal(total.value)) > TOLERANCE:
                continue
        if Decimal(total.value) == 0 or any(n.order == total.order for n in net):
            continue
        # Line items add up too (198 + 275 = 473): a tax above 35% of the net is no tax.
        if abs(tax_value) > abs(net_value) * MAX_RATE:
            continue
        score = total.confidence + _mean(net) + _mean(tax)
        score -= 0.05 * (len(tax) + len(net) - 2 + flipped)  # the simpler explanation wins
        if best is None or score > best[0]:
            chosen = {"net_amount": net, "tax_amount": tax, "total_amount": (total,)}
            best = (score, chosen, flipped)
    if best is None:
        return {}, False, False
    return best[1], True, best[2]


def _mean(cands: tuple[AmountCandidate, ...]) -> float:
    return sum(c.confidence for c in cands) / len(cands)


def _with_pairs(best: list[C], every: Sequence[C]) -> list[tuple[C, ...]]:
    ordered = sorted(every, key=lambda c: c.order)[:6]
    options: list[tuple[C, ...]] = [(c,) for c in best]
    options += [p for p in combinations(ordered, 2) if p[0].order // 100 != p[1].order // 100]
    return options


def picked_all(picked: dict[str, tuple[C, ...]]) -> list[C]:
    return [c for parts in picked.values() for c in parts]
