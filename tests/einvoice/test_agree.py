"""A hybrid's page against its XML: agreement, each kind of disagreement with both values and
the page's place, values normalized before they are compared; a number or a total the page
lacks never a mismatch, a payee account on one side only always one (issue 56)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from docflow.einvoice import EInvoice, detect, read
from docflow.einvoice.agree import PageValues, Printed, agree

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
IBAN = "FR2012542547256985425874698"
ATTACKER = "GB82WEST12345698765432"
BOX = [0.1, 0.8, 0.5, 0.82]


def _invoice() -> EInvoice:
    found = detect((DATA / "facturx-en16931.pdf").read_bytes())
    assert found is not None
    return read(found)


def _page(number: str = "F20260023", total: str = "104.90", iban: str = IBAN) -> PageValues:
    return PageValues(
        number=Printed(number, 1, [0.6, 0.1, 0.8, 0.12]),
        total=Printed(total, 1, [0.7, 0.6, 0.8, 0.62]),
        ibans=(Printed(iban, 1, BOX),),
    )


def test_a_page_that_prints_the_same_values_agrees() -> None:
    agreement = agree(_invoice(), _page())
    assert agreement.agrees and agreement.checks == []
    assert sorted(agreement.agreed) == ["iban", "invoice_number", "total_amount"]
    assert agreement.agreed["total_amount"].box == [0.7, 0.6, 0.8, 0.62]


def test_values_are_compared_normalized() -> None:
    spaced = "FR20 1254 2547 2569 8542 5874 698".lower()
    agreement = agree(_invoice(), _page(number=" f20260023 ", total="104.9", iban=spaced))
    assert agreement.agrees, agreement.checks


def test_a_changed_iban_is_a_mismatch_with_both_values_masked_and_the_pages_box() -> None:
    (check,) = [c.to_json() for c in agree(_invoice(), _page(iban=ATTACKER)).checks]
    assert check == {
        "field": "iban",
        "code": "page-mismatch",
        "xml": "FR•••• 4698",
        "page": "GB•••• 5432",
        "pageBox": {"page": 1, "box": BOX},
        "message": check["message"],
    }
    assert IBAN not in str(check) and ATTACKER not in str(check)


def test_ibans_that_differ_only_before_their_last_four_still_show_the_difference() -> None:
    invoice = replace(_invoice(), ibans=("FR7630004000031234567890143",))
    (check,) = [
        c.to_json() for c in agree(invoice, _page(iban="FR7630006000011234567890143")).checks
    ]
    assert (check["xml"], check["page"]) == ("FR•••• 31234567890143", "FR•••• 11234567890143")


def test_an_account_added_on_the_page_is_a_mismatch() -> None:
    page = replace(_page(), ibans=(Printed(IBAN, 1, BOX), Printed(ATTACKER, 2, None)))
    (check,) = [c.to_json() for c in agree(_invoice(), page).checks]
    assert check["field"] == "iban" and check["pageBox"] == {"page": 2, "box": None}


def test_a_changed_total_and_number_are_mismatches_each_with_both_values() -> None:
    checks = [
        c.to_json() for c in agree(_invoice(), _page(number="F20260032", total="1104.90")).checks
    ]
    assert [(c["field"], c["xml"], c["page"]) for c in checks] == [
        ("invoice_number", "F20260023", "F20260032"),
        ("total_amount", "104.90", "1104.90"),
    ]
    assert checks[1]["pageBox"] == {"page": 1, "box": [0.7, 0.6, 0.8, 0.62]}
    assert all(c["code"] == "page-mismatch" for c in checks)


def test_a_number_or_total_the_page_lacks_is_not_a_mismatch() -> None:
    agreement = agree(_invoice(), replace(_page(), number=None, total=None))
    assert agreement.checks == [] and sorted(agreement.agreed) == ["iban"]


def test_a_page_that_prints_no_account_while_the_xml_pays_one_is_a_mismatch() -> None:
    """Issue 56: 'the page names no account' used to skip the comparison, so a hybrid whose
    page leaves the account out and whose XML names the attacker's went through."""
    (check,) = [c.to_json() for c in agree(_invoice(), replace(_page(), ibans=())).checks]
    assert (check["field"], check["xml"], check["page"]) == ("iban", "FR•••• 4698", "none")
    assert check["pageBox"] is None
    (alone,) = [c.to_json() for c in agree(_invoice(), PageValues()).checks]
    assert alone["field"] == "iban"


def test_an_xml_without_an_account_against_a_page_printing_one_is_a_mismatch() -> None:
    invoice = replace(_invoice(), ibans=())
    (check,) = [c.to_json() for c in agree(invoice, _page(iban=ATTACKER)).checks]
    assert (check["xml"], check["page"]) == ("none", "GB•••• 5432")
    assert check["pageBox"] == {"page": 1, "box": BOX}


def test_neither_side_naming_an_account_agrees() -> None:
    invoice = replace(_invoice(), ibans=())
    assert agree(invoice, replace(_page(), ibans=())).agrees


def test_every_bt84_form_is_compared_raw_and_normalized() -> None:
    """A ProprietaryID or a national account the XML names must be on the page too; the
    page's print of it (grouped, hyphenated) is the same account."""
    invoice = replace(_invoice(), other_accounts=("0532013000",))
    both = replace(_page(), ibans=(Printed(IBAN, 1, BOX), Printed("0532-013 000", 1, None)))
    assert agree(invoice, both).agrees
    (check,) = [c.to_json() for c in agree(invoice, _page()).checks]
    assert (check["xml"], check["page"]) == ("FR•••• 4698, 05•••• 3000", "FR•••• 4698")
