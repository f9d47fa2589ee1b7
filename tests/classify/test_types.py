"""The shipped rules place real-world kinds of invoices, tell credit notes apart, and send what
they cannot place, or are unsure of, to the `triage` stage instead of finalizing it."""

from __future__ import annotations

from docflow.classify import RulesClassifier
from docflow.rules.model import DEFAULT_RULES, load_rules
from tests.support.invoices import CREDIT_NOTE, FACTUUR, HOTEL

RULES = load_rules(DEFAULT_RULES)
CLASSIFIER = RulesClassifier(RULES)


def classify(text: str) -> dict:
    return CLASSIFIER.classify(CLASSIFIER.extract(text), None)


def test_a_hotel_invoice_and_a_dutch_factuur_are_invoices() -> None:
    for text in (HOTEL, FACTUUR):
        found = classify(text)
        assert found["docType"] == "invoice"
        assert found["extract"]
        assert "triage" not in [s["name"] for s in found["stages"]]


def test_a_credit_note_is_a_type_of_its_own_with_the_invoice_fields() -> None:
    found = classify(CREDIT_NOTE)
    assert found["docType"] == "credit-note" and found["extract"]
    credit_note, invoice = RULES.fields.for_type("credit-note"), RULES.fields.for_type("invoice")
    assert credit_note and invoice and credit_note.fields == invoice.fields  # like = "invoice"


def test_a_document_nothing_places_waits_for_triage() -> None:
    found = classify("Minutes of the garden committee\nWe planted three apple trees.")
    assert found["docType"] == "unknown"
    (stage,) = found["stages"]
    assert (stage["name"], stage["because"]) == ("triage", "unknown-type")
    assert stage["reviewers"] == list(RULES.stages["triage"].reviewers)


def test_a_type_the_classifier_is_unsure_of_waits_for_triage() -> None:
    # As many purchase-order words as invoice words: neither has half the hits.
    text = "Invoice\nInvoice number 1\nPurchase order of PO number 7\nQuantity 3\nAgreement"
    found = classify(text)
    assert found["confidence"] < RULES.triage_min_confidence
    assert ("triage", "type-unsure") in [(s["name"], s["because"]) for s in found["stages"]]


def test_ocr_reads_with_the_languages_the_rules_name() -> None:
    assert RULES.ocr_languages == "eng+deu+fra+spa+ita+nld+por"
