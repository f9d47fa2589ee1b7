"""Packets on the real local stack: a mailroom's packet becomes one document per part through
the intake path (the `docflow` command as a person runs it), a redelivered packet starts its
parts once, and an unsure boundary waits for a person who moves it in a real browser."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from docflow import aws
from docflow.local.config import StackConfig
from docflow.local.tools.uploads import object_created_event, put_document
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit.mailbox import wait_for_links
from tests.support import screenshots
from tests.support.browser import chromium, not_blank
from tests.support.live_stack import executions_named, intake_drained, wait_for
from tests.support.packets import CONTRACT, INVOICE_A, INVOICE_B, INVOICE_C, REPORT, packet
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.live_stack]

# Where the split page's screenshots go (`make screenshots`: docs/screenshots/, shown in
# docs/packets.md).
SHOTS = screenshots.folder()
SETTLED = {"finalized", "archived", "failed", "pending-review"}


def docflow(live_stack: StackConfig, *args: str, status: int = 0) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(live_stack.state), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == status, done.stderr
    return json.loads(done.stdout) if "--json" in args else done.stdout


def model() -> ReadModel:
    return ReadModel(load_settings().table_name)


def parts_of(packet_id: str, count: int) -> list[dict[str, Any]]:
    def settled() -> bool:
        parts = model().children(packet_id)
        return len(parts) == count and all(p["status"] in SETTLED for p in parts)

    wait_until(settled, timeout=300, interval=1, what=f"{count} parts settled")
    return model().children(packet_id)


def test_a_packet_of_three_invoices_and_a_contract_becomes_four_documents(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    path = tmp_path / "post.pdf"
    path.write_bytes(packet(INVOICE_A, INVOICE_B, INVOICE_C, CONTRACT))
    (row,) = docflow(live_stack, "run", "--packets", str(path), "--json")

    assert (row["status"], row["docType"], row["pages"]) == ("finalized", "packet", 6)
    parts = row["children"]
    assert [p["parentPages"] for p in parts] == [[1, 2], [3, 3], [4, 4], [5, 6]]
    assert [p["docType"] for p in parts] == ["invoice", "invoice", "invoice", "contract"]
    assert [p["pages"] for p in parts] == [2, 1, 1, 2]
    contract = parts[3]
    assert (contract["status"], contract["stage"]) == ("pending-review", "legal")
    assert all(p["status"] in SETTLED - {"failed", "archived"} for p in parts)

    # `show` of a part names its packet and pages; `show` of the packet lists its parts.
    shown = docflow(live_stack, "show", contract["documentId"], "--json")["state"]
    assert (shown["parentId"], shown["parentPages"]) == (row["documentId"], [5, 6])
    text = docflow(live_stack, "show", contract["documentId"])
    assert f"packet      {row['documentId']} (post.pdf), pages 5-6" in text
    listed = docflow(live_stack, "show", row["documentId"], "--json")["children"]
    assert [c["documentId"] for c in listed] == [p["documentId"] for p in parts]
    # `run` prints the parts indented under the packet, one row each, and the review link of
    # the part waiting in review, named after its packet's file and pages (issue 44 item 4).
    table = docflow(live_stack, "run", "--packets", str(path))
    assert table.count("  ↳ page") == 4 and "↳ pages 5-6" in table
    link = "review post.pdf, pages 5\u20136 (legal@example.com): http"
    assert any(line.startswith(link) for line in table.splitlines()), table

    # Every key docflow prints for a part is accepted back: `pending`'s, by `show`.
    (item,) = [
        i
        for i in docflow(live_stack, "pending", "--json")
        if i["documentId"] == contract["documentId"]
    ]
    assert item["name"] == "post.pdf, pages 5\u20136" and "/00005-00006.pdf" in item["key"]
    assert f"{item['key']} (post.pdf, pages 5\u20136)" in docflow(live_stack, "pending")
    by_key = docflow(live_stack, "show", item["key"])
    assert f"documentId  {contract['documentId']}" in by_key
    assert "name        post.pdf, pages 5\u20136" in by_key
    assert f"version     {row['version']} (the packet's)" in by_key and "null" not in by_key
    # The reviewer's mail names the part the same way.
    mail = docflow(live_stack, "mail")
    assert "Review needed (legal): post.pdf, pages 5\u20136" in mail


def test_the_same_packet_delivered_twice_starts_its_parts_once(live_stack: StackConfig) -> None:
    doc = put_document(
        live_stack.names("DocumentBucket"),
        "incoming/packets/twice.pdf",
        packet(INVOICE_B, INVOICE_C, INVOICE_A, INVOICE_B),
    )
    queue = aws.client("sqs").get_queue_url(QueueName=live_stack.names("IntakeQueue"))["QueueUrl"]
    for _ in range(3):  # the event again, as a redelivery would bring it
        body = json.dumps(object_created_event(doc))
        aws.client("sqs").send_message(QueueUrl=queue, MessageBody=body)
    wait_for(doc.document_id, {"finalized"}, doc.run_id, timeout=300)
    parts = parts_of(doc.document_id, 4)
    wait_until(lambda: intake_drained(live_stack), timeout=120, interval=1, what="redeliveries")

    assert len(executions_named(doc.execution_name)) == 1
    names = [p["runId"] for p in parts]
    assert len(set(names)) == 4
    assert all(len(executions_named(name)) == 1 for name in names)
    history = model().show(doc.document_id)["history"]
    assert [h["status"] for h in history].count("received") == 1


@pytest.mark.browser
def test_a_parts_review_page_is_titled_by_its_packets_file_and_pages(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    """Issue 44 item 4: the review page of a part read `Review 00002-00003.pdf`."""
    shots = SHOTS or tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    doc = put_document(
        live_stack.names("DocumentBucket"),
        "incoming/packets/tuesday.pdf",
        packet(INVOICE_A, CONTRACT),
    )
    wait_for(doc.document_id, {"finalized"}, doc.run_id, timeout=300)
    (_invoice, contract) = parts_of(doc.document_id, 2)
    assert (contract["status"], contract["parentPages"]) == ("pending-review", [3, 4])
    (link,) = wait_for_links(live_stack.state, 1, run_id=contract["runId"], stage_index=0)

    with chromium() as browser:
        for name, width, height in (("phone", 390, 844), ("desktop", 1280, 900)):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(link.url)
            assert page.locator("h1").inner_text() == "Review tuesday.pdf, pages 3\u20134"
            assert page.title().startswith("Review tuesday.pdf, pages 3\u20134")
            assert "0000" not in page.locator("h1").inner_text()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(shots / f"part-review-{name}.png"), full_page=True)
            page.close()


@pytest.mark.browser
def test_a_person_moves_an_unsure_boundary_in_a_browser(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    shots = SHOTS or tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    doc = put_document(
        live_stack.names("DocumentBucket"), "incoming/packets/unsure.pdf", packet(INVOICE_B, REPORT)
    )
    state = wait_for(doc.document_id, {"pending-review"}, doc.run_id, timeout=300)
    assert (state["stageName"], state["docType"]) == ("split", "packet")
    (link,) = wait_for_links(live_stack.state, 1, run_id=doc.run_id, stage_index=0)

    with chromium() as browser:
        for name, width, height in (("phone", 390, 844), ("desktop", 1280, 900)):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(link.url)
            assert page.locator("h1").inner_text() == "Split unsure.pdf into documents"
            thumbs = page.locator("ol.thumbs img")
            assert thumbs.count() == 3
            for i in range(3):
                img = thumbs.nth(i)
                img.scroll_into_view_if_needed()
                page.wait_for_function(
                    "el => el.complete && el.naturalWidth > 0", arg=img.element_handle()
                )
                assert not_blank(img.screenshot()), f"{name}: thumbnail {i + 1} is blank"
            assert page.locator("li.unsure").count() == 1
            assert page.locator("#page-2 .tag").inner_text().startswith("unsure")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(shots / f"split-{name}.png"), full_page=True)
            page.close()

        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(link.url)
        # Page 1 unticked leaves it in no document: refused next to the boxes, nothing decided.
        page.uncheck("input[name=start][value='1']")
        page.click("button.approve")
        page.wait_for_selector(".error-summary")
        said = page.locator(".error-summary").inner_text()
        assert "Pages 1 to 2 would be in no document" in said
        page.screenshot(path=str(shots / "split-error.png"), full_page=True)
        assert wait_for(doc.document_id, {"pending-review"}, doc.run_id)["stageName"] == "split"

        # The boundary moves from page 3 to page 2: the invoice alone, the report whole.
        page.check("input[name=start][value='1']")
        page.check("input[name=start][value='2']")
        page.uncheck("input[name=start][value='3']")
        page.click("button.approve")
        page.wait_for_selector("h1:has-text('Document approved')")

    wait_for(doc.document_id, {"finalized"}, doc.run_id, timeout=120)
    parts = parts_of(doc.document_id, 2)
    assert [p["parentPages"] for p in parts] == [[1, 1], [2, 3]]
    assert parts[1]["docType"] == "report"
