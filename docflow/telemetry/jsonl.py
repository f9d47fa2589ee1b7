"""A span exporter that appends each finished span to its trace's JSON Lines file.

Used on the local stack, behind a SimpleSpanProcessor, so a span is on disk when it ends: the
parts run in several processes (the function host, a version's worker) and a batch held in
memory would die with a killed one. One line is one write of an O_APPEND file, so lines from
two processes do not interleave.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from docflow.telemetry.files import trace_file
from docflow.telemetry.shapes import AttributeValue, SpanJson


def _iso(ns: int | None) -> str | None:
    if ns is None:
        return None
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="microseconds")


def _plain(attributes: Any) -> dict[str, AttributeValue]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dict(attributes or {}).items()}


def span_line(span: ReadableSpan) -> SpanJson:
    """One span as the file keeps it (ids in hex, times in ISO 8601 UTC)."""
    context = span.get_span_context()
    assert context is not None  # a finished SDK span always has one
    start, end = span.start_time, span.end_time
    return {
        "traceId": f"{context.trace_id:032x}",
        "spanId": f"{context.span_id:016x}",
        "parentSpanId": f"{span.parent.span_id:016x}" if span.parent else None,
        "name": span.name,
        "part": span.instrumentation_scope.name if span.instrumentation_scope else None,
        "kind": span.kind.name,
        "start": _iso(start),
        "end": _iso(end),
        "durationMs": round((end - start) / 1e6, 3) if start and end else None,
        "status": span.status.status_code.name,
        "statusMessage": span.status.description,
        "attributes": _plain(span.attributes),
        "events": [
            {"name": e.name, "at": _iso(e.timestamp), "attributes": _plain(e.attributes)}
            for e in span.events
        ],
        "links": [
            {"traceId": f"{link.context.trace_id:032x}", "spanId": f"{link.context.span_id:016x}"}
            for link in span.links
        ],
    }


class JsonLinesExporter(SpanExporter):
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            for span in spans:
                line = span_line(span)
                data = (json.dumps(line, default=str) + "\n").encode("utf-8")
                path = trace_file(self.folder, line["traceId"])
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
