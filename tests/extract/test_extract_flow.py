"""The extract step through the durable testing runner: an invoice finalizes with its fields,
one with an unreadable total waits in the `fields` stage, and a reviewer's corrections (sent in
the callback's decision JSON) end up in the finalized record and the history."""

from __future__ import annotations

import json

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.extract.rules_engine.calibration import thresholds
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json


def read_model() -> ReadModel:
    return ReadModel(load_settings().table_name)


def s3_json(key: str) -> dict:
    body = aws.client("s3").get_object(Bucket=load_settings().artifact_bucket, Key=key)["Body"]
    return json.loads(body.read())


def test_invoice_finalizes_with_its_fields(stack: Stack, shipped_rules: None) -> None:
    doc = stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        result = runner.run(input=stack.event(doc), execution_timeout=120)

    out = result_json(result)
    assert (out["status"], out["docType"]) == ("finalized", "invoice")
    values = {name: f["value"] for name, f in out["fields"].items()}
    assert values == {**pdfs.INVOICE_WITH_FIELDS_VALUES, "lines": "1 rows"}
    # Its one line adds up to the net amount: the table is checked, so not marked unverified.
    lines = out["fields"]["lines"]
    assert lines["rows"] == [
        {
            "description": "Paper, A4 box",
            "quantity": "40",
            "unit_price": "25.00",
            "amount": "1000.00",
        }
    ]
    assert "unverified" not in lines
    assert out["fieldChecks"] == []
    step = result.get_step("extract").result
    assert "raw" not in json.dumps(step)  # the checkpoint carries the summary only
    state = read_model().show(out["documentId"])["state"]
    # net + tax = total holds, so the amounts score 0.97 (0.95 before reconciliation), which
    # the shipped calibration puts above the total's fitted threshold; each field carries
    # where it was read: its page and its box, page-relative.
    total = state["fields"]["total_amount"]
    assert {k: total[k] for k in ("value", "page")} == {"value": "1100.00", "page": 1}
    assert total["confidence"] >= thresholds()["total_amount"]
    x0, y0, x1, y1 = total["box"]
    assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
    final = s3_json(state["resultKey"])
    assert final["summary"]["fields"]["invoice_number"]["value"] == "INV-20931"
    detail = s3_json(final["artifacts"] + "/fields.json")
    assert detail["engine"] == "rules" and detail["fields"]["currency"]["raw"]


def test_unreadable_total_is_corrected_by_a_reviewer(stack: Stack, shipped_rules: None) -> None:
    doc = stack.upload("in/smudged.pdf", pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback_id = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        waiting = read_model().pending().items
        assert [w["stageName"] for w in waiting] == ["fields"]
        codes = [(c["field"], c["code"]) for c in waiting[0]["fieldChecks"]]
        assert ("total_amount", "unreadable") in codes
        decision = {
            "approved": True,
            "reviewer": "accounts@example.com",
            "comment": "total read from the paper copy",
            "decidedAt": "2026-11-30T09:00:00+00:00",
            "corrections": {"total_amount": "1,100.00"},
        }
        runner.send_callback_success(callback_id, json.dumps(decision).encode())
        result = runner.wait_for_result(arn, timeout=60)

    out = result_json(result)
    assert out["status"] == "finalized"
    corrected = {
        "value": "1100.00",
        "confidence": 1.0,
        "page": 0,
        "original": None,
        "correctedBy": "accounts@example.com",
        "correctedAt": "2026-11-30T09:00:00+00:00",
    }
    shown = read_model().show(out["documentId"])
    assert shown["state"]["fields"]["total_amount"] == corrected
    final = s3_json(shown["state"]["resultKey"])
    assert final["summary"]["fields"]["total_amount"] == corrected
    assert final["summary"]["fields"]["net_amount"]["value"] == "1000.00"  # untouched
    decided = [h for h in shown["history"] if h["status"] == "approved"]
    assert decided[0]["payload"]["corrections"] == {
        "total_amount": {"value": "1100.00", "original": None}
    }


def test_a_bad_correction_decides_nothing_but_a_rejection(
    stack: Stack, shipped_rules: None
) -> None:
    doc = stack.upload("in/smudged.pdf", pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback_id = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        decision = {
            "approved": True,
            "reviewer": "x@example.com",
            "corrections": {"currency": "XXQ"},
        }
        runner.send_callback_success(callback_id, json.dumps(decision).encode())
        result = runner.wait_for_result(arn, timeout=60)

    out = result_json(result)
    assert (out["status"], out["reason"]) == ("archived", "invalid-decision")
    assert (
        out["fields"]["currency"]["value"] == "USD" and "original" not in out["fields"]["currency"]
    )


def test_an_engine_that_keeps_failing_sends_the_fields_to_a_person(
    stack: Stack, shipped_rules: None
) -> None:
    from docflow.pipeline.extract import EXTRACT
    from docflow.runtime import runtime, use_runtime
    from tests.support.fakes import FakeBrokenFieldEngine

    engine = FakeBrokenFieldEngine()
    use_runtime(runtime().with_(field_engine=engine))
    doc = stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback_id = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        waiting = read_model().pending().items
        runner.send_callback_success(callback_id, json.dumps({"approved": False}).encode())
        result = runner.wait_for_result(arn, timeout=60)
    assert engine.calls == EXTRACT.attempts
    assert waiting[0]["stageName"] == "fields"
    assert waiting[0]["fieldChecks"][0]["code"] == "engine-failed"
    assert result_json(result)["status"] == "archived"
