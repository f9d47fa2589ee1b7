"""What a reviewer types is held to its field's kind at its bounds (issue 56, item 7): an amount
too large for the number a record keeps is "too large" beside its input, a 400 that decides
nothing, never a 502; a name or a text holding a character that renders as nothing (a
right-to-left override, a zero-width space, a soft hyphen) is refused beside its input too,
and a decision that skipped the page (a machine, a forged form) is held to the same rules
when the execution reads it. A page that prints a 27-digit number reads it as no amount."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import lxml.html
import pytest

from docflow.extract.declarations.parse import find_amounts
from docflow.extract.declarations.values import normalize
from docflow.review.access.link_record import LinkRecord
from docflow.review.decision_form import DecisionForm, FieldProblem, checked_decision
from docflow.review.stage.decision import Decision, DecisionError
from docflow.rules.model import DEFAULT_RULES, load_rules
from tests.support.aws import Stack
from tests.support.claim_form import claim_desk, post_form, upload_claim

HUGE = "123456789012345678901234567"  # 27 digits
RLO = "\u202e"
TOO_LARGE = "too large: at most 18 digits before the decimal point"


def invoice_link() -> LinkRecord:
    fields = {"vendor_name": {"value": "Blauwal Hafenlogistik GmbH", "confidence": 0.6}}
    return LinkRecord.from_item(
        {
            "pk": "LINK#T",
            "summary": {"docType": "invoice", "pages": 1, "fields": fields, "fieldChecks": []},
            "stageIndex": 0,
            "stageName": "fields",
            "key": "in/invoice.pdf",
            "reviewer": "accounts@example.com",
        }
    )


def approve(**fields: str) -> DecisionForm:
    pairs = [("decision", "approve"), *((f"field.{k}", v) for k, v in fields.items())]
    return DecisionForm.parse(urlencode(pairs))


def refused(form: DecisionForm) -> dict[str, str]:
    decl = load_rules(DEFAULT_RULES).fields.for_type("invoice")
    with pytest.raises(FieldProblem) as problem:
        checked_decision(form, invoice_link(), "accounts@example.com", (), decl)
    return problem.value.errors


@pytest.mark.parametrize("typed", [HUGE, f"{HUGE}.00", "1.234.567.890.123.456.789.012,00"])
def test_an_amount_past_eighteen_digits_is_too_large_beside_its_field(typed: str) -> None:
    assert refused(approve(total_amount=typed)) == {"total_amount": TOO_LARGE}


def test_the_largest_amount_a_field_keeps_is_taken() -> None:
    assert normalize("amount", "999999999999999999.99") == ("999999999999999999.99", None)
    assert normalize("amount", "1000000000000000000") == (None, TOO_LARGE)
    assert normalize("number", "1" * 40) == (None, "too large: at most 18 digits before the point")
    assert normalize("number", "0." + "1" * 40) == (None, "at most 28 digits")


@pytest.mark.parametrize(
    "hidden,named",
    [
        (RLO, "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        ("\u200b", "U+200B (ZERO WIDTH SPACE)"),
        ("\u00ad", "U+00AD (SOFT HYPHEN)"),
        ("\u2066", "U+2066 (LEFT-TO-RIGHT ISOLATE)"),
    ],
)
def test_a_vendor_name_holding_an_invisible_character_is_refused_at_its_field(
    hidden: str, named: str
) -> None:
    errors = refused(approve(vendor_name=f"Evil Trading {hidden}HbmG lawualB"))
    assert list(errors) == ["vendor_name"] and named in errors["vendor_name"]
    # An invoice number is typed text too; a joiner in a Persian name is writing, not hiding.
    assert "invoice_number" in refused(approve(invoice_number=f"INV-42{hidden}"))
    persian = checked_decision(
        approve(vendor_name="شرکت می\u200cخواهم"),
        invoice_link(),
        "accounts@example.com",
        (),
        load_rules(DEFAULT_RULES).fields.for_type("invoice"),
    )
    assert persian.corrections == {"vendor_name": "شرکت می\u200cخواهم"}


def test_a_decision_that_skipped_the_page_is_held_to_the_same_rules() -> None:
    decl = load_rules(DEFAULT_RULES).fields.for_type("invoice")
    for name, value in (("vendor_name", f"Evil{RLO}Ltd"), ("total_amount", HUGE)):
        wire = json.dumps(
            {
                "approved": True,
                "reviewer": "accounts@example.com",
                "decidedAt": "2026-12-01T10:00:00+00:00",
                "corrections": {name: value},
            }
        )
        with pytest.raises(DecisionError) as bad:
            Decision.parse(wire, decl=decl)
        assert bad.value.field == "corrections" and list(bad.value.errors) == [name]


def test_a_page_printing_a_27_digit_number_reads_it_as_no_amount() -> None:
    """The rules engine's amounts: a reference number this long is no amount (it crashed the
    read with decimal.InvalidOperation)."""
    assert [a.value for a in find_amounts(f"Reference {HUGE} Total 12,50 EUR")] == ["12.50"]
    assert [a.value for a in find_amounts(f"{HUGE} EUR")] == []


def test_the_desk_answers_a_too_large_amount_and_a_hidden_character_with_400(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the callback API on the testing runner: the page comes back with each message
    beside its input and nothing is decided; the values fixed, the decision goes through."""
    with claim_desk(stack, tmp_path, monkeypatch) as desk:
        doc, arn = upload_claim(desk)
        (token,) = desk.links(doc, stage=0)
        typed = [
            ("decision", "approve"),
            ("field.amount_claimed", HUGE),
            ("field.holder_address", f"4 Elm Street{RLO}, Leeds"),
            ("table.items.0.item", "Windscreen"),
            ("table.items.0.cost", HUGE),
        ]
        answer = post_form(token, typed)
        assert answer["statusCode"] == 400 and not desk.callbacks.sent
        page = lxml.html.fromstring(answer["body"])
        messages = {
            e.getparent().xpath(".//*[starts-with(@id, 'field-')]")[0].get("id"): e.text_content()
            for e in page.xpath('//fieldset[@id="fields"]//span[@class="error-message"]')
        }
        assert messages["field-amount_claimed"] == TOO_LARGE
        assert "U+202E (RIGHT-TO-LEFT OVERRIDE)" in messages["field-holder_address"]
        assert messages["field-items"] == f"row 1, cost: {TOO_LARGE}"
        fixed = [
            ("decision", "approve"),
            ("field.amount_claimed", "420.00"),
            ("field.holder_address", "4 Elm Street, Leeds"),
            ("table.items.0.item", "Windscreen"),
            ("table.items.0.cost", "420.00"),
        ]
        assert post_form(token, fixed)["statusCode"] == 200
        assert desk.callbacks.sent
        del arn  # the run goes on to its second stage; this test is about the first
