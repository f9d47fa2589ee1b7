"""The review page, the decision and the record follow the type's declaration (docs/fields.md):
each kind's input, in declaration order, an empty input for a field not read, a table editor
with its rows and three blank rows; a value of the wrong kind refused beside its input with what
the reviewer typed kept; a table's correction (a cell edited, a row removed, a row added) as the
whole list of rows, in the final fields, the history and `docflow show`; and the supplier
profile never learning a table (in a real Chromium: tests/browser/test_declared_fields_browser.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from docflow import aws
from docflow.cli.queries import print_fields
from docflow.document import DocumentSummary
from docflow.pipeline.extract import apply_corrections
from docflow.pipeline.learn import profile_values
from docflow.readmodel.queries import ReadModel
from docflow.review.decision_form import DecisionForm, FieldProblem, checked_decision
from docflow.review.stage.decision import Decision, DecisionError
from docflow.settings import load_settings
from tests.support.aws import Stack
from tests.support.claim_form import (
    CHECK,
    CLAIMS,
    READ,
    call,
    claim_decl,
    claim_desk,
    link_of,
    one,
    post_form,
    render,
    upload_claim,
)


def read(fields: dict[str, Any]) -> DocumentSummary:
    """A claim form's summary with these fields as read."""
    return DocumentSummary.from_json({"docType": "claim-form", "fields": fields})


def test_each_kind_has_its_input_in_declaration_order() -> None:
    page = render(READ)
    inputs = page.xpath('//fieldset[@id="fields"]//*[starts-with(@id, "field-")]')
    assert [i.get("id")[6:] for i in inputs] == [
        "claim_date",
        "cover",
        "police_report",
        "amount_claimed",
        "holder_address",
        "items",
    ]
    date = one(page, '//*[@id="field-claim_date"]')
    assert (date.tag, date.get("type"), date.get("value")) == ("input", "date", "2026-03-02")
    cover = one(page, '//*[@id="field-cover"]')
    assert cover.tag == "select" and cover.get("name") == "field.cover"
    assert [o.get("value") for o in cover.xpath("option")] == ["", "Comprehensive", "Third party"]
    assert one(cover, "option[@selected]").get("value") == "Third party"
    tick = one(page, '//*[@id="field-police_report"]')
    assert (tick.get("type"), tick.get("value")) == ("checkbox", "true") and tick.get("checked")
    # Before it, the value an unticked box sends: "false", as this one was read.
    hidden = one(page, '//input[@type="hidden"][@name="field.police_report"]')
    assert hidden.get("value") == "false"
    amount = one(page, '//*[@id="field-amount_claimed"]')
    assert (amount.get("inputmode"), amount.get("value")) == ("decimal", "455.00")
    # Not read: an empty text area to add it, its hint the declaration's description.
    address = one(page, '//*[@id="field-holder_address"]')
    assert address.tag == "textarea" and (address.text or "") == ""
    assert "not read" in one(page, '//label[@for="field-holder_address"]').text_content()
    hint = one(page, '//*[@id="hint-holder_address"]').text_content()
    assert hint == "The policy holder's postal address."


def test_a_table_is_its_rows_and_three_blank_rows_to_add() -> None:
    editor = one(render(READ), '//*[@id="field-items"]')
    rows = editor.xpath(".//tbody/tr")
    assert [r.get("class") for r in rows] == ["read", "read", "new", "new", "new"]
    cells = [[i.get("value") for i in r.xpath(".//input[not(@type='checkbox')]")] for r in rows]
    assert cells == [["Windscreen", "420.00"], ["Mirror", "35.00"], ["", ""], ["", ""], ["", ""]]
    names = [i.get("name") for i in rows[1].xpath(".//input")]
    assert names == ["table.items.1.item", "table.items.1.cost", "table.items.1.remove"]
    assert rows[4].xpath(".//input/@name") == ["table.items.4.item", "table.items.4.cost"]
    assert one(rows[0], './/input[@name="table.items.0.cost"]').get("inputmode") == "decimal"
    # A type with no table read still gets its editor: three blank rows.
    empty = one(render({}), '//*[@id="field-items"]')
    assert [r.get("class") for r in empty.xpath(".//tbody/tr")] == ["new"] * 3


def form_of(pairs: list[tuple[str, str]]) -> DecisionForm:
    from urllib.parse import urlencode

    return DecisionForm.parse(urlencode([("decision", "approve"), *pairs]))


