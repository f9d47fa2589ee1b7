"""The rules file's `[matching]` table: how an invoice is matched to the purchase order it cites
and to the goods received against it, and how long it waits for either (docs/matching.md).

    [matching]
    stage = "match"                  # where a discrepancy, or an order that never came, waits
    timeout_seconds = 604800         # how long an invoice waits for its order and receipts, in all
    three_way = false                # true: also wait for the goods receipt (a delivery note)
    unit_price_tolerance = 0.02      # a line's unit price may differ by this share ...
    unit_price_tolerance_abs = 0.01  # ... or this amount in the currency, whichever is larger
    quantity_tolerance = 0           # a line's quantity: a share of the ordered quantity ...
    quantity_tolerance_abs = 0       # ... or this many units, whichever is larger
    total_tolerance = 0.01           # the invoice's total against what is left of the order
    total_tolerance_abs = 0.05
    description_min_score = 80       # rapidfuzz token_set_ratio for a line paired by words

A table left out turns matching off (no invoice waits, nothing is consumed), as `[duplicates]`
does for its control. The stage must be defined under `[stages.NAME]`. Pure: the table in,
a record out, a ValueError naming what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

WEEK_S = 7 * 24 * 3600
_KEYS = {
    "stage",
    "timeout_seconds",
    "three_way",
    "unit_price_tolerance",
    "unit_price_tolerance_abs",
    "quantity_tolerance",
    "quantity_tolerance_abs",
    "total_tolerance",
    "total_tolerance_abs",
    "description_min_score",
}
# What each document type is to matching: an invoice bills the order, a credit note gives
# back, a purchase order is the order, a delivery note is a goods receipt.
BILLS, CREDITS = ("invoice",), ("credit-note",)
ORDERS, RECEIPTS = ("purchase-order",), ("delivery-note",)
# A receipt that covers part of what is billed is waited past this many times (partial
# deliveries), each wait woken by the next receipt, all within the one timeout.
RECEIPT_ROUNDS = 3
# Why a document is at the match stage (its routed stage's `because`): the review page shows
# the match there.
MATCH_BECAUSE = "match"


@dataclass(frozen=True)
class Tolerance:
    """A share of the reference value or an absolute amount, whichever is larger."""

    share: Decimal = Decimal("0")
    absolute: Decimal = Decimal("0")

    def slack(self, reference: Decimal) -> Decimal:
        return max(abs(reference) * self.share, self.absolute)

    def to_json(self) -> dict[str, str]:
        return {"share": str(self.share), "absolute": str(self.absolute)}


@dataclass(frozen=True)
class MatchRules:
    stage: str | None = None
    timeout_seconds: int = WEEK_S
    three_way: bool = False
    unit_price: Tolerance = Tolerance(Decimal("0.02"), Decimal("0.01"))
    quantity: Tolerance = Tolerance()
    total: Tolerance = Tolerance(Decimal("0.01"), Decimal("0.05"))
    description_min_score: int = 80

    @property
    def on(self) -> bool:
        return self.stage is not None

    @property
    def longest_wait_seconds(self) -> int:
        """The longest an invoice waits for documents before its stages: its order and its
        receipts share one deadline, `timeout_seconds` after it began to wait."""
        return self.timeout_seconds if self.on else 0

    def tolerances_json(self) -> dict[str, dict[str, str]]:
        """What the match record says it allowed."""
        return {
            "unitPrice": self.unit_price.to_json(),
            "quantity": self.quantity.to_json(),
            "total": self.total.to_json(),
        }


NO_MATCHING = MatchRules()


def _tolerance(raw: Mapping[str, Any], name: str, default: Tolerance) -> Tolerance:
    try:
        share = Decimal(str(raw.get(name, default.share)))
        absolute = Decimal(str(raw.get(f"{name}_abs", default.absolute)))
    except InvalidOperation:
        raise ValueError(f"matching.{name}: tolerances must be numbers") from None
    if not (share.is_finite() and absolute.is_finite() and 0 <= share <= 1 and absolute >= 0):
        raise ValueError(f"matching.{name} must be 0..1 and {name}_abs at least 0")
    return Tolerance(share, absolute)


def parse_match_rules(raw: Mapping[str, Any] | None, stage_timeout_s: int = 0) -> MatchRules:
    """The `[matching]` table (None: matching off). `stage_timeout_s` (DOCFLOW_STAGE_TIMEOUT_S,
    for tests) shortens the wait as it shortens every stage's."""
    if raw is None:
        return NO_MATCHING
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise ValueError(f"matching: unknown keys {unknown}")
    stage = raw.get("stage")
    if not isinstance(stage, str) or not stage:
        raise ValueError("matching.stage must name the review stage discrepancies wait at")
    timeout = int(stage_timeout_s or raw.get("timeout_seconds", WEEK_S))
    if timeout < 1:
        raise ValueError("matching.timeout_seconds must be at least 1")
    three_way = raw.get("three_way", False)
    if not isinstance(three_way, bool):
        raise ValueError("matching.three_way must be true or false")
    score = int(raw.get("description_min_score", 80))
    if not 50 <= score <= 100:
        raise ValueError("matching.description_min_score must be 50..100")
    return MatchRules(
        stage=stage,
        timeout_seconds=timeout,
        three_way=three_way,
        unit_price=_tolerance(raw, "unit_price_tolerance", MatchRules.unit_price),
        quantity=_tolerance(raw, "quantity_tolerance", MatchRules.quantity),
        total=_tolerance(raw, "total_tolerance", MatchRules.total),
        description_min_score=score,
    )
