"""One document's trace as a JSON-native dict: the shape `docflow trace --json` prints and the
document page draws (documented in docs/trace.md and the command's --help)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from docflow.cost import CostEstimate
from docflow.readmodel.items import DocumentState, DocumentView, HistoryItem, Payload
from docflow.trace import meaning
from docflow.trace.shapes import OperationJson, StageMeaning, Trace
from docflow.trace.timeline import RETRYING, RUNNING, Fold, Operation, iso

JSON_SHAPE = (
    '{"documentId", "version", "runId", "status" (the read model\'s), "execution": {"arn", '
    '"name", "status", "start", "end", "durationSeconds", "error": ERROR|null, "events": int '
    '(history events read), "operations": int, "invocations": [{"start", "end", "error"}]}, '
    '"operations": [OP], "criticalPath": [name], "open": [sentence], "cost": COST|null, '
    '"costLine": str|null, "readModel": [{"at", "status", "stage", "cause"}]}; OP = {"id", '
    '"name", "kind" (step|wait|callback|wait-for-callback|map|parallel|context|invoke), '
    '"status" (running|retrying|succeeded|failed|timed-out|cancelled|stopped), "start", '
    '"end", "durationSeconds", "critical": bool, "error": ERROR|null, "attempts": [{"attempt", '
    '"start", "end", "error": ERROR|null, "nextAttemptDelaySeconds"}] (steps), "wait": '
    '{"durationSeconds", "scheduledEnd"} (waits), "callback": {"timeoutSeconds", '
    '"heartbeatTimeoutSeconds"} (callbacks; null when the history lacks them), "review": '
    '{"stageIndex", "round", "stageName", "reviewers", "linkSentAt", "deadline", '
    '"timeoutSeconds", "heartbeatSeconds", "heartbeats": null (not recorded), "decision", '
    '"decidedBy", "decidedAt", "votes", "waitedSeconds"} (review stages), "children": [OP]}; '
    'ERROR = {"type", "message"}; COST as in `show`'
)


def human(seconds: float | None) -> str:
    """`2 d 3 h`, `18 h`, `4 min`, `12 s`, `350 ms`: two units at most."""
    if seconds is None:
        return "-"
    if seconds < 1:
        return f"{int(seconds * 1000)} ms"
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{int(seconds)} s"
    s = int(seconds)
    parts = [(s // 86400, "d"), (s % 86400 // 3600, "h"), (s % 3600 // 60, "min"), (s % 60, "s")]
    while parts and parts[0][0] == 0:
        parts.pop(0)
    return " ".join(f"{n} {u}" for n, u in parts[:2] if n) or "0 s"


def op_json(op: Operation, now: datetime) -> OperationJson:
    out: OperationJson = {
        "id": op.id,
        "name": op.name,
        "kind": op.kind,
        "status": op.status,
        "start": iso(op.start),
        "end": iso(op.end),
        "durationSeconds": _round(op.duration_s(now)),
        "critical": op.critical,
        "error": op.error,
        "children": [op_json(c, now) for c in op.children],
    }
    if op.kind == "step":
        out["attempts"] = [a.to_json() for a in op.attempts]
    if op.kind == "wait":
        out["wait"] = {"durationSeconds": op.wait_s, "scheduledEnd": iso(op.scheduled_end)}
    if op.kind == "callback":
        out["callback"] = {
            "timeoutSeconds": op.timeout_s,
            "heartbeatTimeoutSeconds": op.heartbeat_timeout_s,
        }
    if op.review is not None:
        out["review"] = {**op.review, "waitedSeconds": _round(op.review.get("waitedSeconds"))}
    return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def walk(ops: list[Operation]) -> Any:
    for op in ops:
        yield op
        yield from walk(op.children)


def open_sentences(ops: list[Operation], now: datetime) -> list[str]:
    """What the run is waiting on now, in words."""
    said = []
    for op in walk(ops):
        if op.status not in (RUNNING, RETRYING) or any(
            c.status in (RUNNING, RETRYING) for c in op.children
        ):
            continue  # say it at the innermost open operation only
        review = _review_above(op, ops)
        since = op.duration_s(now)
        if review is not None:
            who = ", ".join(review.get("reviewers") or []) or "its reviewers"
            stage = review.get("stageName") or f"stage {review['stageIndex']}"
            text = f"waiting on {who} ({stage}) for {human(since)}"
            deadline = meaning.deadline_of(op, review)
            if deadline:
                left = (deadline - now).total_seconds()
                text += (
                    f", times out in {human(left)}"
                    if left > 0
                    else f", past its timeout by {human(-left)}"
                )
            said.append(text)
        elif op.kind == "wait" and op.scheduled_end:
            left = (op.scheduled_end - now).total_seconds()
            said.append(f"in wait {op.name!r} for {human(since)}, ends in {human(max(left, 0))}")
        elif op.status == RETRYING and op.attempts:
            last = op.attempts[-1]
            error = f"{last.error['type']}: {last.error['message']}" if last.error else "an error"
            said.append(
                f"step {op.name!r} failed attempt {last.number} ({error}); "
                f"retrying in {last.next_delay_s} s"
            )
        else:
            attempt = f", attempt {len(op.attempts)}" if len(op.attempts) > 1 else ""
            said.append(f"on {op.kind} {op.name!r} for {human(since)}{attempt}")
    return said


def _review_above(op: Operation, roots: list[Operation]) -> StageMeaning | None:
    if op.review is not None:
        return op.review
    by_id = {o.id: o for o in walk(roots)}
    parent = by_id.get(op.parent or "")
    while parent is not None:
        if parent.review is not None:
            return parent.review
        parent = by_id.get(parent.parent or "")
    return None


def build(
    shown: DocumentView,
    run_id: str,
    version: str | None,
    fold: Fold,
    cost_line: Callable[[DocumentState], str | None],
    now: datetime | None = None,
) -> Trace:
    """The trace of run `run_id` of the document `shown` (ReadModel.show's answer)."""
    now = now or datetime.now(UTC)
    state = shown.get("state") or DocumentState()
    roots = fold.roots()
    meaning.join(roots, shown.get("history") or [], state, run_id)
    ex = fold.execution
    current = state.get("runId") == run_id
    cost = state.get("cost") if current else _cost_of_run(shown.get("history") or [], run_id)
    return {
        "documentId": state.get("documentId"),
        "version": version or state.get("version"),
        "runId": run_id,
        "status": state.get("status") if current else _last_status(shown, run_id),
        "execution": {
            "arn": ex.arn,
            "name": ex.name,
            "status": ex.status,
            "start": iso(ex.start),
            "end": iso(ex.end),
            "durationSeconds": _round(
                ((ex.end or now) - ex.start).total_seconds() if ex.start else None
            ),
            "error": ex.error,
            "events": ex.events,
            "operations": len(fold.operations),
            "invocations": ex.invocations,
        },
        "operations": [op_json(op, now) for op in roots],
        "criticalPath": [op.name for op in walk(roots) if op.critical],
        "open": open_sentences(roots, now),
        "cost": cost,
        "costLine": cost_line(DocumentState(cost=cost)) if cost else None,
        "readModel": [
            {
                "at": h.get("at"),
                "status": h.get("status"),
                "stage": h.get("stage"),
                "cause": h.get("cause"),
            }
            for h in shown.get("history") or []
            if h.get("runId") == run_id
        ],
    }


def _last_status(shown: DocumentView, run_id: str) -> str | None:
    mine = [h for h in shown.get("history") or [] if h.get("runId") == run_id]
    return mine[-1].get("status") if mine else None


def _cost_of_run(history: list[HistoryItem], run_id: str) -> CostEstimate | None:
    for report in reversed(history):
        cost = report.get("payload", Payload()).get("cost")
        if report.get("runId") == run_id and cost:
            return cost
    return None


def run_for(shown: DocumentView, version: str | None) -> str:
    """The run to trace: the document's current run, or the latest run of `version`."""
    state = shown.get("state") or DocumentState()
    if version is None or version == state.get("version"):
        if not state.get("runId"):
            raise ValueError("the read model has no run for this document")
        return str(state["runId"])
    runs = [h["runId"] for h in shown.get("history") or [] if h.get("version") == version]
    if not runs:
        raise ValueError(f"the read model has no run of version {version}")
    return str(runs[-1])
