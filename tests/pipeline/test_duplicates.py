"""Duplicate invoices through the real handler on the durable testing runner (moto, the shipped
rules with their `[duplicates]` table): a second copy of an invoice as another file waits at
`duplicate` with the first linked; the same file again is nobody's duplicate; two copies racing
through two executions: exactly one passes; an archived copy gives its keys back; a reviewer's
corrected number claims again. A document's own versions: test_duplicate_versions.py."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any, cast

import pytest
from aws_durable_execution_sdk_python import StepContext
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from botocore.exceptions import ClientError

from docflow import aws
from docflow.cli import main
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from docflow.suppliers.duplicates import DuplicateStore, claim_pk
from docflow.trace.page import page
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json

# The same invoice, other bytes: a re-rendered copy with a line the fields do not read.
COPY = pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS + "\nCopy sent by e-mail")
REJECT = {"approved": False, "reviewer": "accounts@example.com", "rejectReason": "duplicate"}
# ACME's key of invoice INV-20931 (the vendor name folded, no legal form).
NUMBER_KEY = claim_pk("number|name:acme supplies|INV20931")


def read_model() -> ReadModel:
    return ReadModel(load_settings().table_name)


def claims() -> list[dict[str, Any]]:
    table = load_settings().duplicate_table
    items = aws.client("dynamodb").scan(TableName=table, ConsistentRead=True)["Items"]
    return [{k: next(iter(v.values())) for k, v in item.items()} for item in items]


def run(stack: Stack, data: bytes, key: str) -> dict[str, Any]:
    doc = stack.upload(key, data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        return result_json(runner.run(input=stack.event(doc), execution_timeout=120))


def stage_names(out: dict[str, Any]) -> list[str]:
    state: dict[str, Any] = dict(read_model().show(out["documentId"])["state"] or {})
    return [s["name"] for s in state["stages"]]


def test_a_second_copy_waits_at_duplicate_with_the_first_linked(
    stack: Stack, shipped_rules: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run(stack, pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS), "in/scan.pdf")
    assert first["status"] == "finalized" and stage_names(first) == []
    doc = stack.upload("mail/invoice-20931.pdf", COPY)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        (waiting,) = read_model().pending().items
        assert waiting["stageName"] == "duplicate"
        (earlier,) = waiting["duplicateOf"]
        assert earlier["documentId"] == first["documentId"]
        assert (earlier["status"], earlier["number"]) == ("finalized", "INV-20931")
        assert (earlier["date"], earlier["total"], earlier["key"]) == (
            "2026-03-04",
            "1100.00",
            "in/scan.pdf",
        )
        assert sorted(earlier["by"]) == ["amount", "bill", "number"]
        approve = {"approved": True, "reviewer": "accounts@example.com", "comment": "a new order"}
        runner.send_callback_success(callback, json.dumps(approve).encode())
        second = result_json(runner.wait_for_result(arn, timeout=60))
    # A person said it is not a duplicate: it finalizes, and the keys stay with the first.
    assert second["status"] == "finalized"
    assert second["duplicateOf"][0]["documentId"] == first["documentId"]
    held = DuplicateStore(load_settings().duplicate_table).get(NUMBER_KEY)
    assert held is not None and held["documentId"] == first["documentId"]
    history = read_model().show(second["documentId"])["history"]
    assert [h["payload"]["stageName"] for h in history if h["status"] == "approved"] == [
        "duplicate"
    ]
    # The dashboard's document page names it too.
    html = page(read_model(), second["documentId"])
    assert f"{first['documentId']} (finalized, INV-20931, 2026-03-04, 1100.00)" in html
    # `docflow show` names the earlier document (a state folder with no stack: the tables).
    capsys.readouterr()
    assert main(["--state", str(tmp_path), "show", second["documentId"]]) == 0
    shown = capsys.readouterr().out
    assert (
        f"duplicateOf {first['documentId']} (finalized, number INV-20931, date 2026-03-04, "
        "total 1100.00 USD): the same supplier and number; supplier, date and total; "
        "number and total"
    ) in shown


def test_the_same_file_delivered_again_adds_no_stage(stack: Stack, shipped_rules: None) -> None:
    doc = stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    outs = []
    for _ in range(2):  # the same run again (a redelivery the runner did not de-duplicate)
        with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
            outs.append(result_json(runner.run(input=stack.event(doc), execution_timeout=120)))
    assert [o["status"] for o in outs] == ["finalized", "finalized"]
    assert all("duplicateOf" not in o for o in outs) and stage_names(outs[1]) == []
    assert {c["runId"] for c in claims()} == {doc.run_id}


def test_two_copies_racing_through_two_executions_exactly_one_passes(
    stack: Stack, shipped_rules: None
) -> None:
    docs = [
        stack.upload("in/a.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS)),
        stack.upload("in/b.pdf", COPY),
    ]
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arns = [runner.run_async(input=stack.event(d), execution_timeout=120) for d in docs]
        waiting = wait_for_one_pending()
        ids = [d.document_id for d in docs]
        waits = ids.index(waiting["documentId"])
        passed = result_json(runner.wait_for_result(arns[1 - waits], timeout=60))
        assert passed["status"] == "finalized" and "duplicateOf" not in passed
        assert waiting["stageName"] == "duplicate"
        assert waiting["duplicateOf"][0]["documentId"] == passed["documentId"]
        callback = runner.wait_for_callback(
            arns[waits], name="review-0 create callback id", timeout=60
        )
        runner.send_callback_success(callback, json.dumps(REJECT).encode())
        ended = result_json(runner.wait_for_result(arns[waits], timeout=60))
    assert ended["status"] == "archived"
    assert {c["documentId"] for c in claims()} == {passed["documentId"]}


def wait_for_one_pending() -> dict[str, Any]:
    """The read model's one pending item, once a run reports it (polls; no timing asserted)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        items = read_model().pending().items
        if items:
            (item,) = items
            return dict(item)
        time.sleep(0.2)
    raise AssertionError("no run waited at a stage")


