"""The review page through the callback API's real handler, on real executions of the testing
runner: the document in front of the reviewer, access that ends with the link, a newer
version superseding an older run, and every way a stage can end answering a page."""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import time
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from aws_durable_execution_sdk_python.execution import InvocationStatus

from docflow import aws
from docflow.ids import DocumentRef
from docflow.readers.tesseract import TesseractReader
from docflow.readmodel.queries import ReadModel
from docflow.review.stage.register import RegisterStore, _waits_before
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json
from tests.support.review_desk import (
    Desk,
    call,
    open_desk,
    post_decision,
)

SSN_FORM = """CARDHOLDER APPLICATION
Applicant SSN: 123-45-6789
Card: 4111 1111 1111 1111
IBAN DE89 3704 0044 0532 0130 00"""


@pytest.fixture
def desk(stack: Stack) -> Iterator[Desk]:
    with open_desk(stack) as desk:
        yield desk


def newer(doc: DocumentRef, stack: Stack, data: bytes) -> DocumentRef:
    """New bytes under the same key, as S3 would order them (a greater sequencer)."""
    upload = stack.upload(doc.key, data)
    return dataclasses.replace(upload, sequencer="FFFF")


def test_the_page_shows_the_document_masked_and_why(desk: Desk) -> None:
    doc = desk.stack.upload("in/application.pdf", pdfs.text_pdf("Cover page", SSN_FORM))
    arn = desk.start(doc)
    token = desk.links(doc)[0]

    page = call("GET", f"/review/{token}")
    body = page["body"]
    assert page["statusCode"] == 200
    # Why: the route and what the detectors found, on which page.
    assert "a detector found sensitive data" in body
    assert "A card number on page 2" in body and "A US social security number on page 2" in body
    # Masked values only; the full ones never reach the page.
    for masked in ("•••• 1111", "•••-••-6789", "DE•••• 3000"):
        assert masked in body
    for full in ("4111 1111 1111 1111", "123-45-6789", "DE89 3704"):
        assert full not in body
    # The page that caused the review is shown first.
    assert body.index('id="page-2"') < body.index('id="page-1"')
    csp = page["headers"]["Content-Security-Policy"]
    assert "img-src 'self'" in csp and "script-src" not in csp
    assert page["headers"]["Cache-Control"] == "no-store"

    cold = call("GET", f"/review/{token}/pages/2")
    warm = call("GET", f"/review/{token}/pages/2")
    assert cold["statusCode"] == warm["statusCode"] == 200
    assert cold["headers"]["Content-Type"] == "image/png" and cold["isBase64Encoded"]
    assert (cold["headers"]["X-Preview-Cache"], warm["headers"]["X-Preview-Cache"]) == (
        "miss",
        "hit",
    )
    assert cold["body"] == warm["body"]
    # The picture keeps the text's promise: tesseract reads the page but not the values.
    seen, _ = TesseractReader().ocr_png(base64.b64decode(cold["body"]))
    assert "CARDHOLDER" in seen
    assert "4111" not in seen and "6789" not in seen and "3704" not in seen

    download = call("GET", f"/review/{token}/original")
    assert download["statusCode"] == 302
    location = urlparse(download["headers"]["Location"])
    query = parse_qs(location.query)
    assert location.path.endswith("/in/application.pdf")
    assert query["response-content-disposition"] == ['attachment; filename="application.pdf"']
    if "X-Amz-Expires" in query:  # SigV4: seconds; SigV2: an epoch
        assert int(query["X-Amz-Expires"][0]) <= 300
    else:
        assert int(query["Expires"][0]) - time.time() <= 301

    for bad in ("0", "3", "-1", "abc", "1.png", "9" * 9):
        assert call("GET", f"/review/{token}/pages/{bad}")["statusCode"] == 404, bad
    assert call("POST", f"/review/{token}/pages/1")["statusCode"] == 405

    refused = post_decision(token, "reject", reason="")
    assert refused["statusCode"] == 400 and "Choose why you reject" in refused["body"]
    assert not desk.callbacks.sent
    assert post_decision(token, "approve")["statusCode"] == 200
    # The reviewer's access to the document ends with the decision.
    assert call("GET", f"/review/{token}/pages/1")["statusCode"] == 409
    assert call("GET", f"/review/{token}/original")["statusCode"] == 409
    assert desk.result(arn)["status"] == "finalized"


