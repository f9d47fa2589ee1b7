"""Checkpoint encodings: compact JSON for the orchestrator's two largest results, and the
typed step results (`docflow.pipeline.results`) in the shape their dicts always had."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from aws_durable_execution_sdk_python.concurrency.models import BatchResult
from aws_durable_execution_sdk_python.serdes import EXTENDED_TYPES_SERDES, SerDes, SerDesContext


class Record(Protocol):
    # Each record's own TypedDict; this encoding takes any JSON object.
    def to_json(self) -> Mapping[str, object]: ...


R = TypeVar("R", bound=Record)


class BatchResultJson(SerDes[BatchResult[Any]]):
    """The map's result as plain JSON of `BatchResult.to_dict()`.

    The SDK's default envelope tags every value with its type, which more than doubles the
    size; the batch summaries are JSON-native, so nothing is lost.
    """

    def serialize(self, value: BatchResult[Any], _: SerDesContext) -> str:
        return json.dumps(value.to_dict(), separators=(",", ":"))

    def deserialize(self, data: str, _: SerDesContext) -> BatchResult[Any]:
        return BatchResult.from_dict(json.loads(data))


class RecordSerDes(SerDes[R]):
    """A typed step result, checkpointed as its `to_json()` through the SDK's default encoding:
    the checkpoint is exactly what the step's dict result made, so recorded executions replay,
    and the orchestrator gets the record back (`from_json`) on replay as on the first run."""

    def __init__(self, record: Any) -> None:
        self.record = record  # the record's class: it has `from_json`

    def serialize(self, value: R, context: SerDesContext) -> str:
        return EXTENDED_TYPES_SERDES.serialize(value.to_json(), context)

    def deserialize(self, data: str, context: SerDesContext) -> R:
        return self.record.from_json(EXTENDED_TYPES_SERDES.deserialize(data, context))
