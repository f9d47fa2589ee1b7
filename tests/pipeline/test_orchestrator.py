"""The orchestrator, driven end to end through the durable testing runner on moto."""

from __future__ import annotations

import json

import pytest
from aws_durable_execution_sdk_python.execution import InvocationStatus
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from docflow.storage import result_key
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json


def run(stack: Stack, key: str, data: bytes, timeout: int = 120):
    doc = stack.upload(key, data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        result = runner.run(input=stack.event(doc), execution_timeout=timeout)
    return doc, result


def read_model() -> ReadModel:
    return ReadModel(load_settings().table_name)


def test_invoice_without_review_is_finalized(stack: Stack) -> None:
    doc, result = run(
        stack, "in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE, "Page two of the invoice")
    )

    assert result.status is InvocationStatus.SUCCEEDED
    out = result_json(result)
    assert out["status"] == "finalized"
    assert out["docType"] == "invoice"
    assert out["pages"] == 2
    assert out["engines"] == {"textlayer": 2}
    names = [op.name for op in result.operations]
    assert names[:5] == [
        "record received",
        "supersede older runs",
        "split",
        "record reading",
        "read pages",
    ]
    assert names[-2:] == ["finalize", "record finalized"]
    final = json.loads(
        aws.client("s3")
        .get_object(Bucket=load_settings().artifact_bucket, Key=result_key(doc))["Body"]
        .read()
    )
    assert final["disposition"] == "finalized" and final["summary"]["pages"] == 2
    state = read_model().show(doc.document_id)["state"]
    assert state["status"] == "finalized"
    assert [h["status"] for h in read_model().show(doc.document_id)["history"]] == [
        "received",
        "reading",
        "classified",
        "finalized",
    ]


def test_scanned_pages_are_read_by_tesseract(stack: Stack) -> None:
    doc, result = run(
        stack,
        "in/scan.pdf",
        pdfs.make_pdf(
            [pdfs.INVOICE, ("scan", "QUARTERLY REPORT\nRevenue grew in the north region")]
        ),
    )

    out = result_json(result)
    assert out["engines"] == {"tesseract": 1, "textlayer": 1}
    text = (
        aws.client("s3")
        .get_object(
            Bucket=load_settings().artifact_bucket,
            Key=f"docs/{doc.document_id}/{doc.version_tag}/pages/00002.txt",
        )["Body"]
        .read()
        .decode()
    )
    assert "QUARTERLY REPORT" in text
    assert "Revenue" in text and "north" in text


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"hello, I am not a PDF at all", "not-a-pdf"),
        (b"", "empty-file"),
        (pdfs.encrypted_pdf(), "encrypted"),
        (pdfs.truncated_pdf(), "corrupt"),
        (pdfs.zero_page_pdf(), "zero-pages"),
        (pdfs.huge_page_pdf(), "page-dimensions"),
        (pdfs.unloadable_page_pdf(), "unrenderable-page"),
    ],
    ids=[
        "not-a-pdf",
        "empty",
        "encrypted",
        "truncated",
        "zero-pages",
        "page-dimensions",
        "unloadable-page",
    ],
)
def test_bad_input_fails_with_its_reason(stack: Stack, data: bytes, reason: str) -> None:
    doc, result = run(stack, f"in/{reason}.pdf", data)

    assert result.status is InvocationStatus.SUCCEEDED  # the run ends cleanly; the document fails
    out = result_json(result)
    assert out["status"] == "failed"
    assert out["reason"] == reason
    assert out["message"]
    state = read_model().show(doc.document_id)["state"]
    assert (state["status"], state["reason"]) == ("failed", reason)
    assert result.get_step("split").attempt <= 1  # bad input is not retried


def test_limits_on_pages_and_bytes(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCFLOW_MAX_PAGES", "2")
    load_settings.cache_clear()
    _, result = run(stack, "in/long.pdf", pdfs.text_pdf("a", "b", "c"))
    assert result_json(result)["reason"] == "too-many-pages"

    monkeypatch.setenv("DOCFLOW_MAX_BYTES", "100")
    load_settings.cache_clear()
    from docflow.runtime import use_runtime

    use_runtime(None)
    _, result = run(stack, "in/big.pdf", pdfs.text_pdf("a"))
    assert result_json(result)["reason"] == "too-large"


def test_bad_execution_input_is_refused_cleanly(stack: Stack) -> None:
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        result = runner.run(input=json.dumps({"nothing": "here"}), execution_timeout=30)
    assert result.status is InvocationStatus.SUCCEEDED
    assert result_json(result) == {
        "status": "failed",
        "reason": "bad-input",
        "message": "the execution input needs a bucket and a key",
    }
