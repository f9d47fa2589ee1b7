"""Domain events: one per terminal or review transition, published by the recorder, de-dup ids."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from docflow.readmodel import transitions as t
from docflow.readmodel.event_shapes import event_detail
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.schema import make_report
from docflow.reporting import recorder_for
from docflow.settings import load_settings
from tests.kit.sandbox import moto_sandbox
from tests.support.aws import TEST_ENV, Stack


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Stack]:
    with moto_sandbox(LocalNames(prefix="ev"), TEST_ENV) as names:
        yield Stack(names)


def drain(names: LocalNames) -> list[dict[str, Any]]:
    """What the template's example rule delivered to its queue (and empties it)."""
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=names("DomainEventsQueue"))["QueueUrl"]
    out: list[dict[str, Any]] = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return out
        for m in got:
            out.append(json.loads(m["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])


def test_each_transition_is_announced_once_with_its_report_id(sandbox: Stack) -> None:
    drain(sandbox.names)
    doc = DocumentRef("b", f"k/{uuid.uuid4()}.pdf", "v1", "0A")
    reports = [
        make_report(doc, t.RECEIVED, "intake", payload={"key": doc.key}),
        make_report(doc, t.READING, "read", payload={"pages": 2}),
        make_report(doc, t.CLASSIFIED, "classify", payload={"docType": "contract", "pages": 2}),
        make_report(
            doc,
            t.PENDING_REVIEW,
            "review-0",
            stage_index=0,
            payload={"stageIndex": 0, "stageName": "legal", "reviewers": ["a@example.com"]},
        ),
        make_report(doc, t.APPROVED, "review-0", stage_index=0, payload={"stageName": "legal"}),
        make_report(
            doc,
            t.FINALIZED,
            "finalize",
            payload={"resultKey": "docs/x/result.json", "cost": {"usd": 0.01}},
        ),
    ]
    recorder = recorder_for(load_settings())
    for report in reports:
        assert recorder.record(report).result == "accepted"
    # A report for an older position changes nothing and announces nothing.
    assert recorder.record(make_report(doc, t.FAILED, "failed")).result == "stale"
    events = drain(sandbox.names)
    assert [e["detail-type"] for e in events] == [
        "review-requested",
        "review-decided",
        "finalized",
    ]
    assert {e["source"] for e in events} == {"docflow"}
    final = events[-1]["detail"]
    assert final["eventId"] == reports[-1].event_id
    assert final["summary"] == {"docType": "contract", "pages": 2}
    assert final["resultKey"] == "docs/x/result.json" and final["cost"] == {"usd": 0.01}
    assert "a@example.com" not in json.dumps(events)  # no reviewer addresses
    # A second report of the announced transition, and one of an earlier position (no longer
    # the document's state), say nothing.
    assert recorder.record(reports[-1]).result == "duplicate"
    assert recorder.record(reports[3]).result == "duplicate"
    assert drain(sandbox.names) == []


def test_a_decision_reported_by_the_callback_api_and_the_orchestrator_is_announced_once(
    sandbox: Stack,
) -> None:
    """#44.6: the callback API reports a decision at once and the orchestrator reports it
    again when it resumes, with one event id: the dashboard counted `review-decided` twice."""
    drain(sandbox.names)
    doc = DocumentRef("b", f"k/{uuid.uuid4()}.pdf", "v1", "0A")
    waiting = make_report(doc, t.PENDING_REVIEW, "review-0", stage_index=0, payload={})
    decided = {"stageIndex": 0, "stageName": "legal", "decidedAt": "2026-12-04T17:00:00+00:00"}
    by_link = make_report(
        doc, t.APPROVED, "review-0", stage_index=0, payload=decided, cause="callback-api"
    )
    by_run = make_report(doc, t.APPROVED, "review-0", stage_index=0, payload=decided)
    assert by_link.event_id == by_run.event_id
    recorder = recorder_for(load_settings())
    assert recorder.record(waiting).result == "accepted"
    assert recorder.record(by_link).result == "accepted"
    assert recorder.record(by_run).result == "duplicate"
    events = drain(sandbox.names)
    assert [e["detail-type"] for e in events] == ["review-requested", "review-decided"]
    # The mark that spares the copy is the recorder's: `docflow show` does not print it.
    shown = ReadModel(load_settings().table_name).show(doc.document_id)["state"]
    assert shown["status"] == t.APPROVED and "announcedEventId" not in shown


def test_a_transition_stored_but_not_announced_is_announced_when_its_report_comes_again(
    sandbox: Stack,
) -> None:
    drain(sandbox.names)
    doc = DocumentRef("b", f"k/{uuid.uuid4()}.pdf", "v1", "0A")
    failed = make_report(doc, t.FAILED, "failed", payload={"reason": "corrupt"})
    recorder = recorder_for(load_settings())
    publisher = recorder.publisher
    assert publisher is not None

    class DiesWhilePublishing:
        def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
            raise RuntimeError("the recorder died before PutEvents answered")

    recorder.publisher = DiesWhilePublishing()
    with pytest.raises(RuntimeError):
        recorder.record(failed)
    recorder.publisher = publisher  # the sender retries the report
    assert recorder.record(failed).result == "duplicate"
    assert recorder.record(failed).result == "duplicate"
    events = drain(sandbox.names)
    assert [(e["detail-type"], e["detail"]["eventId"]) for e in events] == [
        ("failed", failed.event_id)
    ]


def test_detail_of_a_failure_names_the_reason() -> None:
    doc = DocumentRef("b", "k/a.pdf", "v1", "0A")
    report = make_report(doc, t.FAILED, "failed", payload={"reason": "corrupt", "message": "x"})
    detail = event_detail(report, {"key": "k/a.pdf"})
    assert detail["reason"] == "corrupt" and detail["status"] == "failed"
    assert detail["resultKey"] is None and detail["key"] == "k/a.pdf"
