"""Suite `step` (requirements 1-1 .. 1-20), one handler per requirement, from its prose."""

from __future__ import annotations

import contextlib
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext
from aws_durable_execution_sdk_python.config import Duration, StepConfig, StepSemantics
from aws_durable_execution_sdk_python.execution import durable_execution
from aws_durable_execution_sdk_python.retries import (
    JitterStrategy,
    RetryDecision,
    RetryPresets,
    RetryStrategyConfig,
    create_retry_strategy,
)

from conformance.handlers._support import (
    UppercaseSerDes,
    capture_logs,
    crash,
    in_own_process,
)

capture_logs()
NO_RETRY = StepConfig(retry_strategy=RetryPresets.none())


class TransientError(Exception):
    """The error requirements 1-15 and 1-16 retry on, or refuse to."""


def _retry_every_second(max_attempts: int) -> Any:
    return create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=max_attempts,
            initial_delay=Duration.from_seconds(1),
            backoff_rate=1,
            jitter_strategy=JitterStrategy.NONE,
        )
    )


@durable_execution
def h_1_1(event: Any, context: DurableContext) -> str:
    return context.step(lambda _: f"Hello, {event}!")


@durable_execution
def h_1_2(event: Any, context: DurableContext) -> str:
    return context.step(lambda _: f"Hello, {event}!", name="custom_step_name")


@durable_execution
def h_1_3(event: Any, context: DurableContext) -> str:
    first = context.step(lambda _: "first")
    return context.step(lambda _: f"{first}_second")


@durable_execution
def h_1_4(event: Any, context: DurableContext) -> dict[str, Any]:
    return context.step(
        lambda _: {
            "user": {"name": event["name"], "tags": list(event["tags"])},
            "count": len(event["tags"]),
        }
    )


@durable_execution
def h_1_5(event: Any, context: DurableContext) -> None:
    return context.step(lambda _: None)


@durable_execution
def h_1_6(event: Any, context: DurableContext) -> str:
    return context.step(lambda _: event, config=StepConfig(serdes=UppercaseSerDes()))


def _greet_logged(event: Any):
    def greet(step_context: StepContext) -> str:
        step_context.logger.info(f"Greeting step started for: {event}")
        greeting = f"Hello, {event}!"
        step_context.logger.info(f"Greeting step completed with: {greeting}")
        return greeting

    return greet


@durable_execution
def h_1_7(event: Any, context: DurableContext) -> str:
    return context.step(_greet_logged(event))


@durable_execution
def h_1_8(event: Any, context: DurableContext) -> str:
    value = context.step(lambda _: "computed")
    context.wait(Duration.from_seconds(2))
    return value


@durable_execution
def h_1_9(event: Any, context: DurableContext) -> str:
    def compute(step_context: StepContext) -> str:
        step_context.logger.info("step executed")
        return "cached_value"

    value = context.step(compute)
    context.wait(Duration.from_seconds(1))
    return value


@durable_execution
def h_1_10(event: Any, context: DurableContext) -> str:
    def fail(step_context: StepContext) -> str:
        step_context.logger.info("step executed")
        raise RuntimeError("permanent failure")

    with contextlib.suppress(Exception):  # the handler catches the step's error
        context.step(fail, config=NO_RETRY)
    context.wait(Duration.from_seconds(1))
    return "caught"


def _fails_until(attempt: int, result: str, error: type[Exception] = RuntimeError):
    def body(step_context: StepContext) -> str:
        if step_context.attempt < attempt:
            raise error(f"attempt {step_context.attempt} failed")
        return result

    return body


@durable_execution
def h_1_11(event: Any, context: DurableContext) -> str:
    return context.step(
        _fails_until(2, "Operation succeeded"), config=StepConfig(_retry_every_second(3))
    )


@durable_execution
def h_1_12(event: Any, context: DurableContext) -> str:
    return context.step(_fails_until(99, "never"), config=StepConfig(_retry_every_second(4)))


@durable_execution
def h_1_13(event: Any, context: DurableContext) -> str:
    return context.step(_fails_until(3, "third time"))


@durable_execution
def h_1_14(event: Any, context: DurableContext) -> str:
    strategy = create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=5,
            initial_delay=Duration.from_seconds(2),
            backoff_rate=3,
            jitter_strategy=JitterStrategy.NONE,
        )
    )
    return context.step(_fails_until(3, "third time"), config=StepConfig(strategy))


@durable_execution
def h_1_15(event: Any, context: DurableContext) -> str:
    def retry_on_transient(error: Exception, attempts_made: int) -> RetryDecision:
        if isinstance(error, TransientError) and attempts_made < 3:
            return RetryDecision.retry(Duration.from_seconds(1))
        return RetryDecision.no_retry()

    return context.step(
        _fails_until(2, "recovered", TransientError), config=StepConfig(retry_on_transient)
    )


@durable_execution
def h_1_16(event: Any, context: DurableContext) -> str:
    def no_retry_on_transient(error: Exception, attempts_made: int) -> RetryDecision:
        if isinstance(error, TransientError):
            return RetryDecision.no_retry()
        return RetryDecision.retry(Duration.from_seconds(1))

    return context.step(
        _fails_until(99, "never", TransientError), config=StepConfig(no_retry_on_transient)
    )


def _log_then_crash(event: Any, crash_before: int, result: str):
    def body(step_context: StepContext) -> str:
        step_context.logger.info(f"executing with input {event}")
        if step_context.attempt < crash_before:
            crash()
        return result

    return body


@durable_execution
def _h_1_17(event: Any, context: DurableContext) -> str:
    return context.step(
        _log_then_crash(event, 99, "never"),
        name="at_most_once_flaky_step",
        config=StepConfig(
            retry_strategy=RetryPresets.none(),
            step_semantics=StepSemantics.AT_MOST_ONCE_PER_RETRY,
        ),
    )


@durable_execution
def _h_1_18(event: Any, context: DurableContext) -> str:
    return context.step(
        _log_then_crash(event, 2, "succeeded on second attempt"),
        config=StepConfig(
            retry_strategy=_retry_every_second(3),
            step_semantics=StepSemantics.AT_MOST_ONCE_PER_RETRY,
        ),
    )


h_1_17 = in_own_process(_h_1_17)
h_1_18 = in_own_process(_h_1_18)


@durable_execution
def h_1_19(event: Any, context: DurableContext) -> str:
    def failing(_: StepContext) -> str:
        raise RuntimeError("always fails")

    return context.step(failing, config=NO_RETRY)


@durable_execution
def h_1_20(event: Any, context: DurableContext) -> str:
    def failing(_: StepContext) -> str:
        raise RuntimeError("always fails")

    try:
        value = context.step(failing, config=NO_RETRY)
    except Exception:  # the requirement says the handler catches it
        value = "fallback"
    return context.step(lambda _: f"{value}_result")
