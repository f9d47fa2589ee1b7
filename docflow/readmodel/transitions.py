"""The document lifecycle: statuses, the transitions allowed between them, and report order.

Every report of a run has a position (`seq`) fixed by the pipeline, not by the clock, so a
report that arrives late, twice or out of order can be placed: the current state only ever
moves to a later position, and only along an allowed path.
"""

from __future__ import annotations

RECEIVED = "received"
READING = "reading"
# A pile document waiting for its batch inference job (hours, no compute billed).
ENRICHING = "enriching"
CLASSIFIED = "classified"
# An invoice waiting for its purchase order or goods receipt (no compute billed; docs/matching.md).
AWAITING_MATCH = "awaiting-match"
PENDING_REVIEW = "pending-review"
APPROVED = "approved"
REJECTED = "rejected"
TIMED_OUT = "timed-out"
FINALIZED = "finalized"
ARCHIVED = "archived"
FAILED = "failed"

STATUSES = (
    RECEIVED,
    READING,
    ENRICHING,
    CLASSIFIED,
    AWAITING_MATCH,
    PENDING_REVIEW,
    APPROVED,
    REJECTED,
    TIMED_OUT,
    FINALIZED,
    ARCHIVED,
    FAILED,
)
TERMINAL = frozenset({FINALIZED, ARCHIVED, FAILED})

# Notes: history entries that are no step of the lifecycle and never move the state (who
# downloaded a review's original, and when).
DOWNLOADED = "downloaded"
NOTES = frozenset({DOWNLOADED})

# Direct transitions. Anything can fail until it is terminal.
ALLOWED: dict[str, frozenset[str]] = {
    RECEIVED: frozenset({READING, FAILED}),
    READING: frozenset({ENRICHING, CLASSIFIED, FAILED}),
    ENRICHING: frozenset({CLASSIFIED, FAILED}),
    CLASSIFIED: frozenset({AWAITING_MATCH, PENDING_REVIEW, FINALIZED, FAILED}),
    # The order first, then (three-way) each receipt: one report per wait, each later.
    AWAITING_MATCH: frozenset({AWAITING_MATCH, PENDING_REVIEW, FINALIZED, FAILED}),
    PENDING_REVIEW: frozenset({APPROVED, REJECTED, TIMED_OUT, FAILED}),
    APPROVED: frozenset({PENDING_REVIEW, FINALIZED, FAILED}),
    REJECTED: frozenset({ARCHIVED, FAILED}),
    TIMED_OUT: frozenset({ARCHIVED, FAILED}),
    FINALIZED: frozenset(),
    ARCHIVED: frozenset(),
    FAILED: frozenset(),
}


def _reachable(start: str) -> frozenset[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in ALLOWED[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)


# Where a document may go from each status, skipping reports that have not arrived yet.
REACHABLE: dict[str, frozenset[str]] = {s: _reachable(s) for s in STATUSES}
# The inverse, which the recorder's write condition needs: statuses from which `s` is reachable.
REACHABLE_FROM: dict[str, tuple[str, ...]] = {
    s: tuple(src for src in STATUSES if s in REACHABLE[src]) for s in STATUSES
}

_STAGE_BASE = 100
_STAGE_STEP = 10
MAX_STAGES = 50
_FIXED_SEQ = {
    RECEIVED: 10,
    READING: 20,
    ENRICHING: 25,
    CLASSIFIED: 30,
    FINALIZED: 10_000,
    ARCHIVED: 10_000,
}


# An invoice's waits for its order's documents: the order's at 31, each receipt round's after.
_AWAIT_BASE, MAX_WAITS = 31, 9


def seq_for(status: str, stage_index: int | None = None) -> int:
    """The report's position within its run."""
    if status == FAILED:
        return 10_001  # after anything else the run may have said
    if status == AWAITING_MATCH:
        if stage_index is None or not 0 <= stage_index < MAX_WAITS:
            raise ValueError(f"status {status!r} needs a wait index 0..{MAX_WAITS - 1}")
        return _AWAIT_BASE + stage_index
    if status in _FIXED_SEQ:
        return _FIXED_SEQ[status]
    if status in NOTES and stage_index is None:
        raise ValueError(f"note {status!r} needs a stage index 0..{MAX_STAGES - 1}")
    if stage_index is None or not 0 <= stage_index < MAX_STAGES:
        raise ValueError(f"status {status!r} needs a stage index 0..{MAX_STAGES - 1}")
    base = _STAGE_BASE + _STAGE_STEP * stage_index
    if status in NOTES:
        return base + 1  # while the stage waits, before its decision
    return base if status == PENDING_REVIEW else base + 5


def is_allowed(current: str | None, new: str) -> bool:
    """Can a run at `current` move to `new` (directly, or past reports still in flight)?"""
    if current is None:
        return True
    return new in REACHABLE[current]