def test_a_table_correction_edits_removes_and_adds_rows() -> None:
    form = form_of(
        [
            ("table.items.0.item", "Windscreen"),
            ("table.items.0.cost", "€ 440,00"),  # edited
            ("table.items.1.item", "Mirror"),
            ("table.items.1.cost", "35.00"),
            ("table.items.1.remove", "yes"),  # removed
            ("table.items.2.item", "Bulb"),  # added
            ("table.items.2.cost", "8"),
            ("table.items.3.item", ""),  # blank: dropped
            ("table.items.3.cost", ""),
            ("field.police_report", "false"),  # unticked: the hidden input alone
            ("field.cover", "Third party"),  # as read: no correction
        ]
    )
    decision = checked_decision(form, link_of(READ), CLAIMS, (), claim_decl())
    rows = [{"item": "Windscreen", "cost": "440.00"}, {"item": "Bulb", "cost": "8.00"}]
    assert dict(decision.corrections) == {"items": rows, "police_report": "false"}
    # The execution reads it back by the same declaration; without it a table is no field.
    wire = decision.wire()
    assert Decision.parse(wire, decl=claim_decl()).corrections == decision.corrections
    with pytest.raises(DecisionError):
        Decision.parse(wire)
    # A callback that skipped the page (a machine, a forged form) is held to the same kinds.
    forged = json.loads(wire)
    forged["corrections"]["items"][0]["cost"] = "whatever it takes"
    with pytest.raises(DecisionError):
        Decision.parse(json.dumps(forged), decl=claim_decl())

    summary = apply_corrections(read(READ), decision)
    items = summary.to_json()["fields"]["items"]
    assert (items["value"], items["rows"], items["original"]) == (
        "2 rows",
        rows,
        READ["items"]["rows"],
    )
    assert items["correctedBy"] == CLAIMS and items["confidence"] == 1.0
    # A second stage's correction keeps the rows the engine read as the original.
    again = Decision(True, CHECK, decided_at="2026-12-01T10:00:00+00:00", corrections={"items": []})
    later = apply_corrections(summary, again).to_json()["fields"]["items"]
    assert (later["value"], later["rows"], later["original"]) == (
        "0 rows",
        [],
        READ["items"]["rows"],
    )


def test_the_same_rows_sent_back_are_no_correction_and_a_bad_cell_is_named() -> None:
    same = form_of(
        [
            ("table.items.0.item", "Windscreen"),
            ("table.items.0.cost", "420.00"),
            ("table.items.1.item", "Mirror"),
            ("table.items.1.cost", "35.00"),
            ("table.items.2.item", ""),
        ]
    )
    assert checked_decision(same, link_of(READ), CLAIMS, (), claim_decl()).corrections == {}
    bad = form_of(
        [
            ("table.items.0.item", "Windscreen"),
            ("table.items.0.cost", "420.00"),
            ("table.items.1.remove", "yes"),
            ("table.items.2.cost", "12.00"),  # a new row without its required item
        ]
    )
    with pytest.raises(FieldProblem) as problem:
        checked_decision(bad, link_of(READ), CLAIMS, (), claim_decl())
    assert problem.value.errors == {"items": "row 3: item is required"}


def test_a_table_never_teaches_a_supplier_profile() -> None:
    fields = {
        **READ,
        "vendor_name": {"value": "Acme", "confidence": 0.9, "page": 1},
        "currency": {"value": "EUR", "confidence": 1.0, "page": 1, "source": "registry"},
    }
    corrected = apply_corrections(
        read(fields),
        Decision(True, CLAIMS, decided_at="2026-12-01T10:00:00+00:00", corrections={"items": []}),
    )
    learnable = profile_values(corrected)
    assert "items" not in learnable
    # A value the registry filled is offered too: the layout learns it only where it is printed.
    assert learnable["currency"] == "EUR"
    assert learnable["vendor_name"] == "Acme" and learnable["cover"] == "Third party"


def test_show_prints_a_table_under_its_name(capsys: pytest.CaptureFixture[str]) -> None:
    decision = Decision(
        True,
        CLAIMS,
        decided_at="2026-12-01T10:00:00+00:00",
        corrections={"items": [{"item": "Windscreen", "cost": "440.00"}, {"item": "Bulb"}]},
    )
    print_fields(apply_corrections(read(READ), decision).to_json())  # type: ignore[arg-type]
    out = capsys.readouterr().out
    (line,) = [li for li in out.splitlines() if li.startswith("items ")]
    assert line.split() == [
        "items",
        "2",
        "rows",
        "1.00",
        "1",
        "corrected",
        "by",
        CLAIMS,
        "(was",
        "2",
        "rows)",
    ]
    assert "\nitems:\n  #  item        cost\n  -  ----------  ------\n" in out
    assert "  1  Windscreen  440.00\n  2  Bulb        -\n" in out


