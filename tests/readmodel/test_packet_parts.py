"""A packet and its parts in the read model: each part's state mirrored into the packet's
partition by the recorder (in the same transaction), listed by one Query, and shown by
`docflow show`, `docflow run` and the dashboard's document page."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from docflow.cli.output import Progress
from docflow.cli.packets import children_table, show_lines
from docflow.cli.watch import Watch
from docflow.ids import DocumentRef, PartOf
from docflow.readmodel import transitions as t
from docflow.trace.page import packet_section
from tests.support.aws import Stack
from tests.support.read_model import model, new_doc, recorder, report


def part_of(packet: DocumentRef, first: int, last: int) -> DocumentRef:
    return DocumentRef(
        "artifacts",
        f"packets/{packet.document_id}/{first:05d}-{last:05d}.pdf",
        part=PartOf(packet.document_id, packet.run_id, first, last),
    )


def send(
    doc: DocumentRef, status: str, n: int, stage_index: int | None = None, **more: Any
) -> None:
    payload = {**(doc.part.payload() if doc.part else {}), **more}
    recorder().record(report(doc, status, stage_index, n, **payload))


def test_the_packet_lists_its_parts_with_their_statuses(shared: Stack) -> None:
    packet = new_doc()
    send(packet, t.RECEIVED, 1, key=packet.key)
    send(packet, t.CLASSIFIED, 2, docType="packet", parts=2)
    invoice, contract = part_of(packet, 1, 2), part_of(packet, 3, 5)
    send(contract, t.RECEIVED, 3, key=contract.key)
    send(invoice, t.RECEIVED, 4, key=invoice.key)
    send(invoice, t.CLASSIFIED, 5, docType="invoice")
    send(contract, t.CLASSIFIED, 6, docType="contract")
    send(contract, t.PENDING_REVIEW, 7, 0, stageName="legal", reviewers=["legal@example.com"])
    send(invoice, t.FINALIZED, 8)
    send(invoice, t.CLASSIFIED, 9, docType="report")  # late: the part stays finalized
    send(packet, t.FINALIZED, 10, docType="packet", parts=2, partsFailed=0)

    parts = model().children(packet.document_id)
    assert [(c["parentPages"], c["status"], c["docType"]) for c in parts] == [
        ([1, 2], "finalized", "invoice"),
        ([3, 5], "pending-review", "contract"),
    ]
    assert parts[1]["stageName"] == "legal"
    # The packet's own state and history are its own: the mirror items are no reports.
    shown = model().show(packet.document_id)
    assert shown["state"]["parts"] == 2
    assert all(h["documentId"] == packet.document_id for h in shown["history"])
    assert children_table(parts)[1] == [
        "pages 3-5",
        contract.document_id,
        "contract",
        "pending-review",
        "legal",
    ]

    # A part names its packet and pages (`docflow show`), the dashboard links both ways.
    part_state = model().show(invoice.document_id)["state"]
    parent_state = model().states([packet.document_id])[packet.document_id]
    line = show_lines(part_state, parent_state)[0]
    assert packet.document_id in line and "pages 1-2" in line
    links: list[str] = []

    def link(document_id: str, label: str) -> str:
        links.append(document_id)
        return f'<a href="/d/{document_id}">{label}</a>'

    html = packet_section(model(), model().show(packet.document_id)["state"], link)
    assert "Split into 2 documents" in html and "pending-review" in html
    assert links == [invoice.document_id, contract.document_id]
    html = packet_section(model(), part_state, link)
    assert f"/d/{packet.document_id}" in html and "pages 1 to 2" in html
    assert packet_section(model(), {"docType": "invoice", "documentId": "d-x"}, link) == ""


def test_run_waits_for_the_parts_of_a_settled_packet(shared: Stack) -> None:
    packet = new_doc()
    send(packet, t.RECEIVED, 1, key=packet.key)
    send(packet, t.FINALIZED, 2, docType="packet", parts=2, partsFailed=0)
    invoice, contract = part_of(packet, 1, 1), part_of(packet, 2, 3)
    send(invoice, t.RECEIVED, 3)
    submitted = [
        {
            "documentId": packet.document_id,
            "runId": packet.run_id,
            "key": packet.key,
            "prefix": "",
            "path": "post.pdf",
        }
    ]
    watch = Watch(model(), submitted, "", Progress(enabled=False))
    assert not watch.poll()  # one part has not reported yet, the other is being read
    send(invoice, t.FINALIZED, 4)
    send(contract, t.RECEIVED, 5)
    send(contract, t.CLASSIFIED, 6, docType="contract")
    assert not watch.poll()
    send(contract, t.PENDING_REVIEW, 7, 0, stageName="legal")  # a person's turn: settled
    assert watch.poll()
    assert [c["status"] for c in watch.children[packet.document_id]] == [
        "finalized",
        "pending-review",
    ]


def test_a_later_run_of_a_part_replaces_its_mirror(shared: Stack) -> None:
    packet = new_doc()
    part = part_of(packet, 1, 1)
    send(part, t.RECEIVED, 1)
    send(part, t.FAILED, 2, reason="page-read-failed", message="x")
    again = replace(part, generation=1)
    send(again, t.RECEIVED, 3)
    (mirror,) = model().children(packet.document_id)
    assert (mirror["status"], mirror["runId"]) == ("received", again.run_id)
    assert "reason" not in mirror
