"""A trace (report.build's dict) as a terminal timeline: one line an operation, nested by
indentation, a bar scaled to the run, `*` on the critical path; errors and review details on
indented lines below their operation."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

from docflow.trace.report import human
from docflow.trace.shapes import FlatOperation, OperationJson, Trace
from docflow.trace.timeline import when

BAR = 40
NAME = 34


def span(trace: Trace, now: datetime) -> tuple[datetime, float]:
    """The run's start and its length in seconds (to now while it runs)."""
    ex = trace["execution"]
    starts = [t for o in flat(trace["operations"]) if (t := when(o["start"])) is not None]
    start = when(ex.get("start")) or (min(starts) if starts else now)
    end = when(ex.get("end")) or now
    return start, max((end - start).total_seconds(), 0.001)


def flat(ops: list[OperationJson], depth: int = 0) -> Iterator[FlatOperation]:
    for op in ops:
        yield FlatOperation(**op, depth=depth)
        yield from flat(op["children"], depth + 1)


def bar(op: OperationJson, start: datetime, total: float, now: datetime, width: int) -> str:
    begin = when(op["start"])
    if begin is None:
        return " " * width
    end = when(op["end"]) or now
    a = int((begin - start).total_seconds() / total * width)
    b = int((end - start).total_seconds() / total * width)
    a = min(max(a, 0), width - 1)
    b = min(max(b, a + 1), width)
    fill = "=" if op["end"] else ">"
    return " " * a + fill * (b - a) + " " * (width - b)


def render(trace: Trace, now: datetime | None = None, width: int = BAR) -> str:
    now = now or datetime.now(UTC)
    start, total = span(trace, now)
    ex = trace["execution"]
    lines = [
        f"document {trace['documentId']}  version {trace['version']}",
        f"run      {trace['runId']}  ({trace['status']}; execution {ex['status']}, "
        f"{human(ex['durationSeconds'])}, {ex['operations']} operations, {ex['events']} events)",
    ]
    if trace.get("costLine"):
        lines.append(f"cost     {trace['costLine']}")
    for sentence in trace.get("open") or []:
        lines.append(f"now      {sentence}")
    if failed := ex.get("error"):
        lines.append(f"error    {failed['type']}: {failed['message']}")
    lines.append("")
    lines.append(
        f"  {'operation':{NAME}} |{'0':<{width // 2}}{human(total):>{width - width // 2}}|"
    )
    for op in flat(trace["operations"]):
        name = ("  " * op["depth"] + op["name"])[:NAME]
        mark = "*" if op["critical"] else " "
        attempts = len(op.get("attempts") or [])
        tries = f" x{attempts}" if attempts > 1 else ""
        lines.append(
            f"{mark} {name:{NAME}} |{bar(op, start, total, now, width)}| "
            f"{op['kind']:<17} {op['status']:<9} {human(op['durationSeconds']):>9}{tries}"
        )
        lines.extend(details(op, "  " * op["depth"] + "    "))
    lines.append("")
    lines.append("* critical path (what decided when the run ended)")
    return "\n".join(lines)


def details(op: OperationJson, pad: str) -> list[str]:
    out = []
    for attempt in op.get("attempts") or []:
        if err := attempt.get("error"):
            retry = attempt.get("nextAttemptDelaySeconds")
            again = f", retried after {retry} s" if retry is not None else ""
            out.append(f"{pad}attempt {attempt['attempt']}: {err['type']}: {err['message']}{again}")
    failed = op.get("error")
    if failed and not any(a.get("error") for a in op.get("attempts") or []):
        out.append(f"{pad}error: {failed['type']}: {failed['message']}")
    wait = op.get("wait")
    if wait and wait.get("scheduledEnd"):
        out.append(
            f"{pad}wait {wait.get('durationSeconds')} s, scheduled to end {wait['scheduledEnd']}"
        )
    review = op.get("review")
    if review:
        who = ", ".join(review.get("reviewers") or []) or "-"
        out.append(
            f"{pad}stage {review.get('stageName') or review['stageIndex']}"
            f"{' round ' + str(review['round']) if review.get('round') else ''}: {who}; "
            f"link sent {review.get('linkSentAt') or '-'}"
        )
        if review.get("decision"):
            out.append(
                f"{pad}{review['decision']} by {review.get('decidedBy') or '-'} at "
                f"{review.get('decidedAt')} after {human(review.get('waitedSeconds'))}"
            )
    return out
