"""Suite `wait_for_callback` (7-1 .. 7-15), one handler per requirement, from its prose."""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import DurableContext
from aws_durable_execution_sdk_python.config import Duration, WaitForCallbackConfig
from aws_durable_execution_sdk_python.execution import durable_execution
from aws_durable_execution_sdk_python.retries import (
    JitterStrategy,
    RetryStrategyConfig,
    create_retry_strategy,
)
from aws_durable_execution_sdk_python.serdes import JsonSerDes

from conformance.handlers._support import capture_logs

capture_logs()


def register(callback_id: str, ctx: Any) -> None:
    """The submitter: hands the id to the outside world (here: nowhere) and returns."""


def _timeout(seconds: int) -> WaitForCallbackConfig:
    return WaitForCallbackConfig(timeout=Duration.from_seconds(seconds))


def _heartbeat(seconds: int) -> WaitForCallbackConfig:
    return WaitForCallbackConfig(heartbeat_timeout=Duration.from_seconds(seconds))


@durable_execution
def h_7_1(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(register, name=event)


@durable_execution
def h_7_2(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(register, name="approval")


@durable_execution
def h_7_3(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(lambda callback_id, ctx: None)


@durable_execution
def h_7_4(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(register, name=event)


@durable_execution
def h_7_5(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(register, name=event, config=_timeout(3))


@durable_execution
def h_7_6(event: Any, context: DurableContext) -> Any:
    try:
        return context.wait_for_callback(register, name=event)
    except Exception:  # the requirement says the handler catches it
        return "recovered"


@durable_execution
def h_7_7(event: Any, context: DurableContext) -> Any:
    def always_throws(callback_id: str, ctx: Any) -> None:
        raise RuntimeError("the submitter could not deliver the callback id")

    retry = create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=2,
            initial_delay=Duration.from_seconds(1),
            backoff_rate=1,
            jitter_strategy=JitterStrategy.NONE,
        )
    )
    config = WaitForCallbackConfig(retry_strategy=retry)
    return context.wait_for_callback(always_throws, name=event, config=config)


@durable_execution
def h_7_8(event: Any, context: DurableContext) -> Any:
    return context.run_in_child_context(
        lambda child: child.wait_for_callback(register, name=event), name="wrapper"
    )


@durable_execution
def h_7_9(event: Any, context: DurableContext) -> Any:
    context.wait_for_callback(register, name="first")
    return context.wait_for_callback(register, name="second")


@durable_execution
def h_7_10(event: Any, context: DurableContext) -> Any:
    context.wait(Duration.from_seconds(1))
    context.step(lambda _: {"prepared": True})
    return context.wait_for_callback(register, name=event)


@durable_execution
def h_7_11(event: Any, context: DurableContext) -> Any:
    config = WaitForCallbackConfig(serdes=JsonSerDes())
    return context.wait_for_callback(register, name=event, config=config)["status"]


@durable_execution
def h_7_12(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(register, name=event, config=_heartbeat(5))


@durable_execution
def h_7_13(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(register, name=event, config=_heartbeat(10))


@durable_execution
def h_7_14(event: Any, context: DurableContext) -> Any:
    try:
        return context.wait_for_callback(register, name=event, config=_timeout(3))
    except Exception:  # the requirement says the handler catches it
        return "timed-out-handled"


@durable_execution
def h_7_15(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(register, name=event)
