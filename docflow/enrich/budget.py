"""A tokens-per-minute budget for one model, shared by every execution, in DynamoDB.

Bedrock's on-demand quota is tokens per minute per model and Region, for the whole account,
so a per-execution limit bounds nothing. What is stored: one item per model per minute window,
`pk = enrich-tokens#<model id>#<window start, epoch seconds>`, holding `used` (tokens admitted
into that minute) and `expiresAt` (an hour later, for the table's TTL). Nothing else: no
document, no text.

Admission is a reservation. A call estimates its tokens (`request.estimate_tokens`) and adds
them to the first window, from the current one on, whose `used` stays within the budget: an
`ADD` guarded by `used <= budget - tokens`, which DynamoDB applies atomically, so concurrent
callers in any number of executions never push a window over the budget. The answer says
which window and how many seconds until it starts; the execution waits that long durably (no
compute billed) and then calls. After the call, `record` adds actual minus estimated tokens
to the same window, so a later admission sees what was really spent.

A reservation looks ahead at most `lookahead` windows; when all of them are full, the caller
waits until the last one and asks again (the step module bounds those rounds).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from docflow import aws, observability
from docflow.dynamo import ConditionFailed, Table
from docflow.readmodel.table import from_ddb, to_ddb

WINDOW_S = 60
LOOKAHEAD = 30  # windows; half an hour of reservations ahead
# Spread the calls admitted into one window over its first seconds rather than all at :00.
SPREAD_S = 40


class AdmissionJson(TypedDict):
    """The `enrich admit` step's checkpoint (`Admission.to_json`)."""

    admitted: bool
    window: int
    waitSeconds: int
    tokens: int
    never: bool


class WindowKey(TypedDict):
    """A minute window's item key: `enrich-tokens#<model id>#<window start>`."""

    pk: str


@dataclass(frozen=True)
class Admission:
    """`admitted`: the tokens are reserved in `window`; wait `wait_s` (0 = now) and call.
    Not admitted: every window in reach is full, ask again after `wait_s`; or `never`: the
    call alone is larger than the budget."""

    admitted: bool
    window: int
    wait_s: int
    tokens: int
    never: bool = False

    def to_dict(self) -> AdmissionJson:
        return {
            "admitted": self.admitted,
            "window": self.window,
            "waitSeconds": self.wait_s,
            "tokens": self.tokens,
            "never": self.never,
        }

    def to_json(self) -> AdmissionJson:
        return self.to_dict()  # the `enrich admit` step's checkpoint

    @classmethod
    def from_json(cls, raw: AdmissionJson) -> Admission:
        return cls(
            bool(raw["admitted"]),
            int(raw["window"]),
            int(raw["waitSeconds"]),
            int(raw["tokens"]),
            bool(raw.get("never", False)),
        )


class TokenBudget:
    def __init__(
        self,
        table: str,
        model_id: str,
        tokens_per_minute: int,
        clock: Callable[[], float] = time.time,
        lookahead: int = LOOKAHEAD,
        rng: random.Random | None = None,
    ) -> None:
        self.table, self.model_id, self.limit = table, model_id, tokens_per_minute
        self.clock, self.lookahead = clock, lookahead
        self._random = rng or random.Random()  # noqa: S311 - spreading calls, not crypto

    def key(self, window: int) -> WindowKey:
        return {"pk": f"enrich-tokens#{self.model_id}#{window}"}

    def admit(self, tokens: int) -> Admission:
        now = self.clock()
        current = int(now // WINDOW_S) * WINDOW_S
        if tokens > self.limit:
            return Admission(False, current, 0, tokens, never=True)
        for ahead in range(self.lookahead):
            window = current + ahead * WINDOW_S
            if self._reserve(window, tokens):
                if ahead == 0:
                    return Admission(True, window, 0, tokens)
                observability.count("EnrichBudgetWaits")
                spread = self._random.randint(0, SPREAD_S)
                return Admission(True, window, max(1, math.ceil(window - now) + spread), tokens)
        last = current + self.lookahead * WINDOW_S
        observability.count("EnrichBudgetWaits")
        return Admission(False, last, max(1, math.ceil(last - now)), tokens)

    def _reserve(self, window: int, tokens: int) -> bool:
        try:
            Table(self.table).update(
                self.key(window),
                "ADD used :t SET expiresAt = :exp",
                condition="attribute_not_exists(used) OR used <= :room",
                values={":t": tokens, ":room": self.limit - tokens, ":exp": window + 3600},
            )
        except ConditionFailed:
            return False
        return True

    def record(self, window: int, estimated: int, actual: int) -> None:
        """Settle a reservation with what the call really spent (either direction)."""
        delta = actual - estimated
        if delta == 0:
            return
        aws.client("dynamodb").update_item(
            TableName=self.table,
            Key=to_ddb(self.key(window)),
            UpdateExpression="ADD used :d",
            ExpressionAttributeValues=to_ddb({":d": delta}),
        )

    def used(self, window: int) -> int:
        item = (
            aws.client("dynamodb")
            .get_item(TableName=self.table, Key=to_ddb(self.key(window)), ConsistentRead=True)
            .get("Item")
        )
        return int(from_ddb(item).get("used", 0)) if item else 0
