"""Issue 56, items 1-3: a registered supplier's invoice asking to be paid on an account printed
otherwise (dashes, dots, slashes, other grouping, over two lines, a UK sort code and account,
a US routing and account number) waits at `bank-details`: on a text page, on a scan (real
tesseract), and as a small picture of the payment line on a typed page. Through the step
bodies a run calls (split, read, classify, extract) on moto with the shipped rules; the
"No direct debit" case through the real handler, where the privacy stage is routed too."""

from __future__ import annotations

import pytest

from docflow.pipeline.results import Extracted
from docflow.suppliers import history
from docflow.suppliers.model import Supplier
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT
from tests.suppliers.printed import (
    ATTACKER_IBAN,
    FORMS,
    NAME,
    blank_picture,
    extract,
    invoice,
    invoice_with_picture,
    line_picture,
    scan_of,
)
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry, run_reviewed

APPROVE = {"approved": True}
# How each form's account is shown, masked.
SHOWN = {form: "GB•••• 5432" for form in FORMS} | {
    "sort code": "UK•••• 6819",
    "routing": "US•••• 0123",
}
PAY_TO = "Bitte überweisen Sie den Betrag auf folgendes Konto:"


@pytest.fixture
def blauwal(stack: Stack, shipped_rules: None) -> Stack:
    """Blauwal registered with its VAT id and its IBAN (the one its footer prints)."""
    supplier = Supplier.parse(
        {
            "supplierId": "blauwal",
            "name": NAME,
            "ids": {"vat": [BLAUWAL_VAT], "iban": [BLAUWAL_IBAN.replace(" ", "")]},
            "currency": "EUR",
        }
    )
    registry().put(supplier, history.entry("blauwal", history.IMPORTED, "test"))
    return stack


def routed(out: Extracted) -> tuple[list[str], str]:
    """The stages the extract step adds, and the bank-details check's verdict."""
    return [s.name for s in out.stages], str(out.shown["bank"]["verdict"])


def test_the_registered_account_alone_goes_through(blauwal: Stack) -> None:
    """The baseline every test below changes one line of: no stage, `registered`."""
    kind, out = extract(blauwal, invoice(["Zahlbar innerhalb von 14 Tagen ohne Abzug."]))
    assert kind == "invoice"
    assert routed(out) == ([], "registered")


@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_account_printed_otherwise_waits_at_bank_details(blauwal: Stack, form: str) -> None:
    _kind, out = extract(blauwal, invoice(FORMS[form]))
    stages, verdict = routed(out)
    assert "bank-details" in stages, (form, out.shown.get("bank"))
    assert verdict == "unregistered", (form, out.shown["bank"])
    printed = {p["iban"]: p for p in out.shown["bank"]["printed"]}
    assert printed["DE•••• 3000"]["registered"] is True  # the footer's is still the supplier's
    shown = str(out.to_json())
    assert ATTACKER_IBAN not in shown and "31926819" not in shown and "4567890123" not in shown


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_scan_of_it_waits_at_bank_details(blauwal: Stack, form: str) -> None:
    _kind, out = extract(blauwal, scan_of(invoice(FORMS[form])))
    stages, verdict = routed(out)
    assert "bank-details" in stages, (form, out.shown.get("bank"))
    # Tesseract reads each form whole (a misread one would be `unrecognized`, and held too).
    assert verdict == "unregistered", (form, out.shown["bank"])
    assert SHOWN[form] in [p["iban"] for p in out.shown["bank"]["printed"]]


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("IBAN: GB82 WEST 1234 5698 7654 32", "GB•••• 5432"),
        ("IBAN GB82-WEST-1234-5698-7654-32", "GB•••• 5432"),
        ("Sort code 60-16-13   Account 31926819", "UK•••• 6819"),
    ],
)
def test_a_picture_of_the_payment_line_on_a_typed_page_waits(
    blauwal: Stack, line: str, shown: str
) -> None:
    """The account only in pixels, in a picture under an inch high beside the pay-to line:
    OCR'd, its account read with the page's."""
    _kind, out = extract(blauwal, invoice_with_picture([PAY_TO], line_picture(line)))
    stages, verdict = routed(out)
    assert "bank-details" in stages, out.shown.get("bank")
    assert verdict == "unregistered", out.shown["bank"]
    assert shown in [p["iban"] for p in out.shown["bank"]["printed"]]


def test_the_registered_account_in_a_picture_goes_through(blauwal: Stack) -> None:
    iban = f"IBAN: {BLAUWAL_IBAN}"
    _kind, out = extract(blauwal, invoice_with_picture([PAY_TO], line_picture(iban)))
    assert routed(out) == ([], "registered"), out.shown["bank"]


def test_a_picture_at_the_payment_line_that_cannot_be_read_holds(blauwal: Stack) -> None:
    """OCR finds nothing in the picture the page puts its account in: unreadable, held."""
    data = invoice_with_picture([PAY_TO, "IBAN:"], blank_picture())
    _kind, out = extract(blauwal, data)
    assert routed(out) == (["bank-details"], "unreadable"), out.shown["bank"]


def test_a_label_with_no_readable_account_holds_and_a_paid_invoice_does_not(
    blauwal: Stack,
) -> None:
    footer = f"{NAME} - Kaiweg 12 - 20457 Hamburg"  # no account printed anywhere
    _kind, asked = extract(blauwal, invoice([PAY_TO], footer=footer), "in/asked.pdf")
    assert routed(asked) == (["bank-details"], "unreadable"), asked.shown["bank"]
    _kind, paid = extract(blauwal, invoice(["Betrag dankend erhalten."], footer), "in/paid.pdf")
    assert routed(paid) == ([], "no-payee"), paid.shown["bank"]
    terms = ["Zahlbar innerhalb von 14 Tagen ohne Abzug."]
    _kind, none = extract(blauwal, invoice(terms, footer), "in/terms.pdf")
    assert routed(none) == ([], "no-payee"), none.shown["bank"]


def test_an_iban_that_fails_its_check_on_the_payment_line_holds(blauwal: Stack) -> None:
    """Today a bad checksum was nobody's and passed as `no-payee`: it is an account printed
    where the payee's belongs that no check recognizes."""
    line = ["Bitte überweisen Sie den Betrag auf IBAN GB82 WEST 1234 5698 7654 33"]
    _kind, out = extract(blauwal, invoice(line))
    assert routed(out) == (["bank-details"], "unrecognized"), out.shown["bank"]


def test_no_direct_debit_please_pay_to_is_a_payee_not_a_mandate(blauwal: Stack) -> None:
    """A pay-to instruction outranks a mandate word farther from the account: the account
    goes to `bank-details` (a payee not registered), not to `privacy` (a customer's
    mandate), through the real handler."""
    line = ["No direct debit: please pay by bank transfer to IBAN GB82 WEST 1234 5698 7654 32"]
    out, waited, _ = run_reviewed(blauwal, invoice(line), "in/no-debit.pdf", [APPROVE])
    assert [w["stageName"] for w in waited] == ["bank-details"]
    assert out["bank"]["verdict"] == "unregistered"
    owners = {i["iban"]: (i["owner"], i["why"]) for i in out["ibans"]}
    assert owners["GB•••• 5432"] == ("issuer", "pay-to")
