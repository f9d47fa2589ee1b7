"""Throttling, broken pages, replays, and the service limits the local runner does not enforce."""

from __future__ import annotations

import json

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.local.fidelity.durable_stats import checkpoint_stats, checkpointed_text
from docflow.readers.textlayer import TextLayerReader
from docflow.readers.throttling import ThrottlePolicy, ThrottleRetryingReader
from docflow.runtime import build_runtime, use_runtime
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json
from tests.support.fakes import (
    CountingReader,
    CountingReporter,
    FakeBrokenPageReader,
    FakeThrottlingReader,
)

FAST_RETRY = ThrottlePolicy(max_attempts=8, base_delay_s=0.001, max_delay_s=0.01)


def run(stack: Stack, key: str, data: bytes):
    doc = stack.upload(key, data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        return runner.run(input=stack.event(doc), execution_timeout=600)


def test_throttling_recovers_without_failing_the_document(stack: Stack) -> None:
    flaky = FakeThrottlingReader(TextLayerReader(), every=3)
    use_runtime(build_runtime().with_(reader=ThrottleRetryingReader(flaky, FAST_RETRY)))

    result = run(stack, "in/many.pdf", pdfs.text_pdf(*[pdfs.INVOICE] * 12))

    out = result_json(result)
    assert out["status"] == "finalized"
    assert out["pages"] == 12
    assert flaky.throttled >= 4  # a third of the calls were throttled and absorbed


def test_a_page_that_keeps_failing_fails_the_document_after_retries(stack: Stack) -> None:
    broken = FakeBrokenPageReader(TextLayerReader(), broken_page=3)
    use_runtime(build_runtime().with_(reader=broken))

    result = run(stack, "in/broken.pdf", pdfs.text_pdf(*[pdfs.INVOICE] * 4))

    out = result_json(result)
    assert (out["status"], out["reason"]) == ("failed", "page-read-failed")
    assert "engine crashed on page 3" in out["message"]
    assert broken.attempts[3] == 4  # the batch step's retry budget, then no more
    assert broken.attempts[1] == 1  # other batches ran once and were not dropped


def test_replay_runs_no_step_body_twice(stack: Stack) -> None:
    """A review suspends the execution; the resumed invocation replays from checkpoints."""
    base = build_runtime()
    reader, reporter = CountingReader(base.reader), CountingReporter(base.reporter)
    use_runtime(base.with_(reader=reader, reporter=reporter))
    doc = stack.upload("in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD, "more terms"))

    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        for stage in (0, 1):
            cb = runner.wait_for_callback(arn, name=f"review-{stage} create callback id")
            runner.send_callback_success(cb, json.dumps({"approved": True}).encode())
        result = runner.wait_for_result(arn, timeout=60)
        events = runner.get_execution_history(arn).events

    assert result_json(result)["status"] == "finalized"
    invocations = [e for e in events if e.event_type == "InvocationCompleted"]
    assert len(invocations) >= 3  # started, resumed after each decision
    assert dict(reader.reads) == {1: 1, 2: 1}
    assert all(n == 1 for n in reporter.sent.values()), reporter.sent
    assert sorted(reporter.sent) == sorted(
        [
            "received:10",
            "reading:20",
            "classified:30",
            "pending-review:100",
            "approved:105",
            "pending-review:110",
            "approved:115",
            "finalized:10000",
        ]
    )


def test_two_thousand_pages_fit_the_operation_budget(stack: Stack) -> None:
    marker = "Zyzzogeton"
    data = pdfs.text_pdf(*[f"{pdfs.INVOICE}\n{marker} page {n}" for n in range(2000)])

    result = run(stack, "in/huge.pdf", data)

    assert result_json(result)["pages"] == 2000
    stats = checkpoint_stats(result)
    assert stats["operations"] <= 300, stats
    assert stats["max_step_result_bytes"] <= 64 * 1024, stats
    # Checkpoints carry keys, not page text; the one exception is the enrichment's summary
    # (a title and an abstract of at most 600 characters, masked), which is its product.
    summary = result_json(result)["summary"]
    assert len(summary["abstract"]) <= 600
    text = checkpointed_text(result)
    for quoted in (summary["abstract"], summary["title"]):
        text = text.replace(quoted, "")
    assert marker not in text
