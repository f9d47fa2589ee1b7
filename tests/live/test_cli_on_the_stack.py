"""A newcomer's session on the real local stack, in one stack start: `run` with two files of one
name, the same file twice, a blank scan and a review; the table's ids and keys; `show` by key
and by S3 URI, with the why; `stuck` leaving a review within its deadline alone; `status`
giving what one's own AWS client needs, and an upload made with it found by its key; `mail`
as text with dates; the exit statuses."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from docflow.cli.refs import document_id
from docflow.local.config import StackConfig
from docflow.local.tools.ports import free_port_base
from docflow.trace.stuck import explain_run
from tests.kit.pdfgen import INVOICE, make_pdf
from tests.support.live_stack import (
    LEGAL_ONLY,
    docflow_cli,
    http,
    review_url,
    running_stack,
    wait_for,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackConfig]:
    state = tmp_path_factory.mktemp("cli-stack")
    with running_stack(StackConfig(state=state, port_base=free_port_base(27600))) as config:
        yield config


def docflow(stack: StackConfig, *args: str) -> subprocess.CompletedProcess:
    return docflow_cli(stack, *args)


def show_json(stack: StackConfig, ref: str) -> dict:
    done = docflow(stack, "show", ref, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["state"]


def test_a_newcomers_session(stack: StackConfig, tmp_path: Path) -> None:
    for folder, text in (("A", INVOICE), ("B", LEGAL_ONLY)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "doc.pdf").write_bytes(make_pdf([text]))
    (tmp_path / "blank.pdf").write_bytes(make_pdf([("scan", ""), ("scan", "")]))
    (tmp_path / "x.pdf").write_bytes(make_pdf([INVOICE.replace("INV-20931", "INV-555")]))
    paths = [str(tmp_path / p) for p in ("A/doc.pdf", "B/doc.pdf", "blank.pdf", "x.pdf", "x.pdf")]

    ran = docflow(stack, "run", *paths)
    assert ran.returncode == 5, ran.stderr  # blank.pdf failed
    assert "2 files are named doc.pdf; each gets its own key" in ran.stderr
    assert "x.pdf is named more than once: uploaded once" in ran.stderr
    assert "docflow: 1 document failed" in ran.stderr
    keys = ["incoming/A/doc.pdf", "incoming/B/doc.pdf", "incoming/blank.pdf", "incoming/x.pdf"]
    rows = [line for line in ran.stdout.splitlines() if line.startswith("d-")]
    assert len(rows) == 4, ran.stdout  # one row for x.pdf, and each with its own id and key
    for key in keys:
        (row,) = [r for r in rows if f" {key} " in r]
        assert row.startswith(document_id(key))

    # `show` by key and by S3 URI; each file has its own document and state.
    a = show_json(stack, "incoming/A/doc.pdf")
    b = show_json(stack, f"s3://{stack.names('DocumentBucket')}/incoming/B/doc.pdf")
    assert (a["status"], a["docType"]) == ("finalized", "invoice")
    assert (b["status"], b["stageName"]) == ("pending-review", "legal")

    # The blank scan: not read by OCR, failed with a reason and a message that say so.
    blank = docflow(stack, "show", "incoming/blank.pdf").stdout
    assert "pages       2 (2 blank)" in blank
    assert "reason      blank-document" in blank
    assert "message     every page of the document is blank (2 pages" in blank

    # A review within its deadline is not stuck; its run is on its review wait.
    stuck = docflow(stack, "stuck", "--older-than", "1s", "--json")
    assert stuck.returncode == 0, stuck.stderr
    assert b["documentId"] not in {i["documentId"] for i in json.loads(stuck.stdout)}
    said = explain_run({"runId": b["runId"], "updatedAt": b["updatedAt"]})
    assert (said["executionStatus"], said["operation"], said["kind"]) == (
        "RUNNING",
        "review-0",
        "callback",
    )
    assert "which is expected" in said["why"]

    # `status` says how to reach the stack with one's own client: an upload made that way is
    # a run, found by its key.
    status = docflow(stack, "status", "--json")
    access = json.loads(status.stdout)["aws"]
    assert "aws --endpoint-url" in docflow(stack, "status").stdout
    s3 = boto3.client(
        "s3",
        endpoint_url=access["endpointUrl"],
        region_name=access["region"],
        aws_access_key_id=access["accessKeyId"],
        aws_secret_access_key=access["secretAccessKey"],
    )
    s3.put_object(
        Bucket=access["documentBucket"],
        Key="incoming/uploaded.pdf",
        Body=make_pdf([INVOICE.replace("INV-20931", "INV-777")]),
    )
    wait_for(document_id("incoming/uploaded.pdf"), {"finalized"})
    assert show_json(stack, "incoming/uploaded.pdf")["key"] == "incoming/uploaded.pdf"

    # A rejection: who, the reason code, the comment; the history names the stage.
    url = review_url(stack, b["runId"])
    form = {"decision": "reject", "reason": "other", "comment": "wrong counterparty"}
    assert http("POST", url, form)[0] == 200
    wait_for(b["documentId"], {"archived"}, b["runId"])
    shown = docflow(stack, "show", "incoming/B/doc.pdf").stdout
    assert "decision    stage legal rejected by legal@example.com" in shown
    assert "reasonCode  other" in shown and "comment     wrong counterparty" in shown
    assert "review-0" not in shown and " legal " in shown

    # The mail as text, dated; a document that is not there: status 4.
    mail = docflow(stack, "mail").stdout
    assert "<p>" not in mail and "Date: 20" in mail and "Open the review page (http" in mail
    missing = docflow(stack, "show", "incoming/nothing.pdf")
    assert (missing.returncode, missing.stderr) == (
        4,
        "docflow: no document incoming/nothing.pdf\n",
    )