def test_previews_are_bound_to_the_links_document(desk: Desk) -> None:
    one = desk.stack.upload("in/a.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD))
    two = desk.stack.upload("in/b.pdf", pdfs.text_pdf(SSN_FORM, "page two", "page three"))
    desk.start(one)
    desk.start(two)
    token_one, token_two = desk.links(one)[0], desk.links(two)[0]
    # Page 3 exists only in the second document: the first one's link cannot reach it.
    assert call("GET", f"/review/{token_one}/pages/3")["statusCode"] == 404
    assert call("GET", f"/review/{token_two}/pages/3")["statusCode"] == 200
    tampered = token_one[:-4] + ("AAAA" if not token_one.endswith("AAAA") else "BBBB")
    assert call("GET", f"/review/{tampered}/pages/1")["statusCode"] == 403


def test_a_newer_version_ends_the_older_runs_review(desk: Desk) -> None:
    old = desk.stack.upload("in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD))
    old_arn = desk.start(old)
    old_link = desk.links(old)[0]
    assert call("GET", f"/review/{old_link}")["statusCode"] == 200

    new = newer(old, desk.stack, pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD + "\nAmended."))
    desk.start(new)

    finished = desk.runner.wait_for_result(old_arn, timeout=60)
    ended = result_json(finished)
    assert (ended["status"], ended["reason"]) == ("archived", "superseded")
    assert "finalize" not in [op.name for op in finished.operations]
    for answer in (
        call("GET", f"/review/{old_link}"),
        post_decision(old_link, "approve"),
        call("GET", f"/review/{old_link}/pages/1"),
        call("GET", f"/review/{old_link}/original"),
    ):
        assert answer["statusCode"] == 409
        assert "A newer version of this document replaced" in answer["body"]
    assert not desk.callbacks.sent

    model = ReadModel(load_settings().table_name).show(old.document_id)
    assert model["state"]["runId"] == new.run_id
    archived = [
        h for h in model["history"] if h["runId"] == old.run_id and h["status"] == "archived"
    ]
    assert archived and archived[0]["payload"]["reason"] == "superseded"

    # The newer run's own review works, and an older run started late stops at once.
    assert post_decision(desk.links(new)[0], "approve")["statusCode"] == 200
    late = dataclasses.replace(old, sequencer="0001", content_tag="late")
    late_out = desk.result(desk.start(late))
    assert (late_out["status"], late_out["reason"]) == ("archived", "superseded")
    assert ReadModel(load_settings().table_name).show(old.document_id)["state"]["runId"] == (
        new.run_id
    )


def test_a_click_that_won_the_race_still_cannot_finalize_replaced_content(desk: Desk) -> None:
    legal_only = "SERVICES AGREEMENT\nThe parties hereby agree. Governing law: Delaware."
    old = desk.stack.upload("in/short.pdf", pdfs.text_pdf(legal_only))
    arn = desk.start(old)
    token = desk.links(old)[0]
    # A newer run has raised the register but not yet ended the wait when the click lands.
    new = newer(old, desk.stack, pdfs.text_pdf(legal_only + " v2"))
    assert RegisterStore(load_settings().links_table).record_latest(new)
    assert post_decision(token, "approve")["statusCode"] == 200
    out = desk.result(arn)
    assert (out["status"], out["reason"]) == ("archived", "superseded")


def test_a_timed_out_stage_says_so(monkeypatch: pytest.MonkeyPatch, stack: Stack) -> None:
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "2")
    with open_desk(stack) as desk:
        doc = stack.upload("in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD))
        arn = desk.start(doc)
        token = desk.links(doc)[0]
        assert desk.result(arn)["reason"] == "review-timeout"
        time.sleep(0.5)
        answer = call("GET", f"/review/{token}")
        assert answer["statusCode"] == 409 and "ran out" in answer["body"]
        assert post_decision(token, "approve")["statusCode"] == 409


def test_a_run_that_ended_without_a_decision_says_so(desk: Desk) -> None:
    doc = desk.stack.upload("in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD))
    arn = desk.start(doc, timeout=3)  # the execution times out while the stage waits
    token = desk.links(doc)[0]
    ended = desk.runner.wait_for_result(arn, timeout=30)
    assert ended.status is InvocationStatus.FAILED and ended.result is None, ended
    assert ended.execution_status is not None and ended.execution_status.value == "TIMED_OUT"
    answer = call("GET", f"/review/{token}")
    assert answer["statusCode"] == 409 and "its run ended" in answer["body"]
    assert post_decision(token, "approve")["statusCode"] == 409


def test_no_working_link_outside_the_mailbox(
    desk: Desk, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    # Everything the functions log at the levels they run at (botocore's DEBUG wire dumps,
    # which print every request body, mail included, are off in Lambda as here).
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="docflow")
    doc = desk.stack.upload("in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD))
    arn = desk.start(doc)
    first = desk.links(doc, stage=0, want=2)
    call("GET", f"/review/{first[0]}")
    assert post_decision(first[0], "approve")["statusCode"] == 200
    second = desk.links(doc, stage=1)
    assert post_decision(second[0], "reject", "no card data here")["statusCode"] == 200
    result = desk.result(arn)
    assert result["status"] == "archived"

    tokens = [*first, *second]
    s = load_settings()
    places = {
        "read model": json.dumps(
            aws.client("dynamodb").scan(TableName=s.table_name)["Items"], default=str
        ),
        "history": json.dumps(
            desk.runner.get_execution_history(arn, include_execution_data=True).to_dict(),
            default=str,
        ),
        "result": json.dumps(result),
        "logs": caplog.text + capsys.readouterr().out,
    }
    for where, text in places.items():
        for token in tokens:
            assert token not in text, where
        assert "/review/v1." not in text, where
    links_table = json.dumps(aws.client("dynamodb").scan(TableName=s.links_table)["Items"])
    assert not any(token in links_table for token in tokens)


def test_a_reviewer_corrects_a_field_on_the_page(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, stack: Stack
) -> None:
    from docflow.rules.model import DEFAULT_RULES

    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(DEFAULT_RULES))  # the shipped [fields] table
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "30")
    load_settings.cache_clear()
    request.addfinalizer(load_settings.cache_clear)  # settings read with this test's rules
    with open_desk(stack) as desk:
        doc = stack.upload("in/smudged.pdf", pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL))
        arn = desk.start(doc)
        token = desk.links(doc)[0]
        page = call("GET", f"/review/{token}")["body"]
        assert "Key fields" in page and 'name="field.total_amount"' in page
        assert "a key field needs a person&#39;s check" in page

        def approve(total: str) -> dict:
            form = {"decision": "approve", "field.total_amount": total}
            return call(
                "POST",
                f"/review/{token}",
                urlencode(form),
                **{"content-type": "application/x-www-form-urlencoded"},
            )

        refused = approve("one thousand")
        assert refused["statusCode"] == 400 and "Total amount" in refused["body"]
        assert 'value="one thousand"' in refused["body"]  # what they typed is kept
        assert not desk.callbacks.sent
        assert approve("1,100.00")["statusCode"] == 200
        out = desk.result(arn)
    assert out["status"] == "finalized"
    total = out["fields"]["total_amount"]
    assert total["value"] == "1100.00" and total["correctedBy"].endswith("@example.com")
    history = ReadModel(load_settings().table_name).show(doc.document_id)["history"]
    approved = [h for h in history if h["status"] == "approved"]
    assert approved[0]["payload"]["corrections"]["total_amount"]["value"] == "1100.00"


