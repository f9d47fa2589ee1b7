"""The `duplicate` stage's review page through the callback API's real handler, on real runs of
the testing runner (the shipped rules): it says why the invoice is here and names the earlier
document (its id, status, number, date and total), linked to the local dashboard's document
page where the local stack serves one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.review_desk import Desk, call, open_desk, post_decision


@pytest.fixture
def desk(stack: Stack, shipped_rules: None) -> Iterator[Desk]:
    with open_desk(stack, Desk) as desk:
        yield desk


def test_the_duplicate_page_names_the_earlier_document(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = desk.stack.upload("in/scan.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    assert desk.result(desk.start(first))["status"] == "finalized"
    copy = desk.stack.upload("mail/copy.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS + "\nCopy"))
    arn = desk.start(copy)
    (token,) = desk.links(copy)

    body = call("GET", f"/review/{token}")["body"]
    assert "duplicate: the same invoice may have been sent before" in body
    earlier = body.split('id="duplicate-of"', 1)[1].split("</ul>", 1)[0]
    for fact in (first.document_id, "finalized", "INV-20931", "2026-03-04", "1100.00 USD"):
        assert fact in earlier
    assert "in/scan.pdf" in earlier and "/dashboard/doc/" not in earlier  # no dashboard here
    # On the local stack the dashboard shares the review port: the id links to its page.
    monkeypatch.setenv("DOCFLOW_LOCAL_RUNNER_URL", "http://127.0.0.1:9")
    load_settings.cache_clear()
    linked = call("GET", f"/review/{token}")["body"]
    assert f'<a href="/dashboard/doc/{first.document_id}">{first.document_id}</a>' in linked
    monkeypatch.delenv("DOCFLOW_LOCAL_RUNNER_URL")
    load_settings.cache_clear()

    assert post_decision(token, "approve")["statusCode"] in (200, 303)
    assert desk.result(arn)["status"] == "finalized"
