"""Triage through the durable testing runner and the callback API's real handler: a document no
type fits waits at `triage`; the reviewer's pick is recorded (who, which type), the picked
type's own stages and fields follow; "none of these" archives it; a pick that is not offered
is refused by the API and, sent past it, is an invalid decision for the orchestrator."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from aws_durable_execution_sdk_python.serdes import EXTENDED_TYPES_SERDES

from docflow import aws
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.table import to_ddb
from docflow.review.access.keys import build_key_source
from docflow.review.access.signing import TokenClaims, mint, sign_body, token_hash
from docflow.review.stage.decision import Decision, DecisionError, unclassifiable
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json
from tests.support.review_desk import Desk, call, open_desk

TYPES = ["invoice", "credit-note", "contract", "report", "purchase-order"]
# An invoice in all but name: no type's words reach its threshold, so nobody can place it.
STATEMENT = """NORTHWIND TRADING LTD
12 Harbour Road, Leeds LS1 4AB

Statement of account
Document number: NW-5521
Issue date: 2026-03-04
Net amount: 200.00 GBP
Tax: 40.00 GBP"""
FORM = {"content-type": "application/x-www-form-urlencoded"}


@pytest.fixture
def desk(stack: Stack, shipped_rules: None) -> Iterator[Desk]:
    """The shipped rules (their [triage] and [fields]), with waits short enough for a test."""
    with open_desk(stack) as opened:
        yield opened


def post(token: str, **form: str) -> dict:
    return call("POST", f"/review/{token}", urlencode(form), **FORM)


def history(document_id: str) -> list[dict]:
    return ReadModel(load_settings().table_name).show(document_id)["history"]


def test_the_picked_type_is_recorded_and_its_fields_are_read(desk: Desk) -> None:
    doc = desk.stack.upload("in/statement.pdf", pdfs.text_pdf(STATEMENT))
    arn = desk.start(doc)
    (token,) = desk.links(doc, stage=0)

    page = call("GET", f"/review/{token}")["body"]
    assert "no document type fits it" in page and "What type of document is this?" in page
    offered = [v for v in TYPES if f'name="docType" value="{v}"' in page]
    assert offered == TYPES and 'value="unclassifiable"' in page
    assert 'id="fields"' not in page  # the picked type's fields are read afterwards

    # Approve with no type: refused on the page, the error next to the choice.
    refused = post(token, decision="approve")
    assert refused["statusCode"] == 400
    assert '<a href="#doctype">Choose the document&#39;s type</a>' in refused["body"]
    assert 'class="group error"' in refused["body"]
    assert post(token, decision="approve", docType="spaceship")["statusCode"] == 400
    assert not desk.callbacks.sent

    done = post(token, decision="approve", docType="invoice")
    assert "You approved the document as type invoice" in done["body"]

    # The invoice's fields were read, and the missing total sends them to a person.
    (fields_token,) = desk.links(doc, stage=1)
    shown = json.loads(call("GET", f"/review/{fields_token}", accept="application/json")["body"])
    assert shown["stage"] == "fields" and shown["summary"]["docType"] == "invoice"
    assert shown["summary"]["fields"]["invoice_number"]["value"] == "NW-5521"
    checks = [(c["field"], c["code"]) for c in shown["summary"]["fieldChecks"]]
    assert ("total_amount", "missing") in checks  # (and any field under its fitted threshold)
    post(fields_token, **{"decision": "approve", "field.total_amount": "240.00"})

    result = desk.runner.wait_for_result(arn, timeout=60)
    out = result_json(result)
    assert (out["status"], out["docType"]) == ("finalized", "invoice")
    assert out["triage"] == {
        "from": "unknown",
        "docType": "invoice",
        "by": "accounts@example.com",
        "at": out["triage"]["at"],
    }
    values = {name: f["value"] for name, f in out["fields"].items()}
    assert values["invoice_number"] == "NW-5521" and values["total_amount"] == "240.00"
    assert values["vendor_name"] == "NORTHWIND TRADING LTD"
    # The type's stages and fields came from two steps: a replay reads their checkpoints.
    route = EXTENDED_TYPES_SERDES.deserialize(result.get_step("route after triage").result)
    extracted = EXTENDED_TYPES_SERDES.deserialize(result.get_step("extract after triage").result)
    assert route == {"stages": [], "extract": True}
    assert extracted["fields"]["currency"]["value"] == "GBP"

    events = history(out["documentId"])
    classified = next(h for h in events if h["status"] == "classified")["payload"]
    assert classified["docType"] == "unknown"
    assert [s["name"] for s in classified["stages"]] == ["triage"]
    picked = next(h for h in events if h["status"] == "approved")["payload"]
    assert (picked["stageName"], picked["docType"], picked["reviewer"]) == (
        "triage",
        "invoice",
        "accounts@example.com",
    )
    state = ReadModel(load_settings().table_name).show(out["documentId"])["state"]
    assert state["docType"] == "invoice" and state["status"] == "finalized"


# Words of three types, none with half the hits: the classifier guesses `contract`, unsure.
MIXED = """NORTHWIND TRADING LTD
Invoice number: NW-5521
Issue date: 2026-03-04
Under the framework agreement the parties hereby confirm delivery.
Purchase order: PO-7781, ship to Leeds depot
Net amount: 200.00 GBP
Tax: 40.00 GBP
Total: 240.00 GBP"""


def test_a_pick_unlike_an_unsure_guess_drops_the_guess_stages(desk: Desk) -> None:
    doc = desk.stack.upload("in/mixed.pdf", pdfs.text_pdf(MIXED))
    arn = desk.start(doc)
    (token,) = desk.links(doc, stage=0)
    page = call("GET", f"/review/{token}")["body"]
    assert "it may not be of type contract" in page
    post(token, decision="approve", docType="invoice")

    result = desk.runner.wait_for_result(arn, timeout=60)
    out = result_json(result)
    # The guess's `legal` stage is gone; the invoice's fields all check, so nobody else looks.
    assert (out["status"], out["docType"], out["fieldChecks"]) == ("finalized", "invoice", [])
    assert out["triage"]["from"] == "contract"
    assert out["fields"]["total_amount"]["value"] == "240.00"
    events = history(out["documentId"])
    classified = next(h for h in events if h["status"] == "classified")["payload"]
    # The guess was extracted as a contract too (a contract declares its key terms): its
    # `fields` stage goes with its `legal` one.
    assert [(s["name"], s["because"]) for s in classified["stages"]] == [
        ("triage", "type-unsure"),
        ("legal", "type"),
        ("fields", "fields"),
    ]
    assert [h["payload"]["stageName"] for h in events if h["status"] == "pending-review"] == [
        "triage"
    ]


def test_none_of_these_archives_it_as_unclassifiable(desk: Desk) -> None:
    doc = desk.stack.upload("in/doodle.pdf", pdfs.text_pdf("Shopping list\nmilk, eggs"))
    arn = desk.start(doc)
    (token,) = desk.links(doc, stage=0)

    done = post(token, decision="approve", docType="unclassifiable", comment="a note")
    assert "archived as unclassifiable" in done["body"]

    result = desk.runner.wait_for_result(arn, timeout=60)
    out = result_json(result)
    assert (out["status"], out["reason"], out["docType"]) == (
        "archived",
        "unclassifiable",
        "unknown",
    )
    names = [op.name for op in result.get_all_operations()]
    assert "route after triage" not in names and "finalize" not in names
    events = history(out["documentId"])
    rejected = next(h for h in events if h["status"] == "rejected")["payload"]
    assert (rejected["rejectReason"], rejected["reason"]) == ("unclassifiable", "unclassifiable")
    assert events[-1]["status"] == "archived"
    assert events[-1]["payload"]["reason"] == "unclassifiable"


def machine_link(desk: Desk, doc: object, callback_id: str) -> tuple[str, bytes]:
    """A machine link to triage stage 0 (a service that sorts documents), made by hand as a
    deployment hands one to a service; returns the token and the current signing key."""
    s = load_settings()
    ring = build_key_source(s).ring()
    claims = TokenClaims(
        doc.document_id,  # type: ignore[attr-defined]
        doc.version,  # type: ignore[attr-defined]
        doc.run_id,  # type: ignore[attr-defined]
        0,
        "triage",
        "service:sorter",
        int(time.time()) + 600,
        "t1",
        "machine",
    )
    token = mint(claims, ring)
    item = {
        "pk": f"LINK#{token_hash(token)}",
        "callbackId": callback_id,
        "documentId": doc.document_id,  # type: ignore[attr-defined]
        "version": doc.version,  # type: ignore[attr-defined]
        "runId": doc.run_id,  # type: ignore[attr-defined]
        "runOrder": doc.run_order,  # type: ignore[attr-defined]
        "summary": {"docType": "unknown", "typeChoices": TYPES},
        "state": "open",
    }
    aws.client("dynamodb").put_item(TableName=s.links_table, Item=to_ddb(item))
    # The sorter's own secret (a machine request is never signed with the reviewers' keys).
    secret = "sorter-" + "s" * 40
    os.environ["DOCFLOW_INTEGRATION_SECRETS"] = json.dumps({"service:sorter": secret})
    return token, secret.encode()


def signed(token: str, key: bytes, body: dict) -> dict:
    raw, now = json.dumps(body).encode(), str(int(time.time()))
    headers = {"x-docflow-timestamp": now, "x-docflow-signature": sign_body(key, now, token, raw)}
    headers["accept"] = "application/json"
    return call("POST", f"/callbacks/{token}", raw, **headers)


def test_a_machine_pick_adds_the_types_own_stages(desk: Desk) -> None:
    doc = desk.stack.upload("in/memo.pdf", pdfs.text_pdf("Memo\nPlease file this somewhere."))
    arn = desk.start(doc)
    callback_id = desk.runner.wait_for_callback(arn, name="review-0 create callback id")
    token, key = machine_link(desk, doc, callback_id)

    bad = signed(token, key, {"approved": True, "docType": "spaceship"})
    assert bad["statusCode"] == 400 and json.loads(bad["body"])["error"] == "bad-doc-type"
    missing = signed(token, key, {"approved": True})
    assert missing["statusCode"] == 400
    assert not desk.callbacks.sent

    assert signed(token, key, {"approved": True, "docType": "contract"})["statusCode"] == 200
    # A contract goes to legal; its declared key terms are extracted after the pick (a memo
    # prints none, and none is required, so no person is asked for them).
    (legal,) = desk.links(doc, stage=1)
    page = call("GET", f"/review/{legal}")["body"]
    assert "every document of type contract goes here" in page
    post(legal, decision="approve")

    result = desk.runner.wait_for_result(arn, timeout=60)
    out = result_json(result)
    assert (out["status"], out["docType"]) == ("finalized", "contract")
    assert out["triage"]["by"] == "service:sorter"
    names = [op.name for op in result.get_all_operations()]
    assert "route after triage" in names and "extract after triage" in names
    stages = [
        h["payload"]["stageName"] for h in history(out["documentId"]) if h["status"] == "approved"
    ]
    assert stages == ["triage", "legal"]


def test_a_type_not_offered_is_an_invalid_decision(desk: Desk) -> None:
    """Sent straight to the callback, past the API (a buggy service that holds the id)."""
    doc = desk.stack.upload("in/memo2.pdf", pdfs.text_pdf("Memo\nSecond note."))
    arn = desk.start(doc)
    callback_id = desk.runner.wait_for_callback(arn, name="review-0 create callback id")
    answer = {"approved": True, "reviewer": "service:sorter", "docType": "spaceship"}
    desk.runner.send_callback_success(callback_id, json.dumps(answer).encode())

    out = result_json(desk.runner.wait_for_result(arn, timeout=60))
    assert (out["status"], out["reason"], out["docType"]) == (
        "archived",
        "invalid-decision",
        "unknown",
    )


def test_parse_decision_checks_the_pick() -> None:
    def parse(value: dict, choices: list[str] | None = TYPES) -> Decision:
        return Decision.parse(json.dumps(value), choices)

    def refused(value: dict, choices: list[str] | None = TYPES) -> DecisionError:
        with pytest.raises(DecisionError) as error:
            parse(value, choices)
        assert not error.value.decision.approved, value
        return error.value

    assert parse({"approved": True, "docType": "invoice"}).doc_type == "invoice"
    for bad in (
        {"approved": True},
        {"approved": True, "docType": "spaceship"},
        {"approved": True, "docType": ["invoice"]},
        {"approved": True, "docType": "unclassifiable"},
    ):
        assert refused(bad).field == "docType", bad
    # A pick on a stage that is not triage is invalid too; none is fine there.
    assert refused({"approved": True, "docType": "invoice"}, None).field == "docType"
    assert parse({"approved": True}, None).approved
    assert unclassifiable(parse({"approved": False, "rejectReason": "unclassifiable"}), TYPES)
    elsewhere = parse({"approved": False, "rejectReason": "unclassifiable"}, None)
    assert not unclassifiable(elsewhere, None)
