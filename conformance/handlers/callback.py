"""Suite `callback` (requirements 4-1 .. 4-19), one handler per requirement, from its prose."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from aws_durable_execution_sdk_python import DurableContext
from aws_durable_execution_sdk_python.config import CallbackConfig, Duration
from aws_durable_execution_sdk_python.execution import durable_execution
from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext

from conformance.handlers._support import capture_logs

capture_logs()


class StampedMessageSerDes(SerDes[dict]):
    """Callback 4-15: a JSON object whose ISO-8601 "timestamp" becomes epoch seconds."""

    def serialize(self, value: dict, serdes_context: SerDesContext) -> str:
        return json.dumps(value)

    def deserialize(self, data: str, serdes_context: SerDesContext) -> dict:
        raw = json.loads(data)
        stamp = datetime.fromisoformat(raw["timestamp"].replace("Z", "+00:00"))
        return {**raw, "timestamp": int(stamp.timestamp())}


class NumberSerDes(SerDes[int]):
    """Callback 4-16: the payload read as a number."""

    def serialize(self, value: int, serdes_context: SerDesContext) -> str:
        return json.dumps(value)

    def deserialize(self, data: str, serdes_context: SerDesContext) -> int:
        return int(json.loads(data))


def _timeout(seconds: int) -> CallbackConfig:
    return CallbackConfig(timeout=Duration.from_seconds(seconds))


@durable_execution
def h_4_1(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name=event).result()


@durable_execution
def h_4_2(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name="approval").result()


@durable_execution
def h_4_3(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name=event, config=_timeout(5)).result()


@durable_execution
def h_4_4(event: Any, context: DurableContext) -> Any:
    config = CallbackConfig(heartbeat_timeout=Duration.from_seconds(5))
    return context.create_callback(name=event, config=config).result()


@durable_execution
def h_4_5(event: Any, context: DurableContext) -> Any:
    config = CallbackConfig(heartbeat_timeout=Duration.from_seconds(10))
    return context.create_callback(name=event, config=config).result()


@durable_execution
def h_4_6(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name=event).result()


@durable_execution
def h_4_7(event: Any, context: DurableContext) -> Any:
    callback = context.create_callback(name=event)
    context.step(lambda _: "between")
    return callback.result()


@durable_execution
def h_4_8(event: Any, context: DurableContext) -> Any:
    callback = context.create_callback(name=event, config=_timeout(5))
    context.step(lambda _: "between")
    return callback.result()


def _callback_wait_result(context: DurableContext, name: str, config: Any, wait_s: int) -> Any:
    callback = context.create_callback(name=name, config=config)
    context.wait(Duration.from_seconds(wait_s))
    return callback.result()


@durable_execution
def h_4_9(event: Any, context: DurableContext) -> Any:
    return _callback_wait_result(context, event, None, 5)


@durable_execution
def h_4_10(event: Any, context: DurableContext) -> Any:
    return _callback_wait_result(context, event, None, 5)


@durable_execution
def h_4_11(event: Any, context: DurableContext) -> Any:
    return _callback_wait_result(context, event, _timeout(3), 6)


@durable_execution
def h_4_12(event: Any, context: DurableContext) -> Any:
    value = context.create_callback(name=event).result()
    context.wait(Duration.from_seconds(2))
    return value


@durable_execution
def h_4_13(event: Any, context: DurableContext) -> Any:
    try:
        message = context.create_callback(name=event).result()
    except Exception as exc:  # the requirement says the handler catches it
        message = f"callback failed: {exc}"
    context.wait(Duration.from_seconds(2))
    return message


@durable_execution
def h_4_14(event: Any, context: DurableContext) -> Any:
    try:
        message = context.create_callback(name=event, config=_timeout(3)).result()
    except Exception as exc:  # the requirement says the handler catches it
        message = f"callback timed out: {exc}"
    context.wait(Duration.from_seconds(2))
    return message


@durable_execution
def h_4_15(event: Any, context: DurableContext) -> Any:
    config = CallbackConfig(serdes=StampedMessageSerDes())
    return {"received": context.create_callback(name=event, config=config).result()}


@durable_execution
def h_4_16(event: Any, context: DurableContext) -> Any:
    count = context.create_callback(name=event, config=CallbackConfig(serdes=NumberSerDes()))
    value = count.result()
    return {"count": value, "doubled": value * 2}


@durable_execution
def h_4_17(event: Any, context: DurableContext) -> Any:
    first = context.create_callback(name=event[0]).result()
    second = context.create_callback(name=event[1]).result()
    return [first, second]


@durable_execution
def h_4_18(event: Any, context: DurableContext) -> Any:
    a = context.create_callback(name=event[0])
    b = context.create_callback(name=event[1])
    first = a.result()
    return [first, b.result()]


@durable_execution
def h_4_19(event: Any, context: DurableContext) -> Any:
    a = context.create_callback(name=event[0])
    b = context.create_callback(name=event[1])
    second = b.result()
    return [a.result(), second]
