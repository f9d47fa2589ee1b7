"""A new version of a document against its earlier versions, through the real handler on the
durable testing runner (moto, the shipped rules): the same bill re-saved under the same key, or
its number at ten times the total, waits at `duplicate` when the earlier version finalized, and
approving it finalizes it with `replaces` (the event, the read model, final.json); a new version
of one that was archived or superseded while waiting is nobody's duplicate; a run whose key a
newer version took while it was on its way is superseded instead of finalizing."""

from __future__ import annotations

import io
import itertools
import json
from dataclasses import replace
from typing import Any

import pypdf
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.ids import DocumentRef
from docflow.readmodel.queries import ReadModel
from docflow.runtime import runtime
from docflow.settings import load_settings
from docflow.storage import result_key
from docflow.suppliers.duplicate_keys import Facts
from docflow.suppliers.duplicates import Claimant, DuplicateStore, claim_pk
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json

BILL = pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS)
# The same number at ten times the amounts (they still add up: no fields review).
TEN_TIMES = (
    pdfs.INVOICE_WITH_FIELDS.replace("40    25.00        1,000.00", "400   25.00        10,000.00")
    .replace("Subtotal: 1,000.00", "Subtotal: 10,000.00")
    .replace("Tax (10%): 100.00", "Tax (10%): 1,000.00")
    .replace("Total due: 1,100.00", "Total due: 11,000.00")
)
APPROVE = {"approved": True, "reviewer": "accounts@example.com", "comment": "corrected copy"}
REJECT = {"approved": False, "reviewer": "accounts@example.com", "rejectReason": "duplicate"}
NUMBER_KEY = claim_pk("number|name:acme supplies|INV20931")