RISKY_CONTRACT = """MASTER SERVICES AGREEMENT
This Master Services Agreement is made between Acme Supplies Ltd and Globex Corporation Inc.
The parties hereby agree to the terms and conditions below. Governing law: Delaware.
This agreement renews automatically for successive one-year terms unless terminated."""
LIABILITY_PAGE = """LIABILITY
The supplier's liability under this agreement is unlimited.
Signature: ______ for Acme Supplies Ltd"""


def test_the_risk_stage_shows_the_reasons_beside_their_pages(desk: Desk) -> None:
    doc = desk.stack.upload("in/msa.pdf", pdfs.text_pdf(RISKY_CONTRACT, LIABILITY_PAGE))
    arn = desk.start(doc)
    assert post_decision(desk.links(doc, stage=0)[0], "approve")["statusCode"] == 200  # legal
    body = call("GET", f"/review/{desk.links(doc, stage=1)[0]}")["body"]

    why = "the risk was rated high: unlimited-liability (page 2); automatic-renewal (page 1)"
    assert why in body

    def section(n: int) -> str:
        start = body.index(f'id="page-{n}"')
        end = body.find('id="page-', start + 1)
        return body[start : end if end > 0 else len(body)]

    assert "risk: liability is unlimited" in section(2)
    assert "risk: the agreement renews automatically" in section(1)
    assert "liability is unlimited" not in section(1)
    assert post_decision(desk.links(doc, stage=1)[0], "approve")["statusCode"] == 200
    assert desk.result(arn)["status"] == "finalized"


