"""A review link's stored record as a type: its item keeps the names and order `issue` always
wrote, and items written before a key existed still read."""

from __future__ import annotations

import json

from docflow import aws
from docflow.dynamo import from_ddb
from docflow.review.access.keys import build_key_source
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.links import LinkStore
from docflow.review.access.signing import token_hash
from docflow.review.stage.requests import ReviewRequest
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack

# A link item as `LinkStore.issue` wrote it before the type existed (its keys in order).
WRITTEN = {
    "pk": "LINK#abc",
    "documentId": "doc-1",
    "version": "v1",
    "runId": "run-1",
    "runOrder": "0000001",
    "bucket": "in",
    "key": "in/contract.pdf",
    "docName": "contract.pdf",
    "stageIndex": 1,
    "stageName": "legal",
    "reviewer": "legal@example.com",
    "reviewers": ["legal@example.com", "boss@example.com"],
    "summary": {"docType": "contract", "pages": 2},
    "stagePk": "STAGE#run-1#1",
    "waitPk": "STAGE#run-1#1",
    "state": "open",
    "expiresAt": 1_700_000_000,
    "traceParent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
}


def test_the_item_reads_and_writes_back_byte_for_byte() -> None:
    record = LinkRecord.from_item(WRITTEN)
    assert json.dumps(record.to_item()) == json.dumps(WRITTEN)
    assert record.stage_index == 1 and record.reviewers == ("legal@example.com", "boss@example.com")
    assert record.doc.key == "in/contract.pdf" and record.name == "contract.pdf"
    spent = LinkRecord.from_item({**WRITTEN, "state": "used", "claimedAt": 5, "decision": {"a": 1}})
    assert spent.to_item() == {**WRITTEN, "state": "used", "claimedAt": 5, "decision": {"a": 1}}


def test_a_link_that_decides_alone_reads_with_defaults() -> None:
    # A hand-made machine link (tests/review/test_triage.py writes one): no stage record.
    alone = {
        "pk": "LINK#x",
        "callbackId": "cb",
        "documentId": "d",
        "version": "v",
        "runId": "r",
        "runOrder": "1",
        "summary": {"docType": "unknown"},
        "state": "open",
    }
    record = LinkRecord.from_item(alone)
    assert (record.callback_id, record.stage_pk, record.wait_pk, record.bucket) == (
        "cb",
        "",
        "",
        "",
    )
    assert record.name == "" and record.decision is None


def test_issue_stores_the_record_it_returns_the_token_of(stack: Stack) -> None:
    s = load_settings()
    doc = stack.upload("in/contract.pdf", pdfs.text_pdf("SERVICES AGREEMENT"))
    stage = RoutedStage.from_json(
        {
            "name": "legal",
            "reviewers": ["a@example.com"],
            "escalateTo": ["b@example.com"],
            "timeoutSeconds": 3600,
        }
    )
    request = ReviewRequest(doc, 0, stage, "cb-1", {"docType": "contract"})
    links = LinkStore(s.links_table)
    issued = links.issue(request, "a@example.com", build_key_source(s).ring(), 3600)
    raw = aws.client("dynamodb").get_item(
        TableName=s.links_table, Key={"pk": {"S": f"LINK#{token_hash(issued.token)}"}}
    )["Item"]
    stored = from_ddb(raw)
    assert set(stored) == set(WRITTEN) - {"traceParent"}
    record = links.get(issued.token)
    assert record is not None and record.to_item() == stored
    assert record.reviewers == ("a@example.com", "b@example.com")
    assert (record.stage_pk, record.state) == (f"STAGE#{doc.run_id}#0", "open")
