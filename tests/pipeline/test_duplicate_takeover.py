"""The take-over of a key whose holder will never finalize, through the real handler on the
durable testing runner (moto, the shipped rules): another document's claim whose run failed or
was archived without giving it back is taken over, and the invoice finalizes; one whose run is
still waiting at a review stage is not, and the invoice waits at `duplicate`."""

from __future__ import annotations

import json

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.ids import DocumentRef
from docflow.readmodel import transitions as t
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.schema import make_report
from docflow.reporting import recorder_for
from docflow.settings import load_settings
from docflow.suppliers.duplicate_keys import Facts
from docflow.suppliers.duplicates import Claimant, DuplicateStore, claim_pk
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json

NUMBER_KEY = claim_pk("number|name:acme supplies|INV20931")
FACTS = Facts("INV-20931", "2026-03-04", "1100.00", "USD", "ACME SUPPLIES LTD")
REJECT = {"approved": False, "reviewer": "accounts@example.com", "rejectReason": "duplicate"}


def holder_in(stack: Stack, status: str) -> DocumentRef:
    """Another document whose run claimed the invoice's number and is now at `status` in the
    read model (as its own reports left it), still holding the claim."""
    doc = stack.upload("in/earlier.pdf", b"%PDF-1.4 earlier")
    who = Claimant(doc.document_id, doc.version, doc.run_id, doc.run_order, doc.key)
    store = DuplicateStore(load_settings().duplicate_table)
    assert store.claim(NUMBER_KEY, who, FACTS, "number", "2026-03-04T09:00:00Z").held
    recorder = recorder_for(load_settings())
    assert recorder.record(make_report(doc, t.RECEIVED, "intake")).result == "accepted"
    index = 0 if status == t.PENDING_REVIEW else None
    stage = "review-0" if index is not None else status
    payload = {"stageIndex": 0, "stageName": "fields"} if index is not None else {}
    last = make_report(doc, status, stage, stage_index=index, payload=payload)
    assert recorder.record(last).result == "accepted"
    return doc


@pytest.mark.parametrize("status", [t.FAILED, t.ARCHIVED])
def test_a_key_whose_holder_failed_or_was_archived_is_taken_over(
    stack: Stack, shipped_rules: None, status: str
) -> None:
    ended = holder_in(stack, status)
    doc = stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        out = result_json(runner.run(input=stack.event(doc), execution_timeout=120))
    assert out["status"] == "finalized" and "duplicateOf" not in out
    held = DuplicateStore(load_settings().duplicate_table).get(NUMBER_KEY) or {}
    assert (held["documentId"], held["runId"]) == (doc.document_id, doc.run_id)
    assert held["documentId"] != ended.document_id


def test_a_key_whose_holder_is_still_under_review_is_not_taken_over(
    stack: Stack, shipped_rules: None
) -> None:
    waiting = holder_in(stack, t.PENDING_REVIEW)
    doc = stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        mine = [
            i
            for i in ReadModel(load_settings().table_name).pending().items
            if i["documentId"] == doc.document_id
        ]
        runner.send_callback_success(callback, json.dumps(REJECT).encode())
        assert result_json(runner.wait_for_result(arn, timeout=60))["status"] == "archived"
    (item,) = mine
    assert item["stageName"] == "duplicate"
    (earlier,) = item["duplicateOf"]
    assert (earlier["documentId"], earlier["status"]) == (waiting.document_id, t.PENDING_REVIEW)
    held = DuplicateStore(load_settings().duplicate_table).get(NUMBER_KEY) or {}
    assert held["runId"] == waiting.run_id
