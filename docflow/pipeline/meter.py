"""The run's own usage, read from its checkpointed operations, for the cost estimate.

`run_meter(context, batches)` returns a callable that the last step of a run (finalize or
archive) calls inside its body. It reads the execution's operation map as the SDK holds it
(`DurableContext.state.operations`: every operation checkpointed so far, with the service's
start and end timestamps and each step's attempt), so the counts are what the service saw,
not a model of the pipeline. It runs inside the step, so the figure is computed once and
checkpointed with the step's result: a replay reads it back instead of counting again.

operations   every operation so far, plus the two the run still makes (this step and its
             status report); the execution's own record is not an operation
retries      step attempts beyond the first (each retry is billed as an operation)
stepMs       milliseconds between each step's start and end, as the service timed them
             (a retried step counts from its first attempt, so back-off waits are included)
steps        the steps, and stepsTimed those whose start and end the service stamped apart:
             the local runner stamps a step whose start and end checkpoints arrive together
             at one instant, so its time is not measured (stepMs and the Lambda figure leave
             it out, and `docflow show` says so) rather than measured as 0
pages        pages read, by engine, from the checkpointed batch summaries
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from docflow.cost import DEFAULT_MEMORY_MB, CostEstimate, Usage, estimate
from docflow.pipeline.results import BatchSummary

# This step and the status report after it.
_STILL_TO_COME = 2


def usage_from(
    operations: Mapping[str, Any],
    batches: Sequence[BatchSummary],
    extra: Mapping[str, int] | None = None,
) -> Usage:
    """Pure: usage from an operation map (SDK `Operation`s) and the batch summaries."""
    count, retries, step_ms, steps, timed = 0, 0, 0, 0, 0
    for op in operations.values():
        kind = getattr(op.operation_type, "value", str(op.operation_type))
        if kind == "EXECUTION":
            continue
        count += 1
        if kind != "STEP":
            continue
        steps += 1
        details = op.step_details
        if details is not None and details.attempt:
            retries += max(0, int(details.attempt) - 1)
        if op.start_timestamp and op.end_timestamp and op.end_timestamp > op.start_timestamp:
            step_ms += int((op.end_timestamp - op.start_timestamp).total_seconds() * 1000)
            timed += 1
    pages: Counter[str] = Counter()
    for batch in batches:
        pages.update(batch.engines)
    memory = int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE") or DEFAULT_MEMORY_MB)
    return Usage(
        operations=count + _STILL_TO_COME,
        retries=retries,
        step_ms=step_ms,
        pages=dict(pages),
        steps=steps,
        steps_timed=timed,
        memory_mb=memory,
        extra=dict(extra or {}),
    )


def run_meter(
    context: Any,
    batches: Sequence[BatchSummary],
    doc_type: str | None,
    extra: Mapping[str, int] | None = None,
) -> Callable[[], CostEstimate]:
    """What the last step calls (inside its body) to price the run so far."""

    def measure() -> CostEstimate:
        return estimate(usage_from(dict(context.state.operations), batches, extra), doc_type)

    return measure
