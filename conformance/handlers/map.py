"""Suite `map` (requirements 9-1 .. 9-20), one handler per requirement, from its prose."""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import BatchResult, DurableContext
from aws_durable_execution_sdk_python.config import (
    CompletionConfig,
    Duration,
    MapConfig,
    NestingType,
)
from aws_durable_execution_sdk_python.execution import durable_execution
from aws_durable_execution_sdk_python.serdes import EXTENDED_TYPES_SERDES

from conformance.handlers._support import JoinedListSerDes, PrefixSerDes, capture_logs

capture_logs()
ONE_AT_A_TIME = MapConfig(max_concurrency=1)


def _projection(batch: BatchResult, *fields: str) -> dict[str, Any]:
    values = {
        "completionReason": batch.completion_reason.value,
        "status": batch.status.value,
        "successCount": batch.success_count,
        "failureCount": batch.failure_count,
        "totalCount": batch.total_count,
    }
    return {name: values[name] for name in fields}


def _fail_on(*failing: int):
    def item(ctx: DurableContext, value: Any, index: int, items: Any) -> str:
        if index in failing:
            raise RuntimeError(f"item {index} failed")
        return "ok"

    return item


@durable_execution
def h_9_1(event: Any, context: DurableContext) -> list[str]:
    def greet(ctx: DurableContext, item: str, index: int, items: Any) -> str:
        return ctx.step(lambda _: f"Hello, {item}!")

    return context.map(event, greet, name="map", config=ONE_AT_A_TIME).get_results()


@durable_execution
def h_9_2(event: Any, context: DurableContext) -> list[int]:
    return context.map(
        event, lambda ctx, item, i, items: item * 2, config=ONE_AT_A_TIME
    ).get_results()


@durable_execution
def h_9_3(event: Any, context: DurableContext) -> list[int]:
    return context.map(
        event, lambda ctx, item, i, items: item + i, name="indexed", config=ONE_AT_A_TIME
    ).get_results()


@durable_execution
def h_9_4(event: Any, context: DurableContext) -> list[Any]:
    return context.map(event, lambda ctx, item, i, items: item, name="empty").get_results()


@durable_execution
def h_9_5(event: Any, context: DurableContext) -> dict[str, Any]:
    config = MapConfig(
        max_concurrency=1, completion_config=CompletionConfig(tolerated_failure_count=0)
    )
    batch = context.map(["i0", "i1", "i2"], _fail_on(1), name="failfast", config=config)
    return _projection(
        batch, "completionReason", "status", "successCount", "failureCount", "totalCount"
    )


@durable_execution
def h_9_6(event: Any, context: DurableContext) -> list[str]:
    config = MapConfig(
        max_concurrency=1, completion_config=CompletionConfig(tolerated_failure_count=0)
    )
    batch = context.map(["i0", "i1"], _fail_on(0), name="throwing", config=config)
    batch.throw_if_error()
    return batch.get_results()


@durable_execution
def h_9_7(event: Any, context: DurableContext) -> dict[str, Any]:
    config = MapConfig(max_concurrency=1, completion_config=CompletionConfig(min_successful=2))
    batch = context.map(
        ["i0", "i1", "i2", "i3"],
        lambda ctx, item, i, items: "done",
        name="min-successful",
        config=config,
    )
    return _projection(batch, "completionReason", "successCount", "totalCount")


@durable_execution
def h_9_8(event: Any, context: DurableContext) -> dict[str, Any]:
    config = MapConfig(
        max_concurrency=1, completion_config=CompletionConfig(tolerated_failure_count=1)
    )
    batch = context.map(["i0", "i1", "i2"], _fail_on(1), name="tolerated", config=config)
    return _projection(
        batch, "completionReason", "status", "successCount", "failureCount", "totalCount"
    )


@durable_execution
def h_9_9(event: Any, context: DurableContext) -> dict[str, Any]:
    config = MapConfig(
        max_concurrency=1, completion_config=CompletionConfig(tolerated_failure_count=1)
    )
    batch = context.map(
        ["i0", "i1", "i2"], _fail_on(0, 1, 2), name="tolerated-exceeded", config=config
    )
    return _projection(batch, "completionReason", "successCount", "failureCount", "totalCount")


