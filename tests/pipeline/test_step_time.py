"""The cost's step time says what it measured: a step the runner stamped at one instant (the
local runner, when a step's start and end checkpoints arrive together) is not timed, and the
cost line says so instead of claiming `0 ms of steps` and no Lambda cost."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from aws_durable_execution_sdk_python.lambda_service import (
    Operation,
    OperationStatus,
    OperationType,
    StepDetails,
)

from docflow.cost import estimate, format_cost
from docflow.pipeline.meter import usage_from

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def step(name: str, ms: int) -> Operation:
    return Operation(
        operation_id=name,
        operation_type=OperationType.STEP,
        status=OperationStatus.SUCCEEDED,
        name=name,
        start_timestamp=T0,
        end_timestamp=T0 + timedelta(milliseconds=ms),
        step_details=StepDetails(attempt=1),
    )


def test_steps_stamped_at_one_instant_are_not_timed_and_the_line_says_so() -> None:
    ops = {s.operation_id: s for s in (step("split", 0), step("classify", 0))}
    cost = estimate(usage_from(ops, []), "report")
    assert (cost["steps"], cost["stepsTimed"], cost["stepMs"]) == (2, 0, 0)
    line = format_cost(cost)
    assert "0 ms" not in line and "step time not measured (so no Lambda cost)" in line


def test_a_partly_timed_run_says_how_many_steps_its_time_covers() -> None:
    ops = {s.operation_id: s for s in (step("split", 0), step("batch-0", 1500))}
    cost = estimate(usage_from(ops, []), "report")
    assert (cost["steps"], cost["stepsTimed"], cost["stepMs"]) == (2, 1, 1500)
    assert "1500 ms of steps (1 of 2 timed, the rest not measured)" in format_cost(cost)


def test_a_fully_timed_run_reads_as_before() -> None:
    ops = {s.operation_id: s for s in (step("split", 40), step("batch-0", 1500))}
    line = format_cost(estimate(usage_from(ops, []), "report"))
    assert "(4 operations, 1540 ms of steps)" in line
