"""Reading one run's history from Lambda: GetDurableExecutionHistory, page by page.

The read model keeps a run's id, which is its durable execution name (`docflow.ids`); the
execution ARN comes from ListDurableExecutionsByFunction filtered by that name (the call the
reconcile pass and the local starter already make). The same boto3 calls answer in AWS and
from the local stack's durable runner.

The history API allows 15 requests a second per account in AWS: a trace is an operator's
question about one document, never a dashboard list's (the lists read the read model).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from docflow import aws
from docflow.trace.timeline import Fold

if TYPE_CHECKING:
    from mypy_boto3_lambda.type_defs import (
        EventTypeDef,
        ExecutionTypeDef,
        GetDurableExecutionHistoryRequestTypeDef,
    )

PAGE_EVENTS = 1000  # the API's largest page


class NoExecution(LookupError):
    """The durable service has no execution of that name (expired past its retention, or
    never started)."""


def orchestrator_function() -> str:
    """The orchestrator's function name, as the recorder's reconcile pass lists it."""
    from docflow.settings import load_settings

    return load_settings().orchestrator_name


def execution_of(run_id: str, function: str | None = None) -> ExecutionTypeDef:
    """The execution summary (DurableExecutionArn, Status, StartTimestamp...) of a run id."""
    answer = aws.client("lambda").list_durable_executions_by_function(
        FunctionName=function or orchestrator_function(),
        DurableExecutionName=run_id,
        MaxItems=10,
    )
    found = [
        e for e in answer.get("DurableExecutions", []) if e.get("DurableExecutionName") == run_id
    ]
    if not found:
        raise NoExecution(f"no durable execution named {run_id}")
    return max(found, key=lambda e: str(e.get("StartTimestamp") or ""))


def pages(arn: str, page_events: int = PAGE_EVENTS) -> Iterator[list[EventTypeDef]]:
    """The history, one page of events at a time, oldest first (no execution data: results
    and inputs are not needed and may be large)."""
    lam = aws.client("lambda")
    marker: str | None = None
    while True:
        args: GetDurableExecutionHistoryRequestTypeDef = {
            "DurableExecutionArn": arn,
            "IncludeExecutionData": False,
            "MaxItems": page_events,
        }
        if marker:
            args["Marker"] = marker
        answer = lam.get_durable_execution_history(**args)
        yield list(answer.get("Events", []))
        marker = answer.get("NextMarker")
        if not marker:
            return


def read(run_id: str, function: str | None = None) -> Fold:
    """The run's operations, folded page by page."""
    summary = execution_of(run_id, function)
    fold = Fold()
    fold.execution.arn = str(summary["DurableExecutionArn"])
    for page in pages(fold.execution.arn):
        fold.add(page)
    fold.execution.name = fold.execution.name or run_id
    status = str(summary.get("Status") or "").lower().replace("_", "-")
    if status and fold.execution.end is None:
        fold.execution.status = "running" if status == "running" else status
    return fold
