"""The review and inbox pages' rough edges (#35.14, #35.13): readable field labels and check
messages, a 409 heading without its HTTP code, blank pages named, same-named inbox items told
apart by their folder, a triage item's reason in words."""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import pytest

from docflow.review.access.inbox_links import InboxLinks
from docflow.review.access.keys import build_key_source
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import Stack
from tests.support.review_desk import call, open_desk, wait_until

INVOICE = pdfs.INVOICE_UNREADABLE_TOTAL.replace(
    "Invoice date:", "PO number: PO-7781\nInvoice date:"
)
CONTRACT = """SERVICES AGREEMENT
This agreement is made between the parties named below.
The parties hereby agree to the terms and conditions.
Governing law: Delaware."""


@pytest.fixture
def shipped(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(DEFAULT_RULES))
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "30")
    load_settings.cache_clear()
    request.addfinalizer(load_settings.cache_clear)


def test_labels_checks_and_the_closed_heading(stack: Stack, shipped: None) -> None:
    with open_desk(stack) as desk:
        doc = stack.upload("in/po.pdf", pdfs.text_pdf(INVOICE))
        desk.start(doc)
        token = desk.links(doc)[0]
        page = call("GET", f"/review/{token}")["body"]
        assert ">PO number" in page and "Po number" not in page
        assert "Total amount is there but could not be read" in page
        assert "total_amount is there" not in page
        form = urlencode({"decision": "approve", "field.total_amount": "1,100.00"})
        headers = {"content-type": "application/x-www-form-urlencoded"}
        assert f'href="/review/{token}/pages/1"' in page and "Open page 1 full size" in page
        done = call("POST", f"/review/{token}", form, **headers)
        assert done["statusCode"] == 200
        # The confirmation repeats what was approved: the correction and the values read.
        assert "The values you approved" in done["body"]
        assert "<dt>Total amount</dt><dd>1100.00</dd>" in done["body"]
        assert "<dt>PO number</dt><dd>PO-7781</dd>" in done["body"]
        # One date format on the pages ("01 Dec 2026, 10:00 UTC"), never a raw ISO stamp.
        assert re.search(r"at \d\d [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC", done["body"])
        assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:", done["body"])
        closed = call("GET", f"/review/{token}")
        assert closed["statusCode"] == 409
        assert "<h1>This review is closed</h1>" in closed["body"]
        assert "(409)" not in closed["body"]
        assert "<p>This link was already used.</p>" in closed["body"]


def test_blank_pages_and_same_named_items(stack: Stack) -> None:
    s = load_settings()
    with open_desk(stack) as desk:
        one = stack.upload("in/north/contract.pdf", pdfs.text_pdf(CONTRACT, ""))
        two = stack.upload("in/south/contract.pdf", pdfs.text_pdf(CONTRACT))
        for doc in (one, two):
            desk.start(doc)
        legal = "legal@example.com"
        wait_until(lambda: sum(m.to == legal for m in links_in(moto_sent_mail())) >= 2)
        first = next(m.token for m in links_in(moto_sent_mail()) if m.run_id == one.run_id)
        page = call("GET", f"/review/{first}")["body"]
        assert "Blank page (no ink, not read): 2." in page
        assert "blank, not read" in page and "Page 2 is blank: no text" in page
        assert "read by blank" not in page and "(blank)" not in page

        inbox = InboxLinks(s.links_table).issue(legal, build_key_source(s).ring(), 3600)
        listed = json.loads(call("GET", f"/inbox/{inbox}", accept="application/json")["body"])
        assert sorted(i["folder"] for i in listed["items"]) == ["in/north", "in/south"]
        for item in listed["items"]:  # JSON keeps ISO 8601
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d.*", item["since"])
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", item["deadline"])
        html = call("GET", f"/inbox/{inbox}")["body"]
        assert not re.search(r"\d{4}-\d\d-\d\d[T ]\d\d:", html)
        assert "in in/north/" in html and "in in/south/" in html


def test_a_triage_item_in_the_inbox_says_why_in_words(stack: Stack, shipped: None) -> None:
    statement = """NORTHWIND TRADING LTD
Statement of account
Document number: NW-5521
Net amount: 200.00 GBP"""  # no type's words reach its threshold: triage
    s = load_settings()
    with open_desk(stack) as desk:
        doc = stack.upload("in/statement.pdf", pdfs.text_pdf(statement))
        desk.start(doc)
        desk.links(doc, stage=0)  # the triage stage is open
        accounts = "accounts@example.com"
        inbox = InboxLinks(s.links_table).issue(accounts, build_key_source(s).ring(), 3600)
        html = call("GET", f"/inbox/{inbox}")["body"]
        listed = json.loads(call("GET", f"/inbox/{inbox}", accept="application/json")["body"])
    (item,) = [i for i in listed["items"] if i["stage"] == "triage"]
    assert "no document type fits: pick one" in html
    assert "unknown-type" not in html and "unknown-type" not in json.dumps(item)
