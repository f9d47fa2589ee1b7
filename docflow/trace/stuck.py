"""Stuck, explained: which operation a quiet document's run is on, since when, and why that
counts as stuck. For `docflow stuck` and the dashboard's stuck list to call per row (one
history read per document: the stuck list is short; never for the whole read model)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TypedDict

from botocore.exceptions import BotoCoreError, ClientError

from docflow import aws
from docflow.readmodel.items import DocumentState, DocumentView
from docflow.trace import history, meaning
from docflow.trace.report import human, open_sentences, walk
from docflow.trace.timeline import RETRYING, RUNNING, Fold, Operation, iso

Reader = Callable[[str], Fold]


class Stuckness(TypedDict, total=False):
    """Why a run counts as stuck (`docflow stuck --json` adds it to each listed item)."""

    operation: str | None  # the innermost open operation, under its outermost parent
    kind: str | None
    since: str | None
    why: str
    executionStatus: str | None  # RUNNING, SUCCEEDED, ...; None when no execution has the run


def explain(
    fold: Fold,
    quiet_for: str,
    now: datetime | None = None,
    shown: DocumentView | None = None,
) -> Stuckness:
    """`{"operation", "kind", "since", "why"}` for the innermost open operation of a run.

    `operation` names it under its outermost open parent (`read pages > batch-3`; a review's
    wait is its stage's name alone, `review-0`). `shown` (the read model's `show` of the
    document) lets a review's wait say who it waits on and when it times out."""
    now = now or datetime.now(UTC)
    roots = fold.roots()
    if shown:
        history_items = shown.get("history") or []
        meaning.join(roots, history_items, shown.get("state"), fold.execution.name or "")
    open_ops = [
        o
        for o in walk(roots)
        if o.status in (RUNNING, RETRYING)
        and not any(c.status in (RUNNING, RETRYING) for c in o.children)
    ]
    if not open_ops:
        ended = fold.execution.status
        return {
            "operation": None,
            "kind": None,
            "since": None,
            "why": f"the execution is {ended} but the read model never heard its end "
            f"(no report for {quiet_for}); the reconcile pass records it",
        }
    op = open_ops[-1]
    words = open_sentences(roots, now)
    if op.kind in ("wait", "callback") and "past its timeout" in words[-1]:
        why = f"{words[-1]}: the stage's timeout should have ended the wait"
    elif op.kind in ("wait", "callback"):
        why = f"quiet for {quiet_for} while it waits, which is expected: {words[-1]}"
    elif op.status == RETRYING:
        why = f"no report for {quiet_for}: {words[-1]}"
    else:
        why = (
            f"no report for {quiet_for} while {op.kind} {op.name!r} has run "
            f"{human(op.duration_s(now))}: longer than a step should take"
        )
    return {"operation": label(fold, op), "kind": op.kind, "since": iso(op.start), "why": why}


def label(fold: Fold, op: Operation) -> str:
    """The operation's name under its outermost parent; the SDK names an operation's own
    parts after it (`review-0 create callback id`), which then say the parent's name only."""
    top = op
    while top.parent and top.parent in fold.operations:
        top = fold.operations[top.parent]
    if top is op or op.name.startswith(f"{top.name} "):
        return top.name
    return f"{top.name} > {op.name}"


def explain_run(
    item: DocumentState,
    now: datetime | None = None,
    read: Reader = history.read,
    shown: DocumentView | None = None,
) -> Stuckness:
    """A stuck list's row explained from its run's history: `explain`'s answer and the
    execution's status (`RUNNING`, `SUCCEEDED`, ..., null when no execution has the run's
    name)."""
    now = now or datetime.now(UTC)
    quiet_for = quiet(item, now)
    run_id = str(item.get("runId") or "")
    nothing = Stuckness(operation=None, kind=None, since=None, executionStatus=None)
    if not run_id:
        return {**nothing, "why": "the read model names no run for it"}
    try:
        fold = read(run_id)
    except history.NoExecution:
        return {
            **nothing,
            "why": f"no report for {quiet_for} and no durable execution has the run's name "
            "(it never started, or it is past the execution's retention)",
        }
    except (ClientError, BotoCoreError) as exc:  # no access (IAM), or the service is away
        code = aws.error_code(exc) if isinstance(exc, ClientError) else type(exc).__name__
        return {
            **nothing,
            "why": f"no report for {quiet_for}; the execution's history could not be read ({code})",
        }
    status = fold.execution.status.upper().replace("-", "_") if fold.execution.status else None
    return {**explain(fold, quiet_for, now, shown), "executionStatus": status}


def quiet(item: DocumentState, now: datetime) -> str:
    """How long the document has been quiet: since its last report."""
    try:
        last = datetime.fromisoformat(str(item.get("updatedAt")))
    except ValueError:
        return "a while"
    if last.tzinfo is None:
        last = last.replace(tzinfo=UTC)
    return human((now - last).total_seconds())
