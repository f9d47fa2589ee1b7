"""The dashboard's custom widgets: read-only lists from the read model's indexes, as HTML."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from types import SimpleNamespace

import pytest

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from docflow.readmodel import transitions as t
from docflow.readmodel.schema import make_report
from docflow.reporting import recorder_for
from docflow.settings import load_settings
from status_recorder.widgets import handler
from tests.kit.sandbox import moto_sandbox
from tests.support.aws import TEST_ENV

ARN = "arn:aws:lambda:us-east-1:123456789012:function:docflow-widgets"
CONTEXT = SimpleNamespace(invoked_function_arn=ARN)


@pytest.fixture(scope="module")
def documents() -> Iterator[dict[str, DocumentRef]]:
    with moto_sandbox(LocalNames(prefix="wd"), TEST_ENV) as names:
        recorder = recorder_for(load_settings())
        docs = {}
        for n in range(2):
            doc = DocumentRef("b", f"in/contract-{n}.pdf", "v1", "0A")
            for report in (
                make_report(doc, t.RECEIVED, "intake", payload={"key": doc.key}),
                make_report(doc, t.CLASSIFIED, "classify", payload={"docType": "contract"}),
                make_report(
                    doc,
                    t.PENDING_REVIEW,
                    "review-0",
                    stage_index=0,
                    at=f"2026-11-2{n}T10:00:00.000+00:00",
                    payload={
                        "stageName": "legal",
                        "reviewers": ["legal@example.com"],
                        "reviewDeadline": "2026-11-25T10:00:00+00:00",
                    },
                ),
            ):
                recorder.record(report)
            docs[f"pending-{n}"] = doc
        bad = DocumentRef("b", "in/<img src=x onerror=alert(1)>.pdf", "v1", "0A")
        recorder.record(make_report(bad, t.RECEIVED, "intake", payload={"key": bad.key}))
        recorder.record(
            make_report(
                bad, t.FAILED, "failed", payload={"reason": "corrupt", "message": "<b>no</b>"}
            )
        )
        docs["failed"] = bad
        _ = names
        yield docs


def call(**params: object) -> str:
    return handler({**params, "widgetContext": {"params": params}}, CONTEXT)


def test_pending_lists_oldest_first_with_stage_reviewers_and_deadline(documents) -> None:
    html = call(list="pending")
    first, second = documents["pending-0"], documents["pending-1"]
    assert html.index(first.document_id) < html.index(second.document_id)
    assert "legal@example.com" in html and "contract" in html and "overdue" in html
    assert "<script" not in html and "http" not in html  # no links, nothing executable


def test_failures_are_escaped(documents) -> None:
    html = call(list="failed")
    assert "corrupt" in html and documents["failed"].document_id in html
    assert "<img" not in html and "&lt;img" in html and "<b>no" not in html


def test_pages_through_cwdb_action_calls_to_itself(documents) -> None:
    html = call(list="pending", limit=1)
    assert documents["pending-1"].document_id not in html
    (endpoint, body), *_ = re.findall(
        r'<cwdb-action action="call" endpoint="([^"]+)" display="widget">(.*?)</cwdb-action>',
        html,
    )
    assert unescape(endpoint) == ARN
    params = json.loads(unescape(body))
    assert params["list"] == "pending" and params["limit"] == 1
    following = call(**params)
    assert documents["pending-1"].document_id in following


def test_describe_and_bad_parameters(documents) -> None:
    assert "## docflow lists" in handler({"describe": True}, CONTEXT)
    assert "list must be one of" in call(list="everything")
    assert "limit must be" in call(list="failed", limit=1000)
    assert "not one this command handed out" in call(list="failed", nextToken="%%%")
    assert "is not an age" in call(list="stuck", olderThan="soon")


def test_widgets_only_query(documents) -> None:
    seen: list[str] = []
    client = aws.client("dynamodb")

    def note(model: object, **_: object) -> None:
        seen.append(str(getattr(model, "name", model)))

    client.meta.events.register("before-call.dynamodb", note)
    try:
        for kind in ("pending", "stuck", "failed"):
            call(list=kind, olderThan="1s")
    finally:
        client.meta.events.unregister("before-call.dynamodb", note)
    assert seen and set(seen) == {"Query"}


def test_a_stuck_row_says_which_operation_since_when_and_why_escaped() -> None:
    from datetime import UTC, datetime

    from docflow.ops.widgets import rows_for

    now = datetime(2026, 12, 1, 13, 0, tzinfo=UTC)
    item = {
        "documentId": "d-1",
        "key": "in/a.pdf",
        "status": "reading",
        "updatedAt": "2026-12-01T12:00:00+00:00",
    }

    def explain(row: dict) -> dict:
        assert row is item
        return {
            "operation": "read pages > batch-3",
            "since": "2026-12-01T12:01:00+00:00",
            "why": "step <b> ran 59 min",
        }

    headers, (row,) = rows_for("stuck", [item], now, explain=explain)
    assert headers[-3:] == ["On", "Since", "Why stuck"]
    assert row[-3] == "read pages &gt; batch-3" and "59m ago" in row[-2]
    assert row[-1] == "step &lt;b&gt; ran 59 min"
    assert rows_for("stuck", [item], now)[0][-1] != "Why stuck"  # no explainer, no columns


def test_a_document_at_bank_details_says_the_checks_verdict() -> None:
    from datetime import UTC, datetime

    from docflow.ops.widgets import rows_for, verdict_shares

    item = {
        "documentId": "d-1",
        "key": "in/forged.pdf",
        "stageName": "bank-details",
        "bank": {"verdict": "unreadable"},
    }
    _headers, (row,) = rows_for("pending", [item], datetime.now(UTC))  # type: ignore[list-item]
    assert row[2] == "bank-details (unreadable)"
    assert verdict_shares({"registered": 3, "unregistered": 1, "no-payee": 0}) == {
        "registered": 75.0,
        "unregistered": 25.0,
    }
    assert verdict_shares({}) == {}
