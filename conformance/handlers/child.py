"""Suite `child` (requirements 3-1 .. 3-18), one handler per requirement, from its prose."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from aws_durable_execution_sdk_python import DurableContext
from aws_durable_execution_sdk_python.config import ChildConfig, Duration, StepConfig
from aws_durable_execution_sdk_python.execution import durable_execution
from aws_durable_execution_sdk_python.retries import (
    JitterStrategy,
    RetryPresets,
    RetryStrategyConfig,
    create_retry_strategy,
)

from conformance.handlers._support import (
    UppercaseSerDes,
    capture_logs,
    crash,
    first_time,
    in_own_process,
)

capture_logs()
NO_RETRY = StepConfig(retry_strategy=RetryPresets.none())
WAIT = Duration.from_seconds(1)
CHECKPOINT_FLUSH_S = 1.0


def _retry(max_attempts: int) -> StepConfig:
    return StepConfig(
        retry_strategy=create_retry_strategy(
            RetryStrategyConfig(
                max_attempts=max_attempts,
                initial_delay=Duration.from_seconds(1),
                backoff_rate=1,
                jitter_strategy=JitterStrategy.NONE,
            )
        )
    )


def _fail(_: Any) -> str:
    raise RuntimeError("step failed")


@durable_execution
def h_3_1(event: Any, context: DurableContext) -> str:
    return context.run_in_child_context(lambda child: child.step(lambda _: event))


@durable_execution
def h_3_2(event: Any, context: DurableContext) -> str:
    return context.run_in_child_context(
        lambda child: child.step(lambda _: event["value"]), name=event["name"]
    )


@durable_execution
def h_3_3(event: Any, context: DurableContext) -> str:
    def body(child: DurableContext) -> str:
        first = child.step(lambda _: event)
        return child.step(lambda _: first)

    return context.run_in_child_context(body, name="two-steps")


@durable_execution
def h_3_4(event: Any, context: DurableContext) -> str:
    return context.run_in_child_context(
        lambda child: child.step(_fail, config=NO_RETRY), name="failing-child"
    )


@durable_execution
def h_3_5(event: Any, context: DurableContext) -> str:
    with contextlib.suppress(Exception):  # the handler catches the child's error
        context.run_in_child_context(lambda child: child.step(_fail, config=NO_RETRY))
    return context.step(lambda _: event)


@durable_execution
def h_3_6(event: Any, context: DurableContext) -> str:
    def inner(child: DurableContext) -> str:
        return child.step(lambda _: event)

    def outer(child: DurableContext) -> str:
        child.step(lambda _: event)
        return child.run_in_child_context(inner, name="inner")

    return context.run_in_child_context(outer, name="outer")


@durable_execution
def h_3_7(event: Any, context: DurableContext) -> str:
    def flaky(step_context: Any) -> str:
        if step_context.attempt < 2:
            raise RuntimeError("first attempt fails")
        return event

    return context.run_in_child_context(
        lambda child: child.step(flaky, config=_retry(3)), name="retrying-child"
    )


@durable_execution
def h_3_8(event: Any, context: DurableContext) -> str:
    return context.run_in_child_context(
        lambda child: child.step(_fail, config=_retry(2)), name="exhausted-child"
    )


@durable_execution
def h_3_9(event: Any, context: DurableContext) -> str:
    value = context.run_in_child_context(lambda child: child.step(lambda _: event))
    context.wait(WAIT)
    return value


@durable_execution
def h_3_10(event: Any, context: DurableContext) -> str:
    def body(child: DurableContext) -> str:
        value = child.step(lambda _: event)
        child.wait(WAIT)
        return value

    return context.run_in_child_context(body, name="step-then-wait")


@durable_execution
def h_3_11(event: Any, context: DurableContext) -> str:
    def body(child: DurableContext) -> str:
        # Replay logging on: the child body's log line shows each time the body runs.
        child.logger.with_is_replaying(lambda: False).info(f"building large result for {event}")
        small = child.step(lambda _: "x")
        return small * (300 * 1024)

    large = context.run_in_child_context(body, name="large-result")
    context.wait(WAIT)
    return f"{len(large)} characters"


def _crash_once(event: str):
    def body(_: Any) -> str:
        if first_time(f"3-12-{event}"):
            # The SDK sends an at-least-once step's start in the background: the requirement's
            # crash comes after ContextStarted and StepStarted are checkpointed.
            time.sleep(CHECKPOINT_FLUSH_S)
            crash()
        return event

    return body


@durable_execution
def _h_3_12(event: Any, context: DurableContext) -> str:
    return context.run_in_child_context(lambda child: child.step(_crash_once(event)))


h_3_12 = in_own_process(_h_3_12)


@durable_execution
def h_3_13(event: Any, context: DurableContext) -> str:
    def body(child: DurableContext) -> str:
        child.wait(WAIT)
        return event

    value = context.run_in_child_context(body, name="only-wait")
    return context.step(lambda _: value)


@durable_execution
def h_3_14(event: Any, context: DurableContext) -> str:
    return context.run_in_child_context(
        lambda child: child.step(lambda _: event),
        name="uppercase",
        config=ChildConfig(serdes=UppercaseSerDes()),
    )


@durable_execution
def h_3_15(event: Any, context: DurableContext) -> str:
    def body(child: DurableContext) -> str:
        raise RuntimeError("thrown in the child body")

    return context.run_in_child_context(body, name="throwing-child")


@durable_execution
def h_3_16(event: Any, context: DurableContext) -> None:
    return context.run_in_child_context(lambda child: None, name="null-child")


@durable_execution
def h_3_17(event: Any, context: DurableContext) -> str:
    def body(child: DurableContext) -> str:
        child.logger.with_is_replaying(lambda: False).info(f"child body ran for {event}")
        return event

    value = context.run_in_child_context(body, name="logging-child")
    context.wait(WAIT)
    return value


@durable_execution
def h_3_18(event: Any, context: DurableContext) -> str:
    def body(child: DurableContext) -> str:
        value = child.step(lambda _: event)
        child.wait(WAIT)
        return value

    value = context.run_in_child_context(body, name="inner-work")
    value = context.step(lambda _: value)
    context.wait(WAIT)
    return value
