"""The plan of parts: the engine's page calls turned into parts, by the rules file's thresholds.

A page scoring at least `start_above` starts a part; one below `unsure_above` goes on the part
before; one between is an unsure boundary, proposed as a start when it scores past the middle of
the band, and sent to a person (the `split` stage) with the rest of the proposal. Pure, so it
is safe anywhere and easy to test; the plan step checkpoints its result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from docflow.packets.engine import PageCall
from docflow.rules.packets import PacketRules


@dataclass(frozen=True)
class Part:
    first: int
    last: int
    doc_type: str = ""  # the engine's guess; the part's own run classifies it again

    @property
    def pages(self) -> tuple[int, int]:
        return self.first, self.last


@dataclass(frozen=True)
class Proposal:
    parts: tuple[Part, ...]
    unsure: tuple[int, ...]  # pages whose boundary a person should decide


def propose(calls: Sequence[PageCall], rules: PacketRules) -> Proposal:
    """Pure: the parts the calls make, and the unsure pages."""
    starts: list[int] = []
    unsure: list[int] = []
    for call in calls:
        verdict = "start" if not starts else rules.verdict(call.start)
        if verdict == "unsure":
            unsure.append(call.page)
            if call.start >= rules.proposal_above:
                starts.append(call.page)
        elif verdict == "start":
            starts.append(call.page)
    types = {c.page: c.doc_type for c in calls}
    last = calls[-1].page if calls else 0
    parts = parts_from_starts(starts, last)
    return Proposal(
        tuple(Part(a, b, _part_type(types, a, b)) for a, b in parts),
        tuple(unsure),
    )


def parts_from_starts(starts: Sequence[int], pages: int) -> list[tuple[int, int]]:
    """Pure: inclusive page ranges, each from a start to the page before the next start."""
    ordered = sorted(set(starts))
    ends = [*(s - 1 for s in ordered[1:]), pages]
    return list(zip(ordered, ends, strict=True))


def _part_type(types: dict[int, str], first: int, last: int) -> str:
    """The first page's type, or the first typed page's."""
    for page in range(first, last + 1):
        if types.get(page):
            return types[page]
    return ""


def part_batches(count: int, per_step: int = 25, max_steps: int = 50) -> list[tuple[int, int]]:
    """Pure: parts grouped for the steps that write and start them, as [first, last) index
    ranges. A step handles at least `per_step` parts, more when there are so many parts that
    the steps would pass `max_steps`, which bounds the packet's durable operations."""
    if count < 1:
        return []
    size = max(per_step, math.ceil(count / max_steps))
    return [(i, min(i + size, count)) for i in range(0, count, size)]
