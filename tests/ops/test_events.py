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
from docflow.local.tools.sandbox import moto_sandbox
from docflow.readmodel import transitions as t
from docflow.readmodel.event_shapes import event_detail
from docflow.readmodel.schema import make_report
from docflow.reporting import recorder_for
from docflow.settings import load_settings
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
    # The sender retries a report the recorder already stored: the same event id again,
    # which consumers drop.
    assert recorder.record(reports[-1]).result == "duplicate"
    again = drain(sandbox.names)
    assert [e["detail"]["eventId"] for e in again] == [final["eventId"]]
    # A duplicate of an earlier position (no longer the document's state) says nothing.
    assert recorder.record(reports[3]).result == "duplicate"
    assert drain(sandbox.names) == []


def test_detail_of_a_failure_names_the_reason() -> None:
    doc = DocumentRef("b", "k/a.pdf", "v1", "0A")
    report = make_report(doc, t.FAILED, "failed", payload={"reason": "corrupt", "message": "x"})
    detail = event_detail(report, {"key": "k/a.pdf"})
    assert detail["reason"] == "corrupt" and detail["status"] == "failed"
    assert detail["resultKey"] is None and detail["key"] == "k/a.pdf"
