"""A packet's part as people read it (issue 44 item 4): named after its packet's file and
pages in mail subjects, review pages, the inbox and the CLI, never as `00002-00003.pdf` under
`packets/`; and every key the CLI prints for a part is accepted back by `show`."""

from __future__ import annotations

from docflow.cli.queries import head_lines, key_cell
from docflow.cli.refs import document_id, local_artifact_bucket
from docflow.cli.shapes import list_item
from docflow.ids import DocumentRef, PartOf, display_name, name_of
from docflow.review.notify.mail import escalation_email, reminder_email, review_email
from docflow.review.stage.requests import ReviewRequest
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.storage import part_key

PACKET = DocumentRef("docflow-documents", "incoming/packets/post.pdf", "3HL4kqtJlcpXroDTDmJ")


def part(first: int, last: int, packet_key: str = PACKET.key) -> DocumentRef:
    return DocumentRef(
        bucket=local_artifact_bucket(),
        key=part_key(PACKET, first, last),
        part=PartOf(PACKET.document_id, PACKET.run_id, first, last, packet_key),
    )


def test_a_part_is_named_after_its_packets_file_and_pages() -> None:
    assert part(2, 3).key.endswith("/00002-00003.pdf")
    assert part(2, 3).display_name == "post.pdf, pages 2\u20133"
    assert part(4, 4).display_name == "post.pdf, page 4"
    assert PACKET.display_name == "post.pdf"
    assert display_name("incoming/invoice.pdf") == "invoice.pdf"
    # The read model's state of a part, and a part started before its packet's key travelled.
    state = {"key": part(2, 3).key, "parentKey": PACKET.key, "parentPages": [2, 3]}
    assert name_of(state) == "post.pdf, pages 2\u20133"
    assert "00002" not in name_of({**state, "parentKey": None})


def test_the_packets_key_travels_in_the_parts_input_and_reports() -> None:
    doc = part(2, 3)
    again = DocumentRef.from_event(doc.to_event())
    assert again == doc and again.part is not None
    assert again.part.packet_key == PACKET.key
    assert doc.part is not None and doc.part.payload()["parentKey"] == PACKET.key
    # A part's input from before carries no key and names the same run.
    old = doc.to_event()
    del old["partOf"]["key"]
    assert DocumentRef.from_event(old).run_id == doc.run_id


def test_review_mail_names_a_part_after_its_packet() -> None:
    legal = Stage("legal", ("legal@example.com",), 60, 0, remind_after_seconds=10, max_reminders=2)
    stage = RoutedStage(legal, "type")
    request = ReviewRequest(part(5, 6), 0, stage, "cb", {"docType": "contract", "pages": 2})
    for subject, text, html in (
        review_email(request, "http://x/review/t"),
        reminder_email(ReviewRequest(part(5, 6), 0, stage, "cb", {}, reminder=1), "u"),
        escalation_email(request, "u", ["counsel@example.com"]),
    ):
        assert subject.endswith(": post.pdf, pages 5\u20136"), subject
        assert "00005-00006.pdf" not in subject
        assert "post.pdf, pages 5\u20136 (packets/" in text
        assert "post.pdf, pages 5\u20136" in html


def test_the_key_pending_prints_for_a_part_is_accepted_back_by_show() -> None:
    doc = part(2, 2)
    item = list_item(
        {
            "documentId": doc.document_id,
            "key": doc.key,
            "parentPages": [2, 2],
            "parentKey": PACKET.key,
        }
    )
    assert item["name"] == "post.pdf, page 2"
    assert key_cell(item) == f"{doc.key} (post.pdf, page 2)"
    assert document_id(str(item["key"])) == doc.document_id
    assert document_id(f"s3://{doc.bucket}/{doc.key}") == doc.document_id
    # An ordinary key still names a document in the document bucket.
    assert document_id("incoming/packets/post.pdf") == PACKET.document_id


def test_show_of_a_part_names_it_and_gives_its_packets_version() -> None:
    doc = part(5, 6)
    state = {
        "documentId": doc.document_id,
        "key": doc.key,
        "version": "null",
        "status": "pending-review",
        "parentId": PACKET.document_id,
        "parentPages": [5, 6],
        "parentKey": PACKET.key,
    }
    lines = head_lines(state, {"key": PACKET.key, "version": PACKET.version})
    assert "name        post.pdf, pages 5\u20136" in lines
    assert f"version     {PACKET.version} (the packet's)" in lines
    assert not any(line.startswith("version") and "null" in line for line in lines)
    # An older part's state (no parentKey) takes the packet's key from the packet's state.
    del state["parentKey"]
    assert "name        post.pdf, pages 5\u20136" in head_lines(state, {"key": PACKET.key})
