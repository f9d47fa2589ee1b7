"""The SDK's OpenTelemetry plugin on the real orchestrator, through the durable testing runner:
every invocation and operation of a run lands in the run's trace, under the starter's span
that the execution input names."""

from __future__ import annotations

from pathlib import Path

import pytest
from aws_durable_execution_sdk_python import durable_execution
from aws_durable_execution_sdk_python.execution import InvocationStatus
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.intake import execution_input
from docflow.telemetry import files, spans
from docflow.telemetry.context import for_run
from docflow.telemetry.plugin import PART, orchestrator_plugins
from orchestrator.app import run_document
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack


def test_no_plugin_when_tracing_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(spans.MODE_ENV, raising=False)
    assert orchestrator_plugins() == []


def test_a_runs_operations_are_spans_of_its_trace(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(spans.MODE_ENV, spans.FILE)
    monkeypatch.setenv(files.DIR_ENV, str(tmp_path))
    handler = durable_execution(run_document, plugins=orchestrator_plugins())
    doc = stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        result = runner.run(input=execution_input(doc), execution_timeout=120)
    assert result.status is InvocationStatus.SUCCEEDED

    root = for_run(doc.run_id, doc.run_order)
    written = files.read_spans(tmp_path, root.trace_hex)
    assert {s["traceId"] for s in written} == {root.trace_hex}
    assert {s["part"] for s in written} == {PART}
    invocations = [s for s in written if s["name"] == "Invocation"]
    assert invocations and all(s["parentSpanId"] == f"{root.span_id:016x}" for s in invocations)
    names = {s["name"] for s in written}
    for step in ("record received", "split", "read pages", "classify", "finalize"):
        assert step in names, step
    (finalize,) = [s for s in written if s["name"] == "finalize"]
    assert finalize["attributes"]["durable.operation.status"] == "SUCCEEDED"
