"""Packets through the durable testing runner on moto: the parent plans its parts, writes each
as a PDF and starts one run per part; each part runs as an ordinary document."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from aws_durable_execution_sdk_python.execution import InvocationStatus
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.ids import EXECUTION_NAME_RE, DocumentRef
from docflow.readmodel.queries import ReadModel
from docflow.runtime import runtime, use_runtime
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.support.aws import Stack, result_json
from tests.support.packets import (
    CONTRACT,
    INVOICE_A,
    INVOICE_B,
    INVOICE_C,
    RecordingStarter,
    packet,
    with_unloadable_page,
)


@pytest.fixture
def starter(stack: Stack) -> Iterator[RecordingStarter]:
    recording = RecordingStarter()
    use_runtime(runtime().with_(starter=recording))
    yield recording
    use_runtime(None)


def run(stack: Stack, doc: DocumentRef, timeout: int = 120):
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        return runner.run(input=stack.event(doc), execution_timeout=timeout)


def model() -> ReadModel:
    return ReadModel(load_settings().table_name)


def test_a_packet_of_three_invoices_and_a_contract_starts_four_parts(
    stack: Stack, starter: RecordingStarter
) -> None:
    data = packet(INVOICE_A, INVOICE_B, INVOICE_C, CONTRACT)
    doc = stack.upload("in/packets/post.pdf", data)
    result = run(stack, doc)

    assert result.status is InvocationStatus.SUCCEEDED
    out = result_json(result)
    assert (out["status"], out["docType"], out["parts"], out["partsFailed"]) == (
        "finalized",
        "packet",
        4,
        0,
    )
    names = [op.name for op in result.operations]
    assert names[names.index("read pages") + 1 :] == [
        "plan parts",
        "record classified",
        "start parts",
        "finalize",
        "record finalized",
    ]
    parts = sorted(starter.started.values(), key=lambda d: d.part.first if d.part else 0)
    assert [(d.part.first, d.part.last) for d in parts if d.part] == [
        (1, 2),
        (3, 3),
        (4, 4),
        (5, 6),
    ]
    assert all(d.part and d.part.parent_id == doc.document_id for d in parts)
    assert len({d.execution_name for d in parts}) == 4

    # Each part is an ordinary document: its own run, its own type and stages.
    ends = {}
    for part in parts[:3]:
        assert part.part is not None
        ended = result_json(run(stack, part))
        ends[(part.part.first, part.part.last)] = (ended["status"], ended.get("docType"))
    assert ends == {(n, m): ("finalized", "invoice") for n, m in ((1, 2), (3, 3), (4, 4))}
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(parts[3]), execution_timeout=120)
        callback = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        contract = model().show(parts[3].document_id)["state"]
        assert (contract["docType"], contract["stageName"]) == ("contract", "legal")
        approval = {"approved": True, "reviewer": "legal@example.com"}
        runner.send_callback_success(callback, json.dumps(approval).encode())
        assert result_json(runner.wait_for_result(arn, timeout=60))["status"] == "finalized"

    # The read model: the parent lists its parts with their statuses; a part names its parent.
    children = model().children(doc.document_id)
    assert [c["parentPages"] for c in children] == [[1, 2], [3, 3], [4, 4], [5, 6]]
    assert [c["docType"] for c in children] == ["invoice"] * 3 + ["contract"]
    first = model().show(children[0]["documentId"])["state"]
    assert (first["parentId"], first["parentPages"], first["pages"]) == (
        doc.document_id,
        [1, 2],
        2,
    )
    parent = model().show(doc.document_id)["state"]
    assert (parent["status"], parent["docType"], parent["parts"]) == ("finalized", "packet", 4)


def test_a_single_document_under_the_packet_prefix_goes_on_as_itself(
    stack: Stack, starter: RecordingStarter
) -> None:
    doc = stack.upload("in/packets/one.pdf", packet(INVOICE_A))
    result = run(stack, doc)

    out = result_json(result)
    assert (out["status"], out["docType"]) == ("finalized", "invoice")
    assert starter.started == {}  # no run more
    names = [op.name for op in result.operations]
    assert names[names.index("read pages") + 1 : names.index("read pages") + 3] == [
        "plan parts",
        "classify",
    ]


def test_a_part_pdfium_refuses_fails_alone_and_the_rest_split(
    stack: Stack, starter: RecordingStarter
) -> None:
    data = with_unloadable_page(packet(INVOICE_A, INVOICE_B, INVOICE_C), 2)
    doc = stack.upload("in/packets/torn.pdf", data)
    out = result_json(run(stack, doc))

    assert (out["status"], out["parts"], out["partsFailed"]) == ("finalized", 3, 1)
    started = sorted((d.part.first, d.part.last) for d in starter.started.values() if d.part)
    assert started == [(3, 3), (4, 4)]
    children = {tuple(c["parentPages"]): c for c in model().children(doc.document_id)}
    torn = children[(1, 2)]
    assert (torn["status"], torn["reason"]) == ("failed", "unrenderable-page")
    assert "page 2" in model().show(torn["documentId"])["state"]["message"]


def test_an_ordinary_document_takes_no_new_operation(stack: Stack) -> None:
    doc = stack.upload("in/invoice.pdf", packet(INVOICE_A))
    result = run(stack, doc)
    names = [op.name for op in result.operations]
    assert "plan parts" not in names
    split = json.loads(result.get_step("split").result)
    assert "packet" not in json.dumps(split)
    assert aws.client("s3")  # the sandbox is still up


def hundred_invoices() -> list[list[str | tuple[str, str]]]:
    """100 invoices of 3 pages each, from ten suppliers (consecutive ones may share one)."""
    documents: list[list[str | tuple[str, str]]] = []
    for n in range(100):
        vendor = f"SUPPLIER {n % 10} LTD"
        head = f"{vendor}\nINVOICE\nInvoice number: INV-{5000 + n}\nBill to: Example Corp"
        documents.append(
            [
                f"{head}\nPage 1 of 3\nItem A   1   10.00   10.00",
                f"{vendor}\nInvoice number: INV-{5000 + n}\nPage 2 of 3\nItem B   2   5.00",
                f"{vendor}\nInvoice number: INV-{5000 + n}\nPage 3 of 3\nTotal due: 20.00 USD",
            ]
        )
    return documents


def test_a_300_page_packet_of_100_parts_stays_far_under_the_operation_cap(
    stack: Stack, starter: RecordingStarter
) -> None:
    doc = stack.upload("in/packets/day.pdf", packet(*hundred_invoices()))
    result = run(stack, doc, timeout=900)

    out = result_json(result)
    assert (out["status"], out["pages"], out["parts"], out["partsFailed"]) == (
        "finalized",
        300,
        100,
        0,
    )
    operations = len(result.get_all_operations())
    assert operations < 100  # the service's cap is 3,000 per execution
    names = [d.execution_name for d in starter.started.values()]
    assert len(names) == len(set(names)) == 100
    assert all(EXECUTION_NAME_RE.match(name) for name in names)
    pages = sorted((d.part.first, d.part.last) for d in starter.started.values() if d.part)
    assert pages == [(1 + 3 * n, 3 + 3 * n) for n in range(100)]
    # Checkpoints carry keys and counts: the plan and each group's answer stay small.
    sizes = [len(op.result or "") for op in result.get_all_operations() if op.result]
    assert max(sizes) < 32 * 1024
