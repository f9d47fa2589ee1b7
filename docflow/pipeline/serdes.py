"""Compact checkpoint encodings for the orchestrator's two largest results."""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python.concurrency.models import BatchResult
from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext


class BatchResultJson(SerDes[BatchResult[Any]]):
    """The map's result as plain JSON of `BatchResult.to_dict()`.

    The SDK's default envelope tags every value with its type, which more than doubles the
    size; the batch summaries are JSON-native, so nothing is lost.
    """

    def serialize(self, value: BatchResult[Any], _: SerDesContext) -> str:
        return json.dumps(value.to_dict(), separators=(",", ":"))

    def deserialize(self, data: str, _: SerDesContext) -> BatchResult[Any]:
        return BatchResult.from_dict(json.loads(data))