def resaved(data: bytes, producer: str) -> bytes:
    """The same PDF saved again by another program: the same page, other bytes."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data)))
    writer.add_metadata({"/Producer": producer, "/ModDate": "D:20260305120000Z"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


_SEQUENCERS = itertools.count(0x100)


def upload(stack: Stack, key: str, data: bytes) -> DocumentRef:
    """Upload a version; its event's sequencer sorts after every earlier upload's, as S3's do
    for one key (the test stack's own is one per key length)."""
    return replace(stack.upload(key, data), sequencer=f"{next(_SEQUENCERS):08X}")


def read_model() -> ReadModel:
    return ReadModel(load_settings().table_name)


def run(stack: Stack, data: bytes, key: str) -> dict[str, Any]:
    doc = upload(stack, key, data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        return result_json(runner.run(input=stack.event(doc), execution_timeout=120))


def run_deciding(stack: Stack, data: bytes, key: str, decision: dict[str, Any]) -> dict[str, Any]:
    """Run a document that must wait at `duplicate`; decide it; its result."""
    doc = upload(stack, key, data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        (waiting,) = read_model().pending().items
        assert waiting["stageName"] == "duplicate"
        runner.send_callback_success(callback, json.dumps(decision).encode())
        out = result_json(runner.wait_for_result(arn, timeout=60))
    return {**out, "waited": waiting}


def drain_events(stack: Stack) -> list[dict[str, Any]]:
    """What the template's example rule delivered to its queue (and empties it)."""
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=stack.names("DomainEventsQueue"))["QueueUrl"]
    out: list[dict[str, Any]] = []
    while got := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for m in got:
            out.append(json.loads(m["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return out


def test_the_same_bill_resaved_under_its_key_waits_and_approved_replaces_the_first(
    stack: Stack, shipped_rules: None
) -> None:
    first = run(stack, BILL, "in/invoice.pdf")
    assert first["status"] == "finalized"
    drain_events(stack)
    second = run_deciding(stack, resaved(BILL, "Acrobat"), "in/invoice.pdf", APPROVE)
    assert second["documentId"] == first["documentId"] and second["version"] != first["version"]
    (earlier,) = second["waited"]["duplicateOf"]
    assert (earlier["documentId"], earlier["version"]) == (first["documentId"], first["version"])
    assert earlier["status"] == "finalized" and "number" in earlier["by"]
    # Approved: it finalizes, naming the finalized version a payment system reverses.
    first_ref = DocumentRef(stack.bucket, "in/invoice.pdf", first["version"])
    replaces = {
        "documentId": first["documentId"],
        "version": first["version"],
        "resultKey": result_key(first_ref),
    }
    assert second["status"] == "finalized" and second["replaces"] == replaces
    (event,) = [e for e in drain_events(stack) if e["detail-type"] == "finalized"]
    assert event["detail"]["replaces"] == replaces
    state = read_model().show(second["documentId"])["state"] or {}
    assert state["replaces"] == replaces
    assert runtime().store.get_json(state["resultKey"])["replaces"] == replaces
    # The keys now belong to the version that finalized last.
    held = DuplicateStore(load_settings().duplicate_table).get(NUMBER_KEY) or {}
    assert (held["runId"], bool(held.get("finalizedAt"))) == (second["runId"], True)


def test_the_same_number_at_ten_times_the_total_waits_and_rejected_leaves_the_first(
    stack: Stack, shipped_rules: None
) -> None:
    first = run(stack, BILL, "in/invoice.pdf")
    second = run_deciding(stack, pdfs.text_pdf(TEN_TIMES), "in/invoice.pdf", REJECT)
    (earlier,) = second["waited"]["duplicateOf"]
    assert earlier["version"] == first["version"] and earlier["by"] == ["number"]
    assert second["status"] == "archived" and "replaces" not in second
    held = DuplicateStore(load_settings().duplicate_table).get(NUMBER_KEY) or {}
    assert held["runId"] == first["runId"] and held["finalizedAt"]


def test_a_new_version_of_an_archived_one_is_not_its_duplicate(
    stack: Stack, shipped_rules: None
) -> None:
    # The smudged upload waits at `fields` and is rejected: archived, never paid.
    doc = upload(stack, "in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        reject = {"approved": False, "reviewer": "a@example.com", "rejectReason": "illegible"}
        runner.send_callback_success(callback, json.dumps(reject).encode())
        assert result_json(runner.wait_for_result(arn, timeout=60))["status"] == "archived"
    clean = run(stack, BILL, "in/invoice.pdf")
    assert clean["status"] == "finalized" and "duplicateOf" not in clean


def test_a_new_version_of_one_superseded_while_waiting_is_not_its_duplicate(
    stack: Stack, shipped_rules: None
) -> None:
    old = upload(stack, "in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(old), execution_timeout=120)
        runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        new = run(stack, BILL, "in/invoice.pdf")  # uploaded while the old one waits
        ended = result_json(runner.wait_for_result(arn, timeout=60))
    assert (ended["status"], ended["reason"]) == ("archived", "superseded")
    assert new["status"] == "finalized" and "duplicateOf" not in new
    held = DuplicateStore(load_settings().duplicate_table).get(NUMBER_KEY) or {}
    assert held["runId"] == new["runId"]


def test_a_run_whose_key_a_newer_version_took_meanwhile_is_superseded(
    stack: Stack, shipped_rules: None
) -> None:
    """An older version on its way with no stage while a newer one claims its number: the
    older run is archived as superseded at `settle duplicate keys`, never finalized beside
    the newer one."""
    doc = upload(stack, "in/invoice.pdf", BILL)
    newer = Claimant(doc.document_id, "v-newer", "run-newer", doc.run_order + "~", doc.key)
    facts = Facts("INV-20931", "2026-03-04", "1100.00", "USD", "ACME SUPPLIES LTD")
    store = DuplicateStore(load_settings().duplicate_table)
    assert store.claim(NUMBER_KEY, newer, facts, "number", "t").held
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        result = runner.run(input=stack.event(doc), execution_timeout=120)
    out = result_json(result)
    assert (out["status"], out["reason"]) == ("archived", "superseded")
    assert result.get_step("settle duplicate keys").result is not None
    assert (store.get(NUMBER_KEY) or {})["runId"] == "run-newer"


def test_a_version_finalized_before_claims_were_marked_is_still_met(
    stack: Stack, shipped_rules: None
) -> None:
    """A claim written before the settle step existed carries no `finalizedAt`: its run's
    `finalized` report in the read model's history says the version was paid."""
    first = run(stack, BILL, "in/invoice.pdf")
    table = load_settings().duplicate_table
    for item in aws.client("dynamodb").scan(TableName=table, ConsistentRead=True)["Items"]:
        aws.client("dynamodb").update_item(
            TableName=table, Key={"pk": item["pk"]}, UpdateExpression="REMOVE finalizedAt"
        )
    second = run_deciding(stack, resaved(BILL, "Acrobat"), "in/invoice.pdf", REJECT)
    (earlier,) = second["waited"]["duplicateOf"]
    assert (earlier["version"], earlier["status"]) == (first["version"], "finalized")
