"""The parts' spans on the local stack's exporter: a JSON Lines file a trace, and nothing at
all (not even an OpenTelemetry import) when tracing is off."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docflow.telemetry import files, spans, tree
from docflow.telemetry.context import TraceParent


@pytest.fixture
def traced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(spans.MODE_ENV, spans.FILE)
    monkeypatch.setenv(files.DIR_ENV, str(tmp_path))
    return tmp_path


def test_a_root_span_has_the_ids_asked_for_and_children_join_its_trace(traced: Path) -> None:
    root = TraceParent(0x6B0F << 112 | 0x1234, 0xBEEF)
    with spans.span("docflow.starter", "start document", None, {"docflow.run_id": "r"}, root=root):
        handed = spans.current()
    assert handed == root
    with spans.span("docflow.status-recorder", "record received", handed):
        inner = spans.current()
    assert inner is not None and inner.trace_id == root.trace_id and inner.span_id != root.span_id

    written = files.read_spans(traced, root.trace_hex)
    assert [(s["name"], s["part"]) for s in written] == [
        ("start document", "docflow.starter"),
        ("record received", "docflow.status-recorder"),
    ]
    start, record = written
    assert (start["spanId"], start["parentSpanId"]) == (f"{0xBEEF:016x}", None)
    assert record["parentSpanId"] == start["spanId"]
    assert start["attributes"] == {"docflow.run_id": "r"}
    shown = tree.render(tree.summary(root.trace_hex, "r", written))
    assert (
        "start document  (starter)" in shown and "    record received  (status-recorder)" in shown
    )


def test_a_failing_span_says_the_errors_type_and_not_its_message(traced: Path) -> None:
    parent = TraceParent(0x77, 0x88)
    with pytest.raises(ValueError), spans.span("docflow.callback-api", "review decision", parent):
        raise ValueError("total 1100.00 does not match")
    (written,) = files.read_spans(traced, parent.trace_hex)
    assert (written["status"], written["statusMessage"]) == ("ERROR", "ValueError")
    assert "1100.00" not in str(written)


def test_without_docflow_otel_nothing_is_traced_or_imported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(spans.MODE_ENV, raising=False)
    with spans.span("docflow.starter", "start document", None, root=TraceParent(1, 2)):
        assert spans.current() is None
    spans.flush()
    assert files.read_spans(tmp_path, f"{1:032x}") == []
    probe = (
        "import sys; import orchestrator.app, starter.app, status_recorder.app, callback_api.app;"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != spans.MODE_ENV}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "[]"  # in AWS without the ADOT layer there is none to import
