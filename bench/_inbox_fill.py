"""The review tables as a busy deployment has them: one reviewer with `mine` pending stages
among `documents` pending for other reviewers, written by the project's own writers for the
reviewer (the link slot, the stage record, the inbox item: what a stage's first round writes)
and as the same items, in batches, for everyone else (so a fill of 10,000 takes seconds).
"""

from __future__ import annotations

import time
from typing import Any

import _common

from docflow import aws
from docflow.ids import DocumentRef
from docflow.readmodel.table import to_ddb
from docflow.review.access.links import LinkStore
from docflow.review.access.signing import KeyRing, new_nonce
from docflow.review.stage.inbox import InboxIndex, inbox_pk, iso, slot_pk
from docflow.review.stage.records import StageStore, stage_pk
from docflow.review.stage.requests import ReviewRequest
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage

REVIEWER = "clerk@example.com"
STAGE = RoutedStage(Stage("fields", (REVIEWER,), 172800, 0), "fields")


def _facts(doc: DocumentRef, deadline: int) -> dict[str, Any]:
    return {
        "documentId": doc.document_id,
        "version": doc.version,
        "runId": doc.run_id,
        "stageIndex": 0,
        "stageName": "fields",
        "docName": doc.key.rsplit("/", 1)[-1],
        "docType": "invoice",
        "why": "fields",
        "deadline": deadline,
        "notify": "each",
    }


def fill(table: str, inbox_table: str, ring: KeyRing, documents: int, mine: int) -> None:
    """`mine` stages pending on REVIEWER, `documents - mine` on 50 other reviewers (`table`
    the links table, `inbox_table` the inbox's)."""
    links, stages = LinkStore(table), StageStore(table)
    index = InboxIndex(table, inbox_table)
    now = int(time.time())
    for n in range(mine):
        doc = DocumentRef("bench-docs", f"incoming/mine-{n:05d}.pdf", f"v{n}", f"{n:08X}")
        request = ReviewRequest(doc, 0, STAGE, f"cb-{n}", {"docType": "invoice"})
        issued = links.issue(request, REVIEWER, ring, 7 * 24 * 3600)
        pk = stage_pk(doc.run_id, 0)
        ids = {"documentId": doc.document_id, "runId": doc.run_id, "stageIndex": 0}
        stages.create(pk, {**ids, "stageName": "fields"}, [REVIEWER], 0, now + 172800)
        index.add(issued.slot_pk, REVIEWER, pk, _facts(doc, now + 172800))
    ddb = aws.client("dynamodb")
    batch: list[dict[str, Any]] = []
    for n in range(mine, documents):
        doc = DocumentRef("bench-docs", f"incoming/other-{n:05d}.pdf", f"v{n}", f"{n:08X}")
        other = f"reviewer-{n % 50}@example.com"
        pk = stage_pk(doc.run_id, 0)
        slot = {
            "pk": slot_pk(doc.run_id, 0, other),
            "kid": ring.current,
            "nonce": new_nonce(),
            "linkExpiresAt": now + 7 * 24 * 3600,
            "inboxSk": f"{iso(now - n)}#{pk}",
        }
        item = {
            "pk": inbox_pk(other),
            "sk": slot["inboxSk"],
            "slotPk": slot["pk"],
            **{k: slot[k] for k in ("kid", "nonce", "linkExpiresAt")},
            **_facts(doc, now + 172800),
        }
        record = {
            "pk": pk,
            "runId": doc.run_id,
            "stageIndex": 0,
            "reviewers": [other],
            "deadline": now + 172800,
        }
        batch += [(table, slot), (table, record), (inbox_table, item)]
        if len(batch) >= 24:
            _write(ddb, batch)
            batch = []
    if batch:
        _write(ddb, batch)


def _write(ddb: Any, batch: list[tuple[str, dict[str, Any]]]) -> None:
    requests: dict[str, list[dict[str, Any]]] = {}
    for table, item in batch:
        requests.setdefault(table, []).append({"PutRequest": {"Item": to_ddb(item)}})
    while requests:
        requests = ddb.batch_write_item(RequestItems=requests).get("UnprocessedItems") or {}


def scan_for(table: str, reviewer: str) -> tuple[int, int]:
    """The same question by Scan of the inbox table, to compare (found, items read): only
    here, never in the app."""
    return _common.scan_count(
        table,
        FilterExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": inbox_pk(reviewer)}},
    )
