"""`docflow stuck`: which documents in progress are really stuck, and what each is doing.

A document waiting on a reviewer before its stage's deadline is where it should be (its
execution sleeps, nothing is billed); past the deadline, the stage's timeout should have
ended it, so it is stuck. For the rest, the run's own durable history says which operation it
is on: the one it started last and has not ended (GetDurableExecutionHistory, in AWS and on
the local stack's runner alike).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

from docflow.readmodel.transitions import PENDING_REVIEW

# History pages read for one run at most (the runner pages by 100 events; a run of thousands
# of pages has a few thousand): past that the operation is not named.
_MAX_HISTORY_PAGES = 60
_ENDED = ("Succeeded", "Failed", "TimedOut", "Stopped", "Cancelled")


def waiting_within_deadline(item: dict[str, Any], now: datetime | None = None) -> bool:
    """Pure: a document waiting on a person whose stage has not reached its deadline."""
    if item.get("status") != PENDING_REVIEW or not item.get("reviewDeadline"):
        return False
    try:
        deadline = datetime.fromisoformat(str(item["reviewDeadline"]))
    except ValueError:
        return False
    if deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=UTC)
    return deadline > (now or datetime.now(UTC))


def open_operation(events: list[dict[str, Any]]) -> str | None:
    """Pure: the operation a history is on, from its events: the last one started and not
    ended, named under its outermost open parent (`read pages > batch-3`; a wait for a
    callback is its name alone, `review-0`); None when every started operation has ended."""
    names: dict[str, str] = {}
    parents: dict[str, str | None] = {}
    open_ids: dict[str, int] = {}
    for n, event in enumerate(events):
        kind, op = str(event.get("EventType", "")), event.get("Id")
        if not op or kind.startswith("Execution") or kind.startswith("Invocation"):
            continue
        if event.get("Name"):
            names[op] = str(event["Name"])
        parents.setdefault(op, event.get("ParentId"))
        if kind.endswith("Started"):
            open_ids[op] = n
        elif kind.endswith(_ENDED):
            open_ids.pop(op, None)
    if not open_ids:
        return None
    last = max(open_ids, key=lambda op: open_ids[op])
    chain = [last]
    while parents.get(chain[-1]) and parents[chain[-1]] in names:
        chain.append(str(parents[chain[-1]]))
    top, inner = names.get(chain[-1], chain[-1]), names.get(last, last)
    # The SDK names an operation's own parts after it (`review-0 create callback id`).
    if chain[-1] == last or inner.startswith(f"{top} "):
        return top
    return f"{top} > {inner}"


def execution_view(run_id: str) -> tuple[str | None, str | None]:
    """(the execution's status, the operation it is on) for a run, from the Lambda API."""
    from docflow import aws

    function = os.environ.get("DOCFLOW_ORCHESTRATOR_FUNCTION", "docflow-orchestrator")
    lam = aws.client("lambda")
    found = [
        e
        for e in lam.list_durable_executions_by_function(
            FunctionName=function, DurableExecutionName=run_id, MaxItems=10
        ).get("DurableExecutions", [])
        if e.get("DurableExecutionName") == run_id
    ]
    if not found:
        return None, None
    execution = found[0]
    events: list[dict[str, Any]] = []
    args: dict[str, Any] = {"DurableExecutionArn": execution["DurableExecutionArn"]}
    for _ in range(_MAX_HISTORY_PAGES):
        page = lam.get_durable_execution_history(**args)
        events += page.get("Events", [])
        if not page.get("NextMarker"):
            break
        args["Marker"] = page["NextMarker"]
    else:
        return str(execution.get("Status")), None
    return str(execution.get("Status")), open_operation(events)


def stuck_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The listing's items that are stuck, each with its execution's status and operation."""
    from docflow.cli.queries import list_item

    out = []
    for raw in items:
        if waiting_within_deadline(raw):
            continue
        item = list_item(raw)
        run_id = str(raw.get("runId") or "")
        status, operation = execution_view(run_id) if run_id else (None, None)
        out.append({**item, "operation": operation, "executionStatus": status})
    return out