@durable_execution
def h_9_10(event: Any, context: DurableContext) -> dict[str, Any]:
    config = MapConfig(
        max_concurrency=1, completion_config=CompletionConfig(tolerated_failure_percentage=25)
    )
    batch = context.map(
        ["i0", "i1", "i2", "i3"], _fail_on(0, 1, 2, 3), name="tolerated-pct", config=config
    )
    return _projection(batch, "completionReason", "successCount", "failureCount", "totalCount")


@durable_execution
def h_9_11(event: Any, context: DurableContext) -> list[str]:
    return context.map(
        ["i0", "i1", "i2"],
        lambda ctx, item, i, items: f"r{i}",
        name="concurrent",
        config=MapConfig(max_concurrency=2),
    ).get_results()


@durable_execution
def h_9_12(event: Any, context: DurableContext) -> list[str]:
    config = MapConfig(max_concurrency=1, nesting_type=NestingType.FLAT)

    def item(ctx: DurableContext, value: str, index: int, items: Any) -> str:
        return ctx.step(lambda _: value)

    return context.map(["fa", "fb"], item, name="flat", config=config).get_results()


@durable_execution
def h_9_13(event: Any, context: DurableContext) -> list[int]:
    config = MapConfig(max_concurrency=1, item_namer=lambda item, index: f"item-{item}")
    return context.map(
        event, lambda ctx, item, i, items: item * 10, name="named-items", config=config
    ).get_results()


@durable_execution
def h_9_14(event: Any, context: DurableContext) -> list[str]:
    config = MapConfig(max_concurrency=1, item_serdes=PrefixSerDes("wrapped:"))
    return context.map(
        ["x", "y"], lambda ctx, item, i, items: item.upper(), name="serdes", config=config
    ).get_results()


@durable_execution
def h_9_15(event: Any, context: DurableContext) -> list[str]:
    def item(ctx: DurableContext, value: str, index: int, items: Any) -> str:
        if index == 1:
            ctx.wait(Duration.from_seconds(1))
        return ctx.step(lambda _: value)

    return context.map(["r0", "r1"], item, name="suspend", config=ONE_AT_A_TIME).get_results()


@durable_execution
def h_9_16(event: Any, context: DurableContext) -> dict[str, int]:
    size = 70 * 1024
    batch = context.map(
        [0, 1, 2, 3],
        lambda ctx, item, i, items: str(item) * size,
        name="large",
        config=ONE_AT_A_TIME,
    )
    return {"successCount": batch.success_count, "totalCount": batch.total_count}


@durable_execution
def h_9_17(event: Any, context: DurableContext) -> list[str]:
    batch = context.map(
        ["a", "b"], lambda ctx, item, i, items: item.upper(), name="then-wait", config=ONE_AT_A_TIME
    )
    context.wait(Duration.from_seconds(1))
    return batch.get_results()


@durable_execution
def h_9_18(event: Any, context: DurableContext) -> dict[str, Any]:
    config = MapConfig(
        max_concurrency=1, completion_config=CompletionConfig(tolerated_failure_count=1)
    )
    batch = context.map(["ok", "fail"], _fail_on(1), name="fail-then-wait", config=config)
    context.wait(Duration.from_seconds(1))
    return _projection(
        batch, "completionReason", "status", "successCount", "failureCount", "totalCount"
    )


def _upper_with_op_serdes(context: DurableContext, name: str) -> Any:
    # This SDK serializes items with `serdes` unless `item_serdes` is set: name the default
    # one for items, so only the whole result goes through the custom serializer.
    config = MapConfig(
        max_concurrency=1, serdes=JoinedListSerDes(), item_serdes=EXTENDED_TYPES_SERDES
    )
    return context.map(
        ["x", "y"], lambda ctx, item, i, items: item.upper(), name=name, config=config
    )


def _results(value: Any) -> list[str]:
    # Fresh, the map hands back its BatchResult; replayed, what the serdes deserialized.
    return value.get_results() if isinstance(value, BatchResult) else list(value)


@durable_execution
def h_9_19(event: Any, context: DurableContext) -> list[str]:
    return _results(_upper_with_op_serdes(context, "op-serde"))


@durable_execution
def h_9_20(event: Any, context: DurableContext) -> list[str]:
    value = _upper_with_op_serdes(context, "op-serde-replay")
    context.wait(Duration.from_seconds(1))
    return _results(value)