def test_a_newer_version_ends_an_older_run_waiting_at_its_second_stage(desk: Desk) -> None:
    # The register lists every stage's wait; a run whose first stage was decided has two, and
    # the newer run must end the open one (not stop on the decided one) and go on.
    old = desk.stack.upload("in/po.pdf", pdfs.text_pdf(pdfs.PURCHASE_ORDER))
    old_arn = desk.start(old)
    assert post_decision(desk.links(old, stage=0)[0], "approve")["statusCode"] == 200
    finance_link = desk.links(old, stage=1)[0]
    assert call("GET", f"/review/{finance_link}")["statusCode"] == 200
    read_model = ReadModel(load_settings().table_name)
    waiting = {i["documentId"]: i for i in read_model.pending().items}
    assert waiting[old.document_id]["stage"] == "review-1"  # `docflow pending` lists it

    new = newer(old, desk.stack, pdfs.text_pdf(pdfs.PURCHASE_ORDER + "\nQuantity: 41 units"))
    new_arn = desk.start(new)

    ended = result_json(desk.runner.wait_for_result(old_arn, timeout=60))
    assert (ended["status"], ended["reason"]) == ("archived", "superseded")
    answer = call("GET", f"/review/{finance_link}")
    assert answer["statusCode"] == 409
    assert "A newer version of this document replaced" in answer["body"]
    # The newer run goes on to its own first stage and through both.
    assert post_decision(desk.links(new, stage=0)[0], "approve")["statusCode"] == 200
    assert post_decision(desk.links(new, stage=1)[0], "approve")["statusCode"] == 200
    assert desk.result(new_arn)["status"] == "finalized"
    # Ended stages leave the register's open waits, decided ones included.
    entry = RegisterStore(load_settings().links_table).get_wait(f"REG#{new.document_id}") or {}
    assert not entry.get("openWaits")
    assert new.document_id not in {i["documentId"] for i in read_model.pending().items}


def test_the_open_waits_of_older_runs_come_in_their_order() -> None:
    # OpenWait has no ordering of its own: two waits of an older run (a stage a crash left
    # listed beside the open one) once made the supersede step raise TypeError.
    runs = [DocumentRef("bucket", "in/po.pdf", f"v{n}", sequencer=f"{n:04X}") for n in (1, 2, 3)]
    item = {"openWaits": {f"{r.run_order}|STAGE#{n}" for n, r in enumerate(runs)}}
    assert [w.pk for w in _waits_before(item, runs[2])] == ["STAGE#0", "STAGE#1"]
