"""History events folded into operations: what ran, when, how often, and how it ended.

The events are GetDurableExecutionHistory's (one per state change of an operation). `Fold`
takes them one page at a time and keeps only the operations, so memory grows with the number
of operations, never with the history's size. A step that failed and was retried shows as a
StepFailed (with the attempt's error and RetryDetails) followed by another StepStarted; its
attempts are counted from the StepStarted events, because the testing runner leaves
RetryDetails out of StepSucceeded (and may leave it out elsewhere).

Never kept: results, inputs, callback ids (an operation's id is a hash of its position and
name, not a secret; a callback id is the capability to complete it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from docflow.trace.shapes import AttemptJson, ErrorJson, InvocationJson, StageMeaning

if TYPE_CHECKING:
    # The history event as boto3 answers it; the local runner's pages are the same JSON.
    from mypy_boto3_lambda.type_defs import EventTypeDef

RUNNING, SUCCEEDED, FAILED = "running", "succeeded", "failed"
RETRYING, TIMED_OUT, CANCELLED, STOPPED = "retrying", "timed-out", "cancelled", "stopped"

# Event type suffix -> the operation's status after it.
_ENDINGS = {
    "Succeeded": SUCCEEDED,
    "Failed": FAILED,
    "TimedOut": TIMED_OUT,
    "Cancelled": CANCELLED,
    "Stopped": STOPPED,
}
# History SubType -> the kind this project's readers see.
_KINDS = {
    "Step": "step",
    "Wait": "wait",
    "Callback": "callback",
    "WaitForCallback": "wait-for-callback",
    "Map": "map",
    "Parallel": "parallel",
    "RunInChildContext": "context",
    "ChainedInvoke": "invoke",
}
_PREFIXES = ("Execution", "Context", "Wait", "Step", "ChainedInvoke", "Callback")


def when(value: Any) -> datetime | None:
    """A history timestamp (boto3 gives datetimes; JSON gives ISO text) as aware UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, int | float):
        moment = datetime.fromtimestamp(float(value), UTC)
    else:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def error_of(details: Mapping[str, Any] | None) -> ErrorJson | None:
    """`{"type", "message"}` of an EventError, or None. Stack traces and error data stay out."""
    payload = ((details or {}).get("Error") or {}).get("Payload") or {}
    if not payload:
        return None
    return {
        "type": str(payload.get("ErrorType") or "Error"),
        "message": str(payload.get("ErrorMessage") or "")[:500],
    }


@dataclass
class Attempt:
    number: int
    start: datetime | None
    end: datetime | None = None
    error: ErrorJson | None = None
    next_delay_s: int | None = None

    def to_json(self) -> AttemptJson:
        return {
            "attempt": self.number,
            "start": iso(self.start),
            "end": iso(self.end),
            "error": self.error,
            "nextAttemptDelaySeconds": self.next_delay_s,
        }


@dataclass
class Operation:
    id: str
    name: str
    kind: str
    parent: str | None
    status: str = RUNNING
    start: datetime | None = None
    end: datetime | None = None
    error: ErrorJson | None = None
    attempts: list[Attempt] = field(default_factory=list)
    scheduled_end: datetime | None = None  # a wait's
    wait_s: int | None = None  # a wait's duration
    timeout_s: int | None = None  # a callback's, when the history has it
    heartbeat_timeout_s: int | None = None
    children: list[Operation] = field(default_factory=list)
    critical: bool = False
    review: StageMeaning | None = None  # the business meaning, joined from the read model

    def duration_s(self, now: datetime) -> float | None:
        if self.start is None:
            return None
        return max(((self.end or now) - self.start).total_seconds(), 0.0)


@dataclass
class Execution:
    arn: str | None = None
    name: str | None = None
    status: str = RUNNING
    start: datetime | None = None
    end: datetime | None = None
    error: ErrorJson | None = None
    invocations: list[InvocationJson] = field(default_factory=list)
    events: int = 0


def _details(event: EventTypeDef, kind: str) -> Mapping[str, Any]:
    """The event's `<EventType>Details`: one key per event type, so looked up by name."""
    found = cast("Mapping[str, Any]", event).get(f"{kind}Details")
    return found if isinstance(found, Mapping) else {}


def iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds") if moment else None


