"""The inbox table's writes on moto: an item per (reviewer, pending stage) that a retry puts
again in the same place, that a close removes for good, and that a close racing an add
never leaves behind; pages read one reviewer's partition, oldest first."""

from __future__ import annotations

import time

from docflow import aws
from docflow.ids import DocumentRef
from docflow.review.access.keys import build_key_source
from docflow.review.access.links import LinkStore
from docflow.review.stage.inbox import InboxIndex, stage_of
from docflow.review.stage.records import stage_pk
from docflow.review.stage.requests import ReviewRequest
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from tests.support.aws import Stack

CLERK, OTHER = "clerk@example.com", "other@example.com"
STAGE = RoutedStage(Stage("fields", (CLERK, OTHER), 3600, 0), "fields")


def ask(n: int, reviewer: str = CLERK) -> tuple[str, str, dict[str, object]]:
    """The reviewer's link slot for document n's first stage, as the notifier's round mints
    it: (slot pk, stage pk, the inbox facts)."""
    s = load_settings()
    doc = DocumentRef("docs", f"in/d{n}.pdf", f"v{n}", f"{n:08X}")
    request = ReviewRequest(doc, 0, STAGE, f"cb-{n}", {"docType": "invoice"})
    issued = LinkStore(s.links_table).issue(request, reviewer, build_key_source(s).ring(), 600)
    facts = {
        "documentId": doc.document_id,
        "version": doc.version,
        "runId": doc.run_id,
        "stageIndex": 0,
        "stageName": "fields",
        "docName": f"d{n}.pdf",
        "docType": "invoice",
        "why": "fields",
        "deadline": int(time.time()) + 3600,
        "notify": "each",
    }
    return issued.slot_pk, stage_pk(doc.run_id, 0), facts


def index() -> InboxIndex:
    s = load_settings()
    return InboxIndex(s.links_table, s.inbox_table)


def test_a_retried_add_puts_the_same_item_and_a_close_removes_it_for_good(stack: Stack) -> None:
    slot, stage, facts = ask(1)
    inbox = index()
    assert inbox.add(slot, CLERK, stage, facts)
    (first,) = inbox.page(CLERK).items
    assert stage_of(first) == stage and first["slotPk"] == slot
    assert first["nonce"] and first["kid"] and first["expiresAt"] > time.time()
    # A later round (or a retried step) with new facts: same key, so the place is kept.
    assert inbox.add(slot, CLERK, stage, {**facts, "why": "escalated"})
    (again,) = inbox.page(CLERK).items
    assert again["sk"] == first["sk"] and again["why"] == "escalated"
    assert inbox.count(CLERK) == 1 and inbox.count(OTHER) == 0
    inbox.close(str(facts["runId"]), 0, [CLERK, OTHER], "voted")  # OTHER has no slot: no-op
    inbox.close(str(facts["runId"]), 0, [CLERK], "decided")  # again: idempotent
    assert inbox.page(CLERK).items == [] and inbox.count(CLERK) == 0
    # A round that runs after the close (a late retry) never lists it again.
    assert not inbox.add(slot, CLERK, stage, facts)
    assert inbox.page(CLERK).items == []
    slot_item = aws.client("dynamodb").get_item(
        TableName=load_settings().links_table, Key={"pk": {"S": slot}}, ConsistentRead=True
    )["Item"]
    assert slot_item["inboxClosed"] == {"S": "voted"}  # the first reason is kept
    assert "inboxPk" not in slot_item and "inboxSince" not in slot_item


def test_a_close_between_the_two_writes_of_an_add_wins(stack: Stack) -> None:
    slot, stage, facts = ask(2)
    inbox = index()
    anchor = inbox._anchor(slot, stage)  # the add's first write: the slot has its sort key
    assert anchor is not None
    inbox.close(str(facts["runId"]), 0, [CLERK], "superseded")  # nothing listed yet to delete
    item = {**facts, "pk": f"INBOX#{CLERK}", "sk": anchor["inboxSk"], "slotPk": slot}
    assert not inbox._put_while_open(slot, item)  # the add's second write is refused
    assert inbox.page(CLERK).items == []


def test_pages_read_one_partition_oldest_first_with_filters(stack: Stack) -> None:
    inbox = index()
    for n in range(5):
        slot, stage, facts = ask(10 + n)
        kind = "receipt" if n == 3 else "invoice"
        assert inbox.add(slot, CLERK, stage, {**facts, "docType": kind})
        other_slot, _, other_facts = ask(10 + n, OTHER)
        assert inbox.add(other_slot, OTHER, stage, other_facts)
        time.sleep(0.002)  # the sort key is in ms: one stage per ms keeps the order known
    first = inbox.page(CLERK, limit=2)
    assert [i["docName"] for i in first.items] == ["d10.pdf", "d11.pdf"]
    assert first.items_read == 2 and first.next_key == {
        "pk": f"INBOX#{CLERK}",
        "sk": first.items[-1]["sk"],
    }
    rest = inbox.page(CLERK, start=first.next_key, limit=10)
    assert [i["docName"] for i in rest.items] == ["d12.pdf", "d13.pdf", "d14.pdf"]
    assert rest.items_read == 3  # the reviewer's own items, none of the other's
    receipts = inbox.page(CLERK, doc_type="receipt")
    assert [i["docName"] for i in receipts.items] == ["d13.pdf"]
