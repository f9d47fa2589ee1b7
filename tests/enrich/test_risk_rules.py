"""The rules engine's risk reasons hold to what the words say: a payment term is a sentence with a
number of days (an amount after "net" is no term), the issuer's own payee IBANs are no
sensitive data, and a form's label is no title."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docflow.classify.sensitive import beyond_issuer
from docflow.enrich.base import EnrichInput, PageText
from docflow.enrich.rules import RulesEnricher, title


def reasons(text: str, doc_type: str = "invoice", **more: object) -> dict[str, str]:
    answer = RulesEnricher().enrich(EnrichInput([PageText(1, text)], doc_type, **more))  # type: ignore[arg-type]
    assert answer.enrichment is not None
    return {r["code"]: r["message"] for r in answer.enrichment["risk"]["reasons"]}


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Payment terms: net 90 days", 90),
        ("Invoices are payable within 120 days of receipt.", 120),
        ("Payment terms: 75 days end of month", 75),
        ("Terms: Net 61 Days", 61),
        ("Zahlbar innerhalb von 90 Tagen ohne Abzug", 90),
        ("Paiement à 75 jours fin de mois", 75),
        ("Betalingstermijn: 70 dagen netto", 70),
    ],
)
def test_a_payment_sentence_with_days_over_60_is_a_long_term(text: str, days: int) -> None:
    assert reasons(text)["long-payment-terms"] == f"payment terms exceed 60 days ({days} days)"


@pytest.mark.parametrize(
    "text",
    [
        "1. Zeitschrift | qty 1 XPP | unit price 288.79 | net 288.79 | VAT S 7%",  # xrechnung.xml
        "Payment terms: Net 30 days\n1. Widget | net 200.00",  # a Peppol invoice's line
        "Zahlbar sofort ohne Abzug",
        "Net 30 days",
        "payable within 1.5 days",
        "Total net 1,200.00 EUR",
        "Betalingstermijn: 14 dagen netto",
    ],
)
def test_an_amount_or_a_short_term_is_no_long_term(text: str) -> None:
    assert "long-payment-terms" not in reasons(text)


@given(
    whole=st.integers(0, 99_999),
    cents=st.integers(0, 99),
    sep=st.sampled_from([".", ","]),
    before=st.sampled_from(["net", "Net", "NET", "| net", "within", "payable within"]),
)
def test_no_amount_after_a_payment_word_reads_as_days(
    whole: int, cents: int, sep: str, before: str
) -> None:
    """What an invoice prints after "net" or "within" is often an amount: never days."""
    assert "long-payment-terms" not in reasons(f"{before} {whole}{sep}{cents:02d} EUR")


@given(days=st.integers(61, 999))
def test_any_term_over_60_days_is_read_as_its_days(days: int) -> None:
    assert f"({days} days)" in reasons(f"Payment terms: net {days} days")["long-payment-terms"]


PAYEE = {"iban": "DE•••• 3000", "valid": True, "owner": "issuer", "why": "payee-data", "page": 1}
OTHER = {**PAYEE, "owner": "other", "why": "pay-to-other"}


@pytest.mark.parametrize(
    ("sensitive", "judged", "left"),
    [
        ({"iban": 1}, [PAYEE], {}),
        ({"iban": 2}, [PAYEE, PAYEE], {}),
        ({"iban": 2}, [PAYEE], {"iban": 1}),  # one on a page extraction did not read
        ({"iban": 1}, [OTHER], {"iban": 1}),
        ({"iban": 1}, [{**PAYEE, "valid": False}], {"iban": 1}),
        ({"iban": 1, "card_number": 1}, [PAYEE], {"card_number": 1}),
        ({"email": 5}, [PAYEE], {"email": 5}),
        ({"iban": 1}, None, {"iban": 1}),
    ],
)
def test_only_the_issuers_judged_ibans_leave_the_count(
    sensitive: dict[str, int], judged: list[dict[str, object]] | None, left: dict[str, int]
) -> None:
    assert beyond_issuer(sensitive, judged) == left


def test_an_invoice_asking_to_be_paid_on_its_own_account_is_not_risky() -> None:
    text = "ACME GMBH\nInvoice 4711\nPlease pay to IBAN DE89 3704 0044 0532 0130 00"
    review_on = ("card_number", "iban")
    assert "sensitive-data" in reasons(text, sensitive={"iban": 1}, review_on=review_on)
    counted = beyond_issuer({"iban": 1}, [PAYEE])
    assert "sensitive-data" not in reasons(text, sensitive=counted, review_on=review_on)


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("Date :\nSELLER TRADE NAME CLIENT : \nLE FOURNISSEUR\n35 rue d'ici", "LE FOURNISSEUR"),
        (
            "2020-06-20\nCustomer:2\nYour order AB321\nInvoice # RE-508 issued",
            "Invoice # RE-508 issued",
        ),
        (
            "Lesbarmachung der XML-Daten\nRechnungsstandard: Factur-x 1.0",
            "Lesbarmachung der XML-Daten",
        ),
        ("LE FOURNISSEUR\nInvoice F20260023\nDate 2026-01-31", "Invoice F20260023"),
    ],
)
def test_a_forms_label_is_no_title_and_a_line_naming_the_type_is(text: str, heading: str) -> None:
    assert title([PageText(1, text)], "invoice") == heading
