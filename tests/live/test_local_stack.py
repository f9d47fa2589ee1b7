"""The whole path on the real local stack: upload -> EventBridge -> SQS -> starter ->
orchestrator -> recorder -> review link -> callback API -> finalize. Real servers on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.config import StackConfig
from docflow.local.stack import control
from docflow.local.tools.raw_http import raw_status
from docflow.local.tools.uploads import object_created_event
from docflow.readmodel.queries import ReadModel
from docflow.review.access.links import link_id
from docflow.settings import load_settings
from tests.kit.mailbox import links_in
from tests.kit.pdfgen import CONTRACT_WITH_CARD, fresh_invoice, make_pdf
from tests.support.live_stack import (
    LEGAL_ONLY,
    executions_named,
    fast_config,
    free_base,
    history,
    http,
    intake_drained,
    review_url,
    running_stack,
    upload,
    upload_doc,
    wait_for,
)
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.live_stack(fast=True)]


def test_invoice_flows_from_upload_to_finalized(live_stack: StackConfig) -> None:
    doc_id, run_id = upload(live_stack, "incoming/invoice.pdf", make_pdf([fresh_invoice()]))
    state = wait_for(doc_id, {"finalized"}, run_id)
    assert (state["docType"], state["pages"]) == ("invoice", 1)
    assert [h["status"] for h in history(doc_id)] == [
        "received",
        "reading",
        "classified",
        "finalized",
    ]


def test_review_links_resume_the_run_and_a_get_decides_nothing(live_stack: StackConfig) -> None:
    doc_id, run_id = upload(
        live_stack, "incoming/contract.pdf", make_pdf([("scan", CONTRACT_WITH_CARD)])
    )
    state = wait_for(doc_id, {"pending-review"}, run_id)
    assert state["stageName"] == "legal" and state["sensitive"] == {"card_number": 1}
    assert {link["reviewer"] for link in state["reviewLinks"]} == {"legal@example.com"}
    url = review_url(live_stack, run_id)
    for _ in range(2):
        status, page = http("GET", url)
        assert status == 200 and "Approve" in page
    assert wait_for(doc_id, {"pending-review"})["stageName"] == "legal"

    assert http("POST", url, {"decision": "approve"})[0] == 200
    state = wait_for(doc_id, {"pending-review"}, run_id)
    while state["stageName"] != "privacy":
        state = wait_for(doc_id, {"pending-review"}, run_id)
    assert http("POST", url, {"decision": "approve"})[0] == 409  # used
    assert http("POST", review_url(live_stack, run_id, stage=1), {"decision": "approve"})[0] == 200
    # Its governing law is read from the scan below the threshold (issue 48): a person confirms it.
    state = wait_for(doc_id, {"pending-review"}, run_id)
    while state["stageName"] != "fields":
        state = wait_for(doc_id, {"pending-review"}, run_id)
    assert state["fields"]["governing_law"]["value"] == "Delaware"
    assert http("POST", review_url(live_stack, run_id, stage=2), {"decision": "approve"})[0] == 200
    wait_for(doc_id, {"finalized"}, run_id)

    def sent() -> list[dict]:  # the stack exports sent mail with its snapshot, every two seconds
        path = live_stack.state / "mail.json"
        mail = json.loads(path.read_text()) if path.exists() else []
        return [m for m in mail if "contract.pdf" in m["subject"]]

    wait_until(lambda: len(sent()) >= 3, timeout=30, what="the three review mails exported")
    assert sorted(m["to"][0] for m in sent()) == [
        "accounts@example.com",
        "legal@example.com",
        "privacy@example.com",
    ]


def test_duplicate_upload_events_start_one_run(live_stack: StackConfig) -> None:
    doc = upload_doc(live_stack, "incoming/dup.pdf", make_pdf([fresh_invoice()]))
    doc_id, run_id = doc.document_id, doc.run_id
    key_event = object_created_event(doc)
    queue = aws.client("sqs").get_queue_url(QueueName=live_stack.names("IntakeQueue"))["QueueUrl"]
    for _ in range(4):
        aws.client("sqs").send_message(QueueUrl=queue, MessageBody=json.dumps(key_event))
    wait_for(doc_id, {"finalized"}, run_id)
    wait_until(
        lambda: intake_drained(live_stack), timeout=60, what="the duplicates through the starter"
    )
    assert len(executions_named(doc.execution_name)) == 1
    assert [h["status"] for h in history(doc_id)].count("received") == 1
    claims = aws.client("dynamodb").get_item(
        TableName=live_stack.claims_table, Key={"pk": {"S": f"START#{run_id}"}}
    )
    assert claims["Item"]["state"]["S"] == "started"


def test_unparseable_intake_message_lands_in_the_dlq(live_stack: StackConfig) -> None:
    sqs = aws.client("sqs")
    queue = sqs.get_queue_url(QueueName=live_stack.names("IntakeQueue"))["QueueUrl"]
    dlq = sqs.get_queue_url(QueueName=live_stack.names("IntakeDeadLetterQueue"))["QueueUrl"]
    sqs.send_message(QueueUrl=queue, MessageBody="{not json")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        got = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10, WaitTimeSeconds=0)
        bodies = [m["Body"] for m in got.get("Messages", [])]
        if "{not json" in bodies:
            return
        time.sleep(1)
    raise AssertionError("the bad message never reached the DLQ")


def test_restart_while_pending_then_approve(live_stack: StackConfig) -> None:
    doc_id, run_id = upload(live_stack, "incoming/legal.pdf", make_pdf([LEGAL_ONLY]))
    before = wait_for(doc_id, {"pending-review"}, run_id)
    url = review_url(live_stack, run_id)

    assert control.down(live_stack.state)
    control.up(live_stack.state)
    control.use_stack(live_stack.state)

    state = wait_for(doc_id, {"pending-review"}, run_id)  # nothing was lost
    assert state["reviewLinks"] == before["reviewLinks"]
    assert http("POST", url, {"decision": "approve"})[0] == 200
    wait_for(doc_id, {"finalized"}, run_id)


def test_a_new_version_under_review_ends_the_old_runs_review(live_stack: StackConfig) -> None:
    old = upload_doc(live_stack, "incoming/replaced.pdf", make_pdf([LEGAL_ONLY]))
    wait_for(old.document_id, {"pending-review"}, old.run_id)
    url = review_url(live_stack, old.run_id)
    assert http("GET", url)[0] == 200

    new = upload_doc(live_stack, "incoming/replaced.pdf", make_pdf([LEGAL_ONLY + "\nAmended."]))
    wait_for(new.document_id, {"pending-review"}, new.run_id)
    deadline = time.monotonic() + 60
    while not any(
        h["runId"] == old.run_id and h["status"] == "archived" for h in history(old.document_id)
    ):
        assert time.monotonic() < deadline, "the old run never ended"
        time.sleep(0.3)
    ended = [h for h in history(old.document_id) if h["runId"] == old.run_id][-1]
    assert ended["payload"]["reason"] == "superseded"
    status, page = http("GET", url)
    assert status == 409 and "A newer version of this document replaced" in page
    assert http("POST", url, {"decision": "approve"})[0] == 409
    state = ReadModel(load_settings().table_name).show(old.document_id)["state"]
    assert (state["runId"], state["status"]) == (new.run_id, "pending-review")
    assert http("POST", review_url(live_stack, new.run_id), {"decision": "approve"})[0] == 200
    wait_for(new.document_id, {"finalized"}, new.run_id)


def test_review_timeout_fires_after_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "short"
    # A second stack beside the module's: free_base skips the block the first one holds.
    with running_stack(fast_config(state, free_base(), DOCFLOW_STAGE_TIMEOUT_S="10")) as config:
        doc_id, run_id = upload(config, "incoming/legal.pdf", make_pdf([LEGAL_ONLY]))
        wait_for(doc_id, {"pending-review"}, run_id)
        control.down(state)
        control.up(state)
        control.use_stack(state)
        final = wait_for(doc_id, {"archived"}, run_id, timeout=60)
        assert final["reason"] == "review-timeout"


def test_starter_batch_with_duplicates_and_a_malformed_message(live_stack: StackConfig) -> None:
    """The starter as the event source mapping calls it: one bad record fails alone."""
    doc = upload_doc(live_stack, "incoming/batch.pdf", make_pdf([fresh_invoice()]))
    event = object_created_event(doc)
    records = [
        {
            "messageId": f"m{i}",
            "receiptHandle": f"r{i}",
            "body": body,
            "attributes": {},
            "messageAttributes": {},
            "md5OfBody": "",
            "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:docflow-intake",
            "awsRegion": "us-east-1",
        }
        for i, body in enumerate(
            [
                json.dumps(event),
                json.dumps(event),
                "{oops",
                json.dumps({"detail-type": "Object Deleted"}),
            ]
        )
    ]
    answer = aws.invoke_client().invoke(
        FunctionName="docflow-starter", Payload=json.dumps({"Records": records}).encode()
    )
    result = json.loads(answer["Payload"].read())
    assert sorted(f["itemIdentifier"] for f in result["batchItemFailures"]) == ["m2", "m3"]
    wait_for(doc.document_id, {"finalized"}, doc.run_id)
    # The starter answered after its starts: a second execution would already exist.
    assert len(executions_named(doc.execution_name)) == 1
    assert [h["status"] for h in history(doc.document_id)].count("received") == 1


def docflow(live_stack: StackConfig, *args: str, status: int = 0) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(live_stack.state), *args, "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == status, done.stderr
    return json.loads(done.stdout)


def test_the_docflow_command(live_stack: StackConfig, tmp_path: Path) -> None:
    (tmp_path / "invoice.pdf").write_bytes(make_pdf([fresh_invoice()]))
    # Its own name: `incoming/legal.pdf` with these bytes is an earlier test's document, which
    # that test approved, and the same bytes at the same key start no new run.
    (tmp_path / "agreement.pdf").write_bytes(make_pdf([LEGAL_ONLY]))
    (tmp_path / "notes.txt").write_bytes(b"not a pdf")
    # notes.txt fails: `run` exits 5 (a document failed)
    rows = {Path(r["path"]).name: r for r in docflow(live_stack, "run", str(tmp_path), status=5)}
    for row in rows.values():
        assert {"documentId", "path", "status", "pages", "docType", "reviewLinks", "reason"} <= set(
            row
        )
    assert (rows["invoice.pdf"]["status"], rows["invoice.pdf"]["docType"]) == (
        "finalized",
        "invoice",
    )
    assert (rows["notes.txt"]["status"], rows["notes.txt"]["reason"]) == ("failed", "not-a-pdf")
    legal = rows["agreement.pdf"]
    assert legal["status"] == "pending-review" and legal["reviewLinks"]

    pending = {p["documentId"]: p for p in docflow(live_stack, "pending")}
    mine = pending[legal["documentId"]]
    assert {"documentId", "version", "stage", "pendingSince", "reviewLinks"} <= set(mine)
    assert mine["reviewLinks"] == legal["reviewLinks"]
    # The links themselves are only in the mail, and `docflow mail --json` lists it.
    mail = docflow(live_stack, "mail")
    assert all({"to", "subject", "body"} <= set(m) for m in mail)
    ids = {link["linkId"] for link in legal["reviewLinks"]}
    # This run's links: an earlier test ran other bytes under the same key (an older run).
    run_id = docflow(live_stack, "show", legal["documentId"])["state"]["runId"]
    assert ids == {link_id(m.token) for m in links_in(mail) if m.run_id == run_id}
    assert "/review/" not in json.dumps(pending)
    failed = docflow(live_stack, "failed")
    assert rows["notes.txt"]["documentId"] in {f["documentId"] for f in failed}

    invoice = rows["invoice.pdf"]["documentId"]
    before = docflow(live_stack, "show", invoice)["state"]["runId"]
    again = docflow(live_stack, "reprocess", invoice)
    assert again["started"] and again["generation"] == 1
    state = wait_for(invoice, {"finalized"}, again["runId"])
    assert state["runId"] != before  # the new run superseded the old one


def test_same_content_again_starts_nothing_new_content_supersedes(live_stack: StackConfig) -> None:
    s3 = aws.client("s3")
    bucket, key = live_stack.names("DocumentBucket"), "incoming/versions.pdf"
    data = make_pdf([fresh_invoice()])
    first = s3.put_object(Bucket=bucket, Key=key, Body=data)
    doc = DocumentRef(bucket, key, first["VersionId"], content_tag=first["ETag"].strip('"'))
    wait_for(doc.document_id, {"finalized"}, doc.run_id)

    again = s3.put_object(Bucket=bucket, Key=key, Body=data)  # the same bytes again
    assert again["VersionId"] != first["VersionId"] and again["ETag"] == first["ETag"]
    wait_until(lambda: intake_drained(live_stack), timeout=60, what="the event through the starter")
    same = DocumentRef(bucket, key, again["VersionId"], content_tag=again["ETag"].strip('"'))
    assert same.execution_name == doc.execution_name  # the run is named for the content
    assert len(executions_named(doc.execution_name)) == 1
    assert [h["status"] for h in history(doc.document_id)].count("received") == 1

    newer = s3.put_object(Bucket=bucket, Key=key, Body=make_pdf([fresh_invoice(), "page two"]))
    new_doc = DocumentRef(bucket, key, newer["VersionId"], content_tag=newer["ETag"].strip('"'))
    state = wait_for(doc.document_id, {"finalized"}, new_doc.run_id)
    assert (state["version"], state["pages"]) == (newer["VersionId"], 2)
    runs = {h["runId"] for h in history(doc.document_id)}
    assert runs == {doc.run_id, new_doc.run_id}


def test_host_killed_mid_document_then_the_run_resumes(live_stack: StackConfig) -> None:
    """SIGKILL the functions' host while pages are being read: the supervisor restarts it,
    the runner retries the invocation, the run replays from its checkpoints and finishes."""
    import signal

    invoice = fresh_invoice()  # one invoice's eight pages
    pages = [("scan", invoice) if n % 2 else invoice for n in range(8)]
    doc = upload_doc(live_stack, "incoming/crash.pdf", make_pdf(pages))
    wait_for(doc.document_id, {"reading"}, doc.run_id)
    old_pid = int((live_stack.state / "host.pid").read_text())
    os.kill(old_pid, signal.SIGKILL)
    state = wait_for(doc.document_id, {"finalized"}, doc.run_id, timeout=120)
    assert state["pages"] == 8
    assert int((live_stack.state / "host.pid").read_text()) != old_pid  # a new host did the rest
    statuses = [h["status"] for h in history(doc.document_id)]
    assert statuses == ["received", "reading", "classified", "finalized"]


def test_the_function_url_refuses_what_a_function_url_would(live_stack: StackConfig) -> None:
    """Refused before the function runs: over 6 MB, chunked, unreadable lengths, garbage."""
    port, path = live_stack.review_port, b"/review/v1.k1.abc.def"
    too_big = b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 7000000\r\n\r\n"
    chunked = (
        b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    )
    bad_length = b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"
    assert raw_status(port, too_big) == 413
    assert raw_status(port, chunked) == 411
    assert raw_status(port, bad_length) == 400
    assert raw_status(port, b"GARBAGE\r\n\r\n") == 400


def test_the_stack_reports_what_its_parts_measured(live_stack: StackConfig) -> None:
    doc_id, run_id = upload(live_stack, "incoming/stats.pdf", make_pdf([fresh_invoice()]))
    wait_for(doc_id, {"finalized"}, run_id)
    # The stats are written with each snapshot.
    wait_until(lambda: docflow(live_stack, "status")["stats"].get("intakeBatches", 0) >= 1, 30, 0.5)
    stats = docflow(live_stack, "status")["stats"]
    assert 1 <= stats["intakeInFlightPeak"] <= stats["intakeMaxConcurrency"]
    assert stats["intakeBatches"] >= 1


def test_an_execution_stopped_from_outside_is_reconciled(live_stack: StackConfig) -> None:
    """The run cannot report an end it never saw; the recorder's reconcile pass asks the
    durable runner and records it."""
    pages = [("scan", fresh_invoice())] * 10
    doc = upload_doc(live_stack, "incoming/stopped.pdf", make_pdf(pages))
    wait_for(doc.document_id, {"reading"}, doc.run_id)
    runner = aws.client("lambda")
    found = runner.list_durable_executions_by_function(
        FunctionName="docflow-orchestrator", DurableExecutionName=doc.execution_name
    )["DurableExecutions"]
    runner.stop_durable_execution(DurableExecutionArn=found[0]["DurableExecutionArn"])
    # Nothing else reports it: the stack's schedule runs the recorder's reconcile pass.
    state = wait_for(doc.document_id, {"failed"}, doc.run_id, timeout=60)
    assert state["reason"] == "execution-stopped"
    history = [h["status"] for h in history_of_run(doc)]
    assert history.count("failed") == 1 and history[0] == "received"


def history_of_run(doc: DocumentRef) -> list[dict]:
    return [h for h in history(doc.document_id) if h["runId"] == doc.run_id]


def test_a_stale_start_claim_whose_run_exists_starts_nothing(live_stack: StackConfig) -> None:
    """The local runner does not de-duplicate execution names; a starter that died between
    starting a run and marking its claim must not lead the next one to start it again."""
    from docflow.local.services.starter import LocalRunnerStarter
    from docflow.readmodel.table import to_ddb

    doc = upload_doc(live_stack, "incoming/stale-claim.pdf", make_pdf([fresh_invoice()]))
    wait_for(doc.document_id, {"finalized"}, doc.run_id)
    claim = {"pk": f"START#{doc.execution_name}", "state": "starting"}
    aws.client("dynamodb").put_item(
        TableName=live_stack.claims_table,
        Item=to_ddb({**claim, "claimedAt": int(time.time()) - 120}),
    )
    starter = LocalRunnerStarter(
        live_stack.runner_url, "docflow-orchestrator", live_stack.claims_table, 3600
    )

    assert starter.start(doc) is False
    runs = aws.client("lambda").list_durable_executions_by_function(
        FunctionName="docflow-orchestrator", DurableExecutionName=doc.execution_name
    )["DurableExecutions"]
    assert len(runs) == 1
    item = aws.client("dynamodb").get_item(
        TableName=live_stack.claims_table, Key=to_ddb({"pk": claim["pk"]})
    )
    assert item["Item"]["state"]["S"] == "started"


def quiet_document(live_stack: StackConfig, key: str) -> DocumentRef:
    """A document version in a versioned bucket no intake rule watches: only the test starts
    its run."""
    from docflow.local.tools.uploads import put_document

    bucket = f"quiet-{key.removesuffix('.pdf')}"
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    return put_document(bucket, key, make_pdf([fresh_invoice()]))


def test_a_claim_left_starting_by_a_starter_that_died_is_taken_over_not_skipped(
    live_stack: StackConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A starter that died between claiming a run and starting it leaves the claim
    "starting"; the next delivery once counted that as a duplicate and dropped the document
    (one of 120 in a backfill never ran). It waits the claim out and starts the run."""
    from docflow.local.services import starter as local
    from docflow.readmodel.table import to_ddb

    monkeypatch.setattr(local, "CLAIM_TIMEOUT_S", 3)
    monkeypatch.setattr(local, "CLAIM_POLL_S", 0.2)
    doc = quiet_document(live_stack, "died-before-starting.pdf")
    claim = {"pk": f"START#{doc.execution_name}", "state": "starting", "owner": "dead"}
    aws.client("dynamodb").put_item(
        TableName=live_stack.claims_table, Item=to_ddb({**claim, "claimedAt": int(time.time())})
    )
    starter = local.LocalRunnerStarter(
        live_stack.runner_url, "docflow-orchestrator", live_stack.claims_table, 3600
    )

    assert starter.start(doc) is True
    assert starter.start(doc) is False  # now a duplicate: the claim says started
    runs = aws.client("lambda").list_durable_executions_by_function(
        FunctionName="docflow-orchestrator", DurableExecutionName=doc.execution_name
    )["DurableExecutions"]
    assert len(runs) == 1
    wait_for(doc.document_id, {"finalized"}, doc.run_id)


def test_a_claim_write_retried_after_its_answer_was_lost_still_starts_the_run(
    live_stack: StackConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """botocore retries a write whose answer was lost; the retry of the conditional claim
    then fails on the item the first try wrote. That is this starter's own claim."""
    from docflow.dynamo import Table
    from docflow.local.services.starter import LocalRunnerStarter

    real = Table.put
    lost: list[str] = []

    def answer_lost_once(self: Table, item: Any, **kw: Any) -> Any:
        if kw.get("condition") and not lost:
            lost.append(str(item["pk"]))
            real(self, item, **kw)  # the request landed; its answer did not come back
        return real(self, item, **kw)

    monkeypatch.setattr(Table, "put", answer_lost_once)
    doc = quiet_document(live_stack, "answer-lost.pdf")
    starter = LocalRunnerStarter(
        live_stack.runner_url, "docflow-orchestrator", live_stack.claims_table, 3600
    )

    assert starter.start(doc) is True
    assert lost == [f"START#{doc.execution_name}"]
    wait_for(doc.document_id, {"finalized"}, doc.run_id)