class Fold:
    """Feed events in order (`add`), then `roots()`: the top-level operations with children."""

    def __init__(self) -> None:
        self.execution = Execution()
        self.operations: dict[str, Operation] = {}
        self._order: list[str] = []

    def add(self, events: Iterable[EventTypeDef]) -> None:
        for event in events:
            self.execution.events += 1
            self._one(event)

    def _one(self, event: EventTypeDef) -> None:
        kind = str(event.get("EventType") or "")
        at = when(event.get("EventTimestamp"))
        if kind.startswith("Execution"):
            self._execution(kind, event, at)
            return
        if kind == "InvocationCompleted":
            # Absent on the test runner.
            invocation = _details(event, "InvocationCompleted")
            self.execution.invocations.append(
                {
                    "start": iso(when(invocation.get("StartTimestamp"))),
                    "end": iso(when(invocation.get("EndTimestamp")) or at),
                    "error": error_of(invocation),
                }
            )
            return
        prefix = next((p for p in _PREFIXES if kind.startswith(p)), None)
        if prefix is None or not event.get("Id"):
            return  # a type this reader does not know yet: skip it, keep the rest
        op = self._operation(event, prefix)
        suffix = kind[len(prefix) :]
        details = _details(event, kind)
        if suffix == "Started":
            self._started(op, prefix, details, at)
        elif suffix in _ENDINGS:
            self._ended(op, prefix, suffix, details, at)

    def _execution(self, kind: str, event: EventTypeDef, at: datetime | None) -> None:
        ex = self.execution
        if kind == "ExecutionStarted":
            ex.name, ex.start = event.get("Name"), at
        elif kind[len("Execution") :] in _ENDINGS:
            ex.status, ex.end = _ENDINGS[kind[len("Execution") :]], at
            ex.error = error_of(_details(event, kind))

    def _operation(self, event: EventTypeDef, prefix: str) -> Operation:
        op_id = str(event["Id"])
        op = self.operations.get(op_id)
        if op is None:
            sub = str(event.get("SubType") or "")
            kind = _KINDS.get(sub) or {"ChainedInvoke": "invoke"}.get(prefix, prefix.lower())
            op = Operation(op_id, str(event.get("Name") or ""), kind, event.get("ParentId"))
            self.operations[op_id] = op
            self._order.append(op_id)
        return op

    def _started(
        self, op: Operation, prefix: str, details: Mapping[str, Any], at: datetime | None
    ) -> None:
        op.status = RUNNING
        op.start = op.start or at
        op.end = None
        if prefix == "Step":
            op.attempts.append(Attempt(len(op.attempts) + 1, at))
        elif prefix == "Wait":
            op.wait_s = details.get("Duration")
            op.scheduled_end = when(details.get("ScheduledEndTimestamp"))
            if op.scheduled_end is None and at and op.wait_s is not None:
                op.scheduled_end = at + timedelta(seconds=int(op.wait_s))
        elif prefix == "Callback":
            # The testing runner leaves both out; the read model's stage has the timeout.
            op.timeout_s = details.get("Timeout")
            op.heartbeat_timeout_s = details.get("HeartbeatTimeout")

    def _ended(
        self,
        op: Operation,
        prefix: str,
        suffix: str,
        details: Mapping[str, Any],
        at: datetime | None,
    ) -> None:
        error = error_of(details)
        retry = details.get("RetryDetails") or {}
        if prefix == "Step":
            if not op.attempts:  # a history that began mid-step
                op.attempts.append(Attempt(int(retry.get("CurrentAttempt") or 1), op.start))
            attempt = op.attempts[-1]
            attempt.end, attempt.error = at, error
            attempt.next_delay_s = retry.get("NextAttemptDelaySeconds")
            if suffix == "Failed" and attempt.next_delay_s is not None:
                op.status, op.error = RETRYING, error  # another StepStarted will follow
                return
        op.status, op.end, op.error = _ENDINGS[suffix], at, error

    def roots(self) -> list[Operation]:
        """Top-level operations in history order, each with its children nested, critical path
        marked. Children whose parent is not in the history hang at the top."""
        for op in self.operations.values():
            op.children = []
        roots: list[Operation] = []
        for op_id in self._order:
            op = self.operations[op_id]
            parent = self.operations.get(op.parent or "")
            (parent.children if parent else roots).append(op)
        settle_retries(roots, self.execution.end is not None)
        mark_critical(roots, self.execution.end or _latest(roots))
        return roots


def settle_retries(ops: list[Operation], enclosing_ended: bool) -> None:
    """A StepFailed that announced a next attempt is the step's last word once whatever holds
    it has ended (the testing runner puts RetryDetails with a delay on the final failure too)."""
    for op in ops:
        if op.status == RETRYING and enclosing_ended:
            op.status = FAILED
            op.end = op.attempts[-1].end if op.attempts else op.end
        settle_retries(op.children, op.end is not None or enclosing_ended)


def _latest(ops: list[Operation]) -> datetime | None:
    ends = [t for o in ops if (t := o.end or o.start) is not None]
    return max(ends) if ends else None


def mark_critical(ops: list[Operation], until: datetime | None) -> None:
    """The chain that decided when this level ended, walked backwards: the operation that
    ended last (or is still open), then the one that ended last before it began, and so on;
    inside each, the same among its children. Sequential code puts every top-level operation
    on the path; a map puts its slowest batch there."""
    far = datetime.max.replace(tzinfo=UTC)
    pending = [o for o in ops if o.start is not None]
    bound = far if until is None else until
    while pending:
        before = [o for o in pending if (o.end or far) <= bound or o.end is None]
        if not before:
            break
        last = max(before, key=lambda o: (o.end or far, o.start))
        last.critical = True
        mark_critical(last.children, last.end)
        bound = last.start or bound
        pending = [o for o in pending if o is not last and (o.end or far) <= bound]
