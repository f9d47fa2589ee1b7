"""The local stack's span files: one JSON Lines file a trace, `<state>/otel/<trace id>.jsonl`,
written by `jsonl.JsonLinesExporter` and read by `docflow trace --otel`. No OpenTelemetry
import here, so reading a trace needs none."""

from __future__ import annotations

import json
from pathlib import Path

from docflow.telemetry.shapes import SpanJson

DIR_ENV = "DOCFLOW_OTEL_DIR"


def trace_file(folder: Path, trace_hex: str) -> Path:
    return folder / f"{trace_hex}.jsonl"


def read_spans(folder: Path, trace_hex: str) -> list[SpanJson]:
    """Every span written for the trace, oldest start first; [] when none was."""
    path = trace_file(folder, trace_hex)
    if not path.exists():
        return []
    spans = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            spans.append(json.loads(line))
        except ValueError:
            continue  # a line cut short by a kill mid-write
    return sorted(spans, key=lambda s: (str(s.get("start", "")), str(s.get("name", ""))))
