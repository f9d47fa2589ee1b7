"""Masking on the review page (#31.3): the page text is masked whole and cut after, and the
extracted field values pass the same detectors."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from docflow import aws
from docflow.readmodel.queries import ReadModel
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from docflow.storage import page_text_key
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.review_desk import call, open_desk

CARD = "4111 1111 1111 1111"
# A purchase order "number" that is a card number, and a total nobody can read (so the key
# fields stage asks a person).
INVOICE = pdfs.INVOICE_UNREADABLE_TOTAL.replace(
    "Invoice date:", f"PO number: {CARD.replace(' ', '')}\nInvoice date:"
)


@pytest.fixture
def shipped(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(DEFAULT_RULES))  # the shipped [fields] table
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "30")
    load_settings.cache_clear()
    request.addfinalizer(load_settings.cache_clear)


def test_a_card_in_a_field_and_across_the_cut_is_masked(stack: Stack, shipped: None) -> None:
    with open_desk(stack) as desk:
        doc = stack.upload("in/po.pdf", pdfs.text_pdf(INVOICE))
        arn = desk.start(doc)
        token = desk.links(doc)[0]
        page = call("GET", f"/review/{token}")["body"]
        assert 'name="field.po_number"' in page
        assert 'value="•••• 1111"' in page  # the field, masked like the text
        assert "4111 1111" not in page and "4111111111111111" not in page

        # A long page whose card number straddles the 20,000-character cut.
        s = load_settings()
        long_text = "x" * 19_990 + " " + CARD + " end"
        aws.client("s3").put_object(
            Bucket=s.artifact_bucket, Key=page_text_key(doc, 1), Body=long_text.encode()
        )
        page = call("GET", f"/review/{token}")["body"]
        assert "4111 1111" not in page and "4111" not in page.split("x" * 100)[-1][:40]

        # Approving with the value as shown is no correction of it.
        form = {"decision": "approve", "field.po_number": "•••• 1111", "field.total_amount": "1"}
        answer = call(
            "POST",
            f"/review/{token}",
            urlencode(form),
            **{"content-type": "application/x-www-form-urlencoded"},
        )
        assert answer["statusCode"] == 200, answer["body"]
        # The card sends it on to privacy: approved too, so the run ends now, not at the
        # stage's 30 s timeout.
        (privacy,) = desk.links(doc, stage=1)
        answer = call(
            "POST",
            f"/review/{privacy}",
            urlencode({"decision": "approve"}),
            **{"content-type": "application/x-www-form-urlencoded"},
        )
        assert answer["statusCode"] == 200, answer["body"]
        assert desk.result(arn)["status"] == "finalized"
    history = ReadModel(s.table_name).show(doc.document_id)["history"]
    approved = [h for h in history if h["status"] == "approved"]
    assert "po_number" not in (approved[0]["payload"].get("corrections") or {})
