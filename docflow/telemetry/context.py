"""A run's trace identity, derived from the run's own ids, and W3C `traceparent` values.

The trace id is a function of the run id and its run order, so the starter's execution input
is the same on every redelivery (Lambda answers a start with the same name and another input
with DurableExecutionAlreadyStartedException) and any part that knows the run (the read
model's row, a review link) can name its trace. Its first 32 bits are the S3 event's time in
seconds, as X-Ray wants of a trace id; the rest is a hash of the run id.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")
# The input's key that carries the run's root span into the execution.
INPUT_KEY = "traceparent"


@dataclass(frozen=True)
class TraceParent:
    trace_id: int
    span_id: int
    sampled: bool = True

    @property
    def trace_hex(self) -> str:
        return f"{self.trace_id:032x}"

    def header(self) -> str:
        return f"00-{self.trace_id:032x}-{self.span_id:016x}-{'01' if self.sampled else '00'}"

    @classmethod
    def parse(cls, value: object) -> TraceParent | None:
        """A W3C traceparent (version 00), or None for anything else (all-zero ids too)."""
        if not isinstance(value, str):
            return None
        found = _TRACEPARENT.match(value.strip())
        if not found:
            return None
        trace_id, span_id = int(found.group(1), 16), int(found.group(2), 16)
        if not trace_id or not span_id:
            return None
        return cls(trace_id, span_id, bool(int(found.group(3), 16) & 1))


def _hash(text: str, hex_chars: int) -> int:
    return int(hashlib.blake2b(text.encode("utf-8")).hexdigest()[:hex_chars], 16)


def event_seconds(run_order: str) -> int:
    """The S3 event's time in seconds, from a run order (`<sequencer>:<ms>:<generation>`)."""
    parts = run_order.split(":")
    if len(parts) != 3 or not parts[1].isdigit():
        return 0
    return int(parts[1]) // 1000


def for_run(run_id: str, run_order: str) -> TraceParent:
    """The run's trace and its root span: the starter's span, which starts the run."""
    seconds = event_seconds(run_order) & 0xFFFFFFFF
    trace_id = (seconds << 96) | _hash(f"trace:{run_id}", 24)
    return TraceParent(trace_id or 1, _hash(f"start:{run_id}", 16) or 1)
