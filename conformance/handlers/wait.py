"""Suite `wait` (requirements 2-1 .. 2-5), one handler per requirement, from its prose."""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import DurableContext
from aws_durable_execution_sdk_python.config import Duration
from aws_durable_execution_sdk_python.execution import durable_execution


@durable_execution
def h_2_1(event: Any, context: DurableContext) -> None:
    context.wait(Duration.from_seconds(2))


@durable_execution
def h_2_2(event: Any, context: DurableContext) -> None:
    context.wait(Duration.from_seconds(2), name="custom_wait_name")


@durable_execution
def h_2_3(event: Any, context: DurableContext) -> dict[str, int]:
    context.wait(Duration.from_seconds(2), name="wait-1")
    context.wait(Duration.from_seconds(2), name="wait-2")
    return {"completedWaits": 2}


@durable_execution
def h_2_4(event: Any, context: DurableContext) -> None:
    context.wait(Duration.from_minutes(1))


@durable_execution
def h_2_5(event: Any, context: DurableContext) -> None:
    context.wait(Duration.from_hours(1))
