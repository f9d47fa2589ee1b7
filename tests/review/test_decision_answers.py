"""What a reviewer may answer and what the page answers back (issue 57.5 and 57.7), through the
callback API's real handler on real runs of the testing runner (the shipped rules):

- the `duplicate` stage offers "It is a duplicate" as a reason to reject, which needs no
  comment; the run archives with that reason; no other stage offers it, and a POST that
  gives it there is refused and decides nothing;
- the answer page repeats the reviewer's comment, escaped;
- a reviewer who ticks "Propose this supplier" is told it is a proposal an operator approves,
  never that the supplier was added to the registry."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.suppliers.papers import blauwal_invoice
from tests.support.aws import Stack
from tests.support.review_desk import Desk, call, open_desk

FORM = {"content-type": "application/x-www-form-urlencoded"}


@pytest.fixture
def desk(stack: Stack, shipped_rules: None) -> Iterator[Desk]:
    with open_desk(stack, Desk) as desk:
        yield desk


def post(token: str, **form: str) -> dict:
    return call("POST", f"/review/{token}", urlencode(form), **FORM)


def reasons_offered(page: str) -> list[str]:
    reasons = page.split('id="reason"', 1)[1].split("</fieldset>", 1)[0]
    return [part.split('"', 1)[0] for part in reasons.split('name="reason" value="')[1:]]


def test_the_duplicate_stage_is_rejected_as_a_duplicate_without_a_comment(desk: Desk) -> None:
    first = desk.stack.upload("in/scan.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    assert desk.result(desk.start(first))["status"] == "finalized"
    copy = desk.stack.upload("mail/copy.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS + "\nCopy"))
    arn = desk.start(copy)
    (token,) = desk.links(copy)

    page = call("GET", f"/review/{token}")["body"]
    offered = reasons_offered(page)
    assert offered[0] == "duplicate" and "other" in offered
    assert "It is a duplicate of the document sent before" in page
    answer = post(token, decision="reject", reason="duplicate")
    assert answer["statusCode"] == 200, answer["body"][-600:]
    assert "Reason: It is a duplicate of the document sent before." in answer["body"]
    out = desk.result(arn)
    assert out["status"] == "archived"
    state = ReadModel(load_settings().table_name).show(copy.document_id)["state"] or {}
    assert (state.get("stageName"), state.get("rejectReason")) == ("duplicate", "duplicate")


def test_no_other_stage_offers_or_takes_the_duplicate_reason(desk: Desk) -> None:
    doc = desk.stack.upload("in/smudged.pdf", pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL))
    desk.start(doc)
    (token,) = desk.links(doc)
    page = call("GET", f"/review/{token}")["body"]
    assert "duplicate" not in reasons_offered(page)
    refused = post(token, decision="reject", reason="duplicate")
    assert refused["statusCode"] == 400
    assert "Choose why you reject the document" in refused["body"]
    assert call("GET", f"/review/{token}")["statusCode"] == 200  # nothing was decided


def test_the_answer_page_repeats_the_comment_escaped(desk: Desk) -> None:
    doc = desk.stack.upload("in/smudged.pdf", pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL))
    arn = desk.start(doc)
    (token,) = desk.links(doc)
    said = "Paid by card on <b>10 March</b> & filed"
    answer = post(token, decision="reject", reason="other", comment=said)
    assert answer["statusCode"] == 200
    body = answer["body"]
    assert "Paid by card on &lt;b&gt;10 March&lt;/b&gt; &amp; filed" in body
    assert "<b>10 March</b>" not in body
    assert desk.result(arn)["status"] == "archived"


def test_proposing_a_supplier_is_answered_as_a_proposal(desk: Desk) -> None:
    invoice = desk.stack.upload("in/offer.pdf", blauwal_invoice("E2026000000017"))
    arn = desk.start(invoice)
    (token,) = desk.links(invoice)
    answer = post(token, decision="approve", addSupplier="yes")
    assert answer["statusCode"] == 200
    body = answer["body"]
    assert "added to the registry" not in body
    assert "proposed for the registry" in body and "an operator other than you" in body
    assert desk.result(arn)["supplierProposed"]["status"] == "pending"


def test_a_new_version_of_a_finalized_bill_says_approving_replaces_it(desk: Desk) -> None:
    """The same file saved again under its key (issue 56): its page names the finalized
    version as this document's own earlier one, and what approving does."""
    data = pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS)
    first = desk.stack.upload("in/bill.pdf", data)
    assert desk.result(desk.start(first))["status"] == "finalized"
    again = desk.stack.upload("in/bill.pdf", data + b"\n% saved again\n")
    desk.start(again)
    (token,) = desk.links(again)
    page = call("GET", f"/review/{token}")["body"]
    assert "the same invoice may have been sent before" in page
    assert "an earlier version of this file" in page
    assert "approving this one finalizes it as its replacement" in page