def test_an_archived_copy_gives_its_keys_back_so_a_resubmission_passes(
    stack: Stack, shipped_rules: None
) -> None:
    # The smudged copy claims its number, waits at `fields`, and is rejected.
    doc = stack.upload("in/smudged.pdf", pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        assert [c["documentId"] for c in claims()] == [doc.document_id]
        reject = {"approved": False, "reviewer": "a@example.com", "rejectReason": "illegible"}
        runner.send_callback_success(callback, json.dumps(reject).encode())
        archived = runner.wait_for_result(arn, timeout=60)
    assert result_json(archived)["status"] == "archived"
    assert archived.get_step("release duplicate keys").result is not None
    assert claims() == []
    # The supplier sends a clean copy: no longer anyone's duplicate.
    again = run(stack, pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS), "mail/resent.pdf")
    assert again["status"] == "finalized" and "duplicateOf" not in again


def test_a_corrected_number_that_makes_a_duplicate_waits_at_duplicate(
    stack: Stack, shipped_rules: None
) -> None:
    first = run(stack, pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS), "in/first.pdf")
    # Read as another number on another day, its total smudged: only `fields` at first.
    misread = pdfs.INVOICE_UNREADABLE_TOTAL.replace("INV-20931", "INV-20981").replace(
        "Invoice date: 2026-03-04", "Invoice date: 2026-03-07"
    )
    doc = stack.upload("in/misread.pdf", pdfs.text_pdf(misread))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        assert [i["stageName"] for i in read_model().pending().items] == ["fields"]
        corrected = {
            "approved": True,
            "reviewer": "accounts@example.com",
            "corrections": {"invoice_number": "INV-20931", "total_amount": "1,100.00"},
        }
        runner.send_callback_success(callback, json.dumps(corrected).encode())
        callback = runner.wait_for_callback(arn, name="review-1 create callback id", timeout=60)
        (waiting,) = read_model().pending().items
        assert waiting["stageName"] == "duplicate"
        assert waiting["duplicateOf"][0]["documentId"] == first["documentId"]
        runner.send_callback_success(callback, json.dumps(REJECT).encode())
        out = result_json(runner.wait_for_result(arn, timeout=60))
    assert out["status"] == "archived"
    # Its keys, the misread number's and the corrected ones it held, all went back.
    assert {c["documentId"] for c in claims()} == {first["documentId"]}


class LastAttempt:
    """The step's context on its `attempt`th try (a logger that keeps nothing)."""

    def __init__(self, attempt: int) -> None:
        self.attempt = attempt
        self.logger = logging.getLogger("test")


def test_a_claims_table_out_of_reach_sends_the_invoice_to_a_person(
    stack: Stack, shipped_rules: None
) -> None:
    from docflow.document import DocumentSummary
    from docflow.pipeline.duplicates import CLAIMS, UNCHECKED, claim_duplicates

    doc = stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    found = DocumentSummary.from_json(
        {
            "docType": "invoice",
            "fields": {
                "invoice_number": {"value": "INV-20931"},
                "vendor_name": {"value": "ACME SUPPLIES LTD"},
            },
        }
    )
    aws.client("dynamodb").delete_table(TableName=load_settings().duplicate_table)
    with pytest.raises(ClientError):
        claim_duplicates(doc, found)(cast("StepContext", LastAttempt(1)))  # retried first
    out = claim_duplicates(doc, found)(cast("StepContext", LastAttempt(CLAIMS.attempts)))
    assert [s.because for s in out.stages] == [UNCHECKED] and out.earlier == ()
    assert out.keys == (NUMBER_KEY,)  # what an archive would release
