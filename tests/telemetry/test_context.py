"""A run's trace identity: a function of the run, so a redelivered start sends the same input."""

from __future__ import annotations

import json

from docflow.ids import DocumentRef
from docflow.intake import execution_input
from docflow.telemetry.context import INPUT_KEY, TraceParent, event_seconds, for_run
from docflow.telemetry.plugin import run_parent

DOC = DocumentRef("docs", "incoming/a.pdf", "v1", sequencer="0A", event_time_ms=1_764_000_000_123)


def test_a_traceparent_reads_back_what_it_wrote_and_refuses_the_rest() -> None:
    parent = TraceParent(0xABC, 0x12, sampled=False)
    assert parent.header() == f"00-{0xABC:032x}-{0x12:016x}-00"
    assert TraceParent.parse(parent.header()) == parent
    for wrong in (
        None,
        7,
        "",
        "01-" + "1" * 32 + "-" + "1" * 16 + "-01",
        f"00-{'0' * 32}-{'1' * 16}-01",
    ):
        assert TraceParent.parse(wrong) is None


def test_the_trace_id_starts_with_the_events_time_and_is_the_runs() -> None:
    first = for_run(DOC.run_id, DOC.run_order)
    assert first == for_run(DOC.run_id, DOC.run_order)
    assert first.trace_hex[:8] == f"{1_764_000_000:08x}"  # what X-Ray wants of a trace id
    assert event_seconds(DOC.run_order) == 1_764_000_000
    other = DocumentRef(
        "docs", "incoming/b.pdf", "v1", sequencer="0A", event_time_ms=DOC.event_time_ms
    )
    assert for_run(other.run_id, other.run_order).trace_id != first.trace_id
    assert event_seconds("not a run order") == 0


def test_the_execution_input_carries_the_starters_span_the_same_every_time() -> None:
    once, again = execution_input(DOC), execution_input(DOC)
    assert once == again  # Lambda answers the same name and input with the existing execution
    sent = json.loads(once)
    assert DocumentRef.from_event(sent) == DOC
    assert TraceParent.parse(sent[INPUT_KEY]) == for_run(DOC.run_id, DOC.run_order)


def test_the_orchestrator_reads_the_inputs_span_or_derives_the_same() -> None:
    sent = json.loads(execution_input(DOC))
    assert run_parent(sent) == for_run(DOC.run_id, DOC.run_order)
    # A run started without one (a reprocess, a packet's part): the same root all the same.
    bare = DOC.to_event()
    assert run_parent(bare) == for_run(DOC.run_id, DOC.run_order)
    assert run_parent({"no": "bucket"}) is None and run_parent("text") is None
