"""Stuck, explained: which operation a quiet document's run is on, since when, and why that
counts as stuck. For `docflow stuck` and the dashboard's stuck list to call per row (one
history read per document: the stuck list is short; never for the whole read model)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from docflow.trace.report import human, open_sentences, walk
from docflow.trace.timeline import RETRYING, RUNNING, Fold


def explain(fold: Fold, quiet_for: str, now: datetime | None = None) -> dict[str, Any]:
    """`{"operation", "kind", "since", "why"}` for the innermost open operation of a run."""
    now = now or datetime.now(UTC)
    roots = fold.roots()
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
    if op.kind in ("wait", "callback"):
        why = f"quiet for {quiet_for} while it waits, which is expected: {words[-1]}"
    elif op.status == RETRYING:
        why = f"no report for {quiet_for}: {words[-1]}"
    else:
        why = (
            f"no report for {quiet_for} while {op.kind} {op.name!r} has run "
            f"{human(op.duration_s(now))}: longer than a step should take"
        )
    return {"operation": op.name, "kind": op.kind, "since": op.start, "why": why}
