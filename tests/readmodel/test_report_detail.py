"""A report's size never fails its document: what does not fit the read model's item goes to
S3, the item keeps counts, sums and the key, and every reader gets the whole back."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docflow import aws
from docflow.ids import DocumentRef
from docflow.readmodel import transitions as t
from docflow.readmodel.detail import (
    INLINE_BYTES,
    KEPT,
    column_sums,
    fit,
    restore,
)
from docflow.readmodel.recorder import StatusRecorder
from docflow.readmodel.table import STATE_SK, doc_pk, from_ddb, to_ddb
from docflow.settings import load_settings
from docflow.storage import REPORT_DETAIL_KEY
from tests.support.aws import Stack
from tests.support.read_model import model, new_doc, report

KEY = (
    "docs/d-000000000000000000000000/v-0000000000000000/reports/"
    "0000300-classified-0123456789abcdef.json"
)


def rows(n: int) -> list[dict[str, str]]:
    return [
        {
            "description": f"Line item number {i}, a longer text",
            "quantity": "2",
            "amount": f"{i}.50",
        }
        for i in range(n)
    ]


def big_payload(lines: int = 200, checks: int = 100) -> dict[str, Any]:
    """What an invoice's `classified` report carries: its fields with a table, the checks
    that fired, its stages, its e-invoice object and its enrichment."""
    return {
        "docType": "invoice",
        "pages": 5,
        "fields": {
            "invoice_number": {"value": "INV-1", "confidence": 0.9, "page": 1, "box": None},
            "po_number": {"value": "PO-4711", "confidence": 0.9, "page": 1, "box": None},
            "lines": {"value": f"{lines} rows", "rows": rows(lines), "confidence": 0.86},
        },
        "fieldChecks": [
            {"field": "*", "code": "einvoice-rule", "rule": f"BR-{i}", "message": "x" * 80}
            for i in range(checks)
        ],
        "stages": [{"name": "fields", "reviewers": ["a@example.com"], "because": "fields"}],
        "summary": {"title": "INVOICE", "abstract": "y" * 600},
    }


def total_of(lines: int) -> str:
    return f"{sum(i + 0.5 for i in range(lines)):.2f}"


def test_a_payload_that_fits_is_kept_byte_for_byte() -> None:
    small = {"docType": "invoice", "fields": {"n": {"value": "1", "rows": rows(3)}}}
    fitted = fit(small, KEY)
    assert fitted.whole is None and json.dumps(fitted.payload) == json.dumps(small)


def test_an_oversized_payload_keeps_counts_sums_and_the_key() -> None:
    payload = big_payload()
    fitted = fit(payload, KEY)
    assert len(json.dumps(fitted.payload)) <= INLINE_BYTES < len(json.dumps(payload))
    lines = fitted.payload["fields"]["lines"]
    assert "rows" not in lines and lines["rowCount"] == 200
    assert lines["sums"] == {"quantity": "400", "amount": total_of(200)}
    # Scalar fields stay as read: the lists, the dashboard and the order match read them.
    assert fitted.payload["fields"]["po_number"]["value"] == "PO-4711"
    assert fitted.payload["detail"]["fields"] == {"key": KEY, "count": 3}
    assert fitted.whole == payload


def test_a_column_sum_keeps_its_cells_precision_and_a_text_column_has_none() -> None:
    cells = [
        {"hours": "12", "rate": "7.5", "amount": "90.00", "date": "2026-01-02"},
        {"hours": "36", "rate": "7.25", "amount": "261.00", "date": "2026-01-03"},
    ]
    assert column_sums(cells) == {"hours": "48", "rate": "14.75", "amount": "351.00"}


_TEXT = st.text(st.characters(codec="utf-8"), max_size=300)
_ROW = st.dictionaries(st.sampled_from(["description", "quantity", "amount"]), _TEXT, max_size=3)
_FIELD = st.fixed_dictionaries(
    {"value": _TEXT, "confidence": st.floats(0, 1)},
    optional={"rows": st.lists(_ROW, max_size=400), "original": st.lists(_ROW, max_size=50)},
)
_PAYLOADS = st.fixed_dictionaries(
    {"docType": st.sampled_from(["invoice", "receipt"])},
    optional={
        "fields": st.dictionaries(st.text(min_size=1, max_size=20), _FIELD, max_size=12),
        "corrections": st.dictionaries(st.text(min_size=1, max_size=20), _FIELD, max_size=3),
        "fieldChecks": st.lists(st.dictionaries(st.just("message"), _TEXT), max_size=300),
        "stages": st.lists(st.dictionaries(st.just("because"), _TEXT), max_size=30),
        "comment": _TEXT,
        "message": st.text(max_size=20_000),
        "summary": st.fixed_dictionaries({"title": _TEXT, "abstract": st.text(max_size=9000)}),
        "stageName": st.text(max_size=64),
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=_PAYLOADS)
def test_any_payload_fits_the_item_and_reads_back_whole(payload: dict[str, Any]) -> None:
    fitted = fit(payload, KEY)
    assert len(json.dumps(fitted.payload)) <= INLINE_BYTES
    for name in KEPT & set(payload):  # what the lifecycle and the indexes read, untouched
        assert fitted.payload[name] == payload[name]
    whole = {KEY: fitted.whole}
    assert restore(fitted.payload, whole.get) == payload


def _stored_state(doc: DocumentRef) -> dict[str, Any]:
    item = aws.client("dynamodb").get_item(
        TableName=load_settings().table_name,
        Key=to_ddb({"pk": doc_pk(doc.document_id), "sk": STATE_SK}),
    )["Item"]
    return from_ddb(item)


class Events:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def publish(self, detail_type: str, detail: Any) -> None:
        self.sent.append((detail_type, dict(detail)))


def test_a_200_line_invoice_is_recorded_its_rows_in_s3_and_read_back_whole(
    shared: Stack,
) -> None:
    events = Events()
    recorder = StatusRecorder(load_settings().table_name, publisher=events)
    doc = new_doc()
    payload = big_payload()
    for sent in (
        report(doc, t.RECEIVED, n=1),
        report(doc, t.READING, n=2, pages=5),
        report(doc, t.CLASSIFIED, n=3, **payload),
    ):
        assert recorder.record(sent).result == "accepted"

    stored = _stored_state(doc)
    assert len(json.dumps(stored)) < 2 * INLINE_BYTES  # the item: counts, sums, a key
    assert stored["fields"]["lines"]["rowCount"] == 200
    key = stored["detail"]["fields"]["key"]
    assert REPORT_DETAIL_KEY.match(key) and key.startswith(f"docs/{doc.document_id}/")
    body = aws.client("s3").get_object(Bucket=load_settings().artifact_bucket, Key=key)
    assert json.loads(body["Body"].read())["payload"]["fields"] == payload["fields"]

    shown = model().show(doc.document_id)
    state = shown["state"]
    assert state["fields"]["lines"]["rows"] == payload["fields"]["lines"]["rows"]
    assert state["fieldChecks"] == payload["fieldChecks"] and "detail" not in state
    assert shown["history"][-1]["payload"]["fieldChecks"] == payload["fieldChecks"]

    # A finalize that carries the fields whole (a reviewer cut the table to two rows) drops
    # the earlier key for them; the checks it does not carry still come from theirs.
    final = {
        "resultKey": "docs/x/final.json",
        "fields": {"lines": {"value": "2 rows", "rows": rows(2)}},
    }
    assert recorder.record(report(doc, t.FINALIZED, n=4, **final)).result == "accepted"
    stored = _stored_state(doc)
    assert "fields" not in stored["detail"] and "fieldChecks" in stored["detail"]
    state = model().show(doc.document_id)["state"]
    assert state["fields"] == final["fields"] and state["fieldChecks"] == payload["fieldChecks"]
    finalized = [d for kind, d in events.sent if kind == "finalized"]
    assert finalized and finalized[0]["fields"] == final["fields"]


def test_a_finalized_event_carries_the_whole_fields_it_moved(shared: Stack) -> None:
    events = Events()
    recorder = StatusRecorder(load_settings().table_name, publisher=events)
    doc = new_doc()
    fields = big_payload()["fields"]
    for sent in (
        report(doc, t.RECEIVED, n=1),
        report(doc, t.CLASSIFIED, n=2, docType="invoice"),
        report(doc, t.FINALIZED, n=3, resultKey="docs/x/final.json", fields=fields),
    ):
        recorder.record(sent)
    (detail,) = [d for kind, d in events.sent if kind == "finalized"]
    assert detail["fields"] == fields and "detail" not in detail
    assert "rows" not in _stored_state(doc)["fields"]["lines"]
