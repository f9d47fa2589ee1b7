"""A span as the stack's span files keep it, and `docflow trace --otel --json` (cli/shapes.py's
OTEL_SHAPE says it in words): ids in hex, times in ISO 8601 UTC."""

from __future__ import annotations

from typing import TypedDict

# An attribute's value as OpenTelemetry allows it (a sequence is kept as a list).
AttributeValue = str | bool | int | float | list[str] | list[bool] | list[int] | list[float]


class SpanEvent(TypedDict):
    name: str
    at: str | None
    attributes: dict[str, AttributeValue]


class SpanLink(TypedDict):
    traceId: str
    spanId: str


class SpanJson(TypedDict):
    traceId: str
    spanId: str
    parentSpanId: str | None
    name: str
    part: str | None  # the instrumentation scope: docflow.starter, docflow.orchestrator, ...
    kind: str
    start: str | None
    end: str | None
    durationMs: float | None
    status: str  # UNSET, OK or ERROR
    statusMessage: str | None
    attributes: dict[str, AttributeValue]
    events: list[SpanEvent]
    links: list[SpanLink]


class SpanSummary(TypedDict):
    traceId: str
    runId: str
    traceIds: list[str]  # the trace ids its spans carry: one, when all is well
    parts: dict[str, int]  # spans by part
    spans: list[SpanJson]  # oldest start first
