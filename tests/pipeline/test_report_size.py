"""A document's size never fails it (durable testing runner on moto, the shipped rules): long
invoices as pages and as EN 16931 data, every check they can trip firing at once, and the
largest public e-invoice examples each finalize or wait for a person, their read-model items
kept small (what does not fit is in S3, docflow/readmodel/detail.py) and `show` whole."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.ids import DocumentRef
from docflow.readmodel.detail import INLINE_BYTES
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.table import doc_pk, from_ddb, to_ddb
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit.long_invoices import long_invoice_pdf, long_invoice_ubl
from tests.support.aws import Stack
from tests.support.waiting import wait_until

DATA = Path(__file__).parents[1] / "data"
EINVOICES = sorted(
    p
    for folder in ("einvoice", "einvoice_public")
    for p in (DATA / folder).iterdir()
    if p.suffix in (".xml", ".pdf")
)
SETTLED = ("finalized", "pending-review", "archived", "failed")
# What an item holds besides its payload: keys, run ids, times, index attributes.
ITEM_OVERHEAD = 1024


@pytest.fixture
def shipped(stack: Stack, shipped_rules: None) -> Iterator[Stack]:
    yield stack


def settle(stack: Stack, key: str, data: bytes) -> tuple[DocumentRef, list[dict[str, Any]]]:
    """Run the document until it settles (finalized, waiting on a person, or ended); its
    read-model items as stored."""
    doc = stack.upload(key, data)
    model = ReadModel(load_settings().table_name)

    def settled() -> bool:
        state = model.show(doc.document_id)["state"]
        return bool(state) and state["status"] in SETTLED

    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        runner.run_async(input=stack.event(doc), execution_timeout=900)
        wait_until(settled, timeout=600, interval=0.2, what=f"{key} to settle")
    answer = aws.client("dynamodb").query(
        TableName=load_settings().table_name,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues=to_ddb({":pk": doc_pk(doc.document_id)}),
    )
    return doc, [from_ddb(i) for i in answer["Items"]]


def check_items(doc: DocumentRef, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Every item small, the document settled and not failed; `show`'s whole state."""
    for item in items:
        payload = item.get("payload", {}) if item["sk"] != "STATE" else {}
        assert len(json.dumps(payload)) <= INLINE_BYTES, item["sk"]
        assert len(json.dumps(item, default=str)) <= 8 * (INLINE_BYTES + ITEM_OVERHEAD)
    state = ReadModel(load_settings().table_name).show(doc.document_id)["state"]
    assert state["status"] in ("finalized", "pending-review"), (state.get("reason"), state)
    return state


def test_a_200_line_invoice_page_tripping_every_check_waits_for_a_person(
    shipped: Stack,
) -> None:
    doc, items = settle(shipped, "incoming/long.pdf", long_invoice_pdf(200, every_check=True))
    state = check_items(doc, items)
    assert state["status"] == "pending-review"
    lines = state["fields"]["lines"]
    assert len(lines["rows"]) == int(lines["value"].split()[0]) > 100  # read back whole
    codes = {c["code"] for c in state["fieldChecks"]}
    assert {"table-sum", "amounts-disagree"} <= codes, codes
    assert state["sensitive"].get("card_number") and state["sensitive"].get("iban")
    assert {r["code"] for r in state["risk"]["reasons"]} >= {
        "long-payment-terms",
        "unlimited-liability",
    }
    stored = next(i for i in items if i["sk"] == "STATE")
    assert "rows" not in stored["fields"]["lines"] and "detail" in stored


@pytest.mark.parametrize(("lines", "broken"), [(200, True), (1000, False), (1000, True)])
def test_a_long_ubl_invoice_finalizes_or_waits(shipped: Stack, lines: int, broken: bool) -> None:
    doc, items = settle(shipped, f"incoming/long-{lines}.xml", long_invoice_ubl(lines, broken))
    state = check_items(doc, items)
    assert state["einvoice"]["lines"] == lines
    if broken:  # a rule broken on every line: each finding is a check a person reads
        assert state["status"] == "pending-review"
        assert len(state["fieldChecks"]) > lines


def test_a_1000_line_invoice_page_finalizes_or_waits(shipped: Stack) -> None:
    doc, items = settle(shipped, "incoming/long-1000.pdf", long_invoice_pdf(1000))
    check_items(doc, items)


@pytest.mark.parametrize("path", EINVOICES, ids=lambda p: p.name)
def test_every_public_einvoice_example_finalizes_or_waits(shipped: Stack, path: Path) -> None:
    doc, items = settle(shipped, f"incoming/{path.name}", path.read_bytes())
    check_items(doc, items)