def test_two_reviewers_fill_and_correct_a_declared_type(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with claim_desk(stack, tmp_path, monkeypatch) as desk:
        doc, arn = upload_claim(desk)
        (first,) = desk.links(doc, stage=0)
        page = lxml.html.fromstring(call("GET", f"/review/{first}")["body"])
        assert one(page, '//*[@id="field-claim_date"]').get("type") == "date"
        assert len(page.xpath('//*[@id="field-items"]//tbody/tr[@class="new"]')) == 3

        typed = [
            ("decision", "approve"),
            ("field.claim_date", "31 February 2026"),
            ("field.cover", "Third party"),
            ("field.police_report", ""),
            ("field.police_report", "true"),
            ("field.amount_claimed", "lots"),
            ("field.holder_address", "4 Elm Street\nLeeds"),
            ("table.items.0.item", "Windscreen"),
            ("table.items.0.cost", "420"),
            ("table.items.1.item", "Mirror"),
            ("table.items.1.cost", "35"),
            ("table.items.2.item", "Wiper"),
            ("table.items.2.cost", "12"),
        ]
        refused = post_form(first, typed)
        assert refused["statusCode"] == 400 and not desk.callbacks.sent
        again = lxml.html.fromstring(refused["body"])
        messages = {
            e.getparent().xpath(".//*[starts-with(@id, 'field-')]")[0].get("id"): e.text_content()
            for e in again.xpath('//fieldset[@id="fields"]//span[@class="error-message"]')
        }
        assert messages == {
            "field-claim_date": "enter one date, for example 2026-03-04",
            "field-amount_claimed": "enter an amount, for example 1234.50",
        }
        # What they typed is on the page again, the table's rows too, with three blank rows.
        assert one(again, '//*[@id="field-amount_claimed"]').get("value") == "lots"
        assert one(again, '//*[@id="field-claim_date"]').get("value") == "31 February 2026"
        assert one(again, '//*[@id="field-police_report"]').get("checked")
        assert one(again, '//*[@id="field-cover"]/option[@selected]').get("value") == "Third party"
        assert one(again, '//input[@name="table.items.2.item"]').get("value") == "Wiper"
        assert len(again.xpath('//*[@id="field-items"]//tbody/tr')) == 6

        fixed = [
            (k, {"field.claim_date": "2026-03-02", "field.amount_claimed": "467.00"}.get(k, v))
            for k, v in typed
        ]
        assert post_form(first, fixed)["statusCode"] == 200

        (second,) = desk.links(doc, stage=1)
        page = lxml.html.fromstring(call("GET", f"/review/{second}")["body"])
        editor = one(page, '//*[@id="field-items"]')
        said = one(page, '//label[@for="field-items"]').text_content()
        assert f"corrected by {CLAIMS}" in said and "%" not in said  # the first stage typed it
        assert [r.get("class") for r in editor.xpath(".//tbody/tr")] == ["read"] * 3 + ["new"] * 3
        assert one(page, '//*[@id="field-police_report"]').get("checked")
        correct = [
            ("decision", "approve"),
            ("table.items.0.item", "Windscreen"),
            ("table.items.0.cost", "440.00"),  # a cell edited
            ("table.items.1.item", "Mirror"),
            ("table.items.1.cost", "35.00"),
            ("table.items.2.item", "Wiper"),
            ("table.items.2.cost", "12.00"),
            ("table.items.2.remove", "yes"),  # a row removed
            ("table.items.3.item", "Bulb"),  # a row added
            ("table.items.3.cost", "8.00"),
            ("field.police_report", "false"),  # kept ticked
            ("field.police_report", "true"),
        ]
        assert post_form(second, correct)["statusCode"] == 200
        out = desk.result(arn)
    assert out["status"] == "finalized"
    fields = out["fields"]
    rows = [
        {"item": "Windscreen", "cost": "440.00"},
        {"item": "Mirror", "cost": "35.00"},
        {"item": "Bulb", "cost": "8.00"},
    ]
    assert (fields["items"]["value"], fields["items"]["rows"]) == ("3 rows", rows)
    assert fields["items"]["original"] is None  # the engine read no row
    assert fields["items"]["correctedBy"] == CHECK
    assert {k: fields[k]["value"] for k in ("claim_date", "cover", "police_report")} == {
        "claim_date": "2026-03-02",
        "cover": "Third party",
        "police_report": "true",
    }
    assert fields["holder_address"]["value"] == "4 Elm Street, Leeds"  # its lines, on one
    history = ReadModel(load_settings().table_name).show(doc.document_id)
    (checked,) = {
        h["eventId"]: h
        for h in history["history"]
        if h["status"] == "approved" and h["payload"].get("stageName") == "claims-check"
    }.values()
    said = checked["payload"]["corrections"]["items"]
    assert (said["value"], said["rows"], len(said["original"])) == ("3 rows", rows, 3)
    assert history["state"]["fields"]["items"]["rows"] == rows
    # final.json and the document-finalized event carry the rows as finalized.
    bucket, key = load_settings().artifact_bucket, history["state"]["resultKey"]
    final = json.loads(aws.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read())
    assert final["summary"]["fields"]["items"]["rows"] == rows
    (done,) = [e for e in domain_events(stack) if e["detail"]["status"] == "finalized"]
    assert done["detail"]["fields"]["items"]["rows"] == rows


def domain_events(stack: Stack) -> list[dict[str, Any]]:
    """Everything the template's example rule delivered to its queue."""
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=stack.names("DomainEventsQueue"))["QueueUrl"]
    out: list[dict[str, Any]] = []
    while got := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        out += [json.loads(m["Body"]) for m in got]
        for m in got:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return out
