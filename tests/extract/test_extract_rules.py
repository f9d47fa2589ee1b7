"""The rules engine's parsers, labels and scores; the checks; reviewers' corrections; the
decision JSON that carries them. Pure functions, no AWS."""

from __future__ import annotations

import json

import pytest

from docflow.document import DocumentSummary
from docflow.extract.base import PageInput
from docflow.extract.checks.corrections import validate_corrections
from docflow.extract.checks.field_checks import check_fields
from docflow.extract.declarations.labels import BUILTIN_KINDS as FIELD_KINDS
from docflow.extract.declarations.parse import MDY, find_amounts, find_dates
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.pipeline.extract import apply_corrections
from docflow.review.stage.decision import Decision, DecisionError
from docflow.rules.model import DEFAULT_RULES, load_rules

RULES = load_rules(DEFAULT_RULES)
INVOICE = RULES.fields.types["invoice"]


@pytest.mark.parametrize(
    "text",
    [
        "2026-03-04",
        "04.03.2026",
        "March 4, 2026",
        "4 mars 2026",
        "4. März 2026",
        "4 de marzo de 2026",
        "Mar 4, 2026",
        "04/03/2026",
    ],
)
def test_dates_in_every_printed_form(text: str) -> None:
    (found,) = find_dates(text, order="dmy")
    assert found.iso == "2026-03-04"


def test_an_ambiguous_date_is_decided_by_the_order_or_marked() -> None:
    assert find_dates("04/03/2026", MDY)[0].iso == "2026-04-03"
    unsure = find_dates("04/03/2026")[0]
    assert unsure.ambiguous and not unsure.resolved
    assert not find_dates("13/03/2026")[0].ambiguous


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        ("1,234.56", "1234.56", None),
        ("1.234,56 €", "1234.56", "EUR"),
        ("1 234,56 EUR", "1234.56", "EUR"),
        ("CHF 1'234.56", "1234.56", "CHF"),
        ("£1,234.56", "1234.56", "GBP"),
        ("$ 99", "99.00", "USD"),
        ("USD 1,234.56", "1234.56", "USD"),
    ],
)
def test_amounts_in_every_printed_form(text: str, value: str, currency: str | None) -> None:
    (found,) = find_amounts(text)
    assert (found.value, found.currency) == (value, currency)


def test_percentages_are_not_amounts() -> None:
    assert [a.value for a in find_amounts("VAT 20%: 40.00")] == ["40.00"]


def fields_of(text: str, engine: str = "textlayer", confidence: float = 100.0) -> dict:
    """{field: (value, the engine's own score)}: the score, before its calibration
    (`docflow/extract/rules_engine/calibration.py`), is what these rules set."""
    found = RulesEngine().extract([PageInput(1, text, engine, confidence)], list(FIELD_KINDS))
    return {n: (f.value, round(f.evidence["score"], 2)) for n, f in found.fields.items()}


def test_german_invoice_with_a_two_column_line_and_line_items() -> None:
    found = fields_of(
        "Müller Werkzeuge GmbH\nRECHNUNG\nRechnungsnummer: RE-2026-0042\n"
        "Rechnungsdatum: 04.03.2026     Fällig am: 18.03.2026\n"
        "Beschreibung  Menge  Preis  Gesamt\nSchrauben  10  1,50 €  15,00 €\n"
        "Nettobetrag: 1.234,56 €\nMwSt 19%: 234,57 €\nGesamtbetrag: 1.469,13 €"
    )
    assert {k: v for k, (v, _) in found.items()} == {
        "vendor_name": "Müller Werkzeuge GmbH",
        "invoice_number": "RE-2026-0042",
        "invoice_date": "2026-03-04",
        "due_date": "2026-03-18",
        "currency": "EUR",
        "net_amount": "1234.56",
        "tax_amount": "234.57",
        "total_amount": "1469.13",
    }


def test_french_labels_values_on_the_next_line_and_language_decides_the_date() -> None:
    found = fields_of(
        "FACTURE\nN° de facture : F-778\nÉchéance : 03/04/2026\nTotal HT\n1 000,00 EUR\n"
        "TVA (20 %) 200,00 EUR\nMontant TTC 1 200,00 EUR"
    )
    # On the line after its label (0.88 alone); net + tax = total confirms all three (0.97).
    assert found["net_amount"] == ("1000.00", 0.97)
    assert found["due_date"][0] == "2026-04-03"  # French: day first
    assert found["total_amount"] == ("1200.00", 0.97)


def test_an_undecidable_date_and_disagreeing_labels_score_low() -> None:
    found = fields_of("Invoice number: A-1\nInvoice date: 04/03/2026\nTotal: 10.00\nTotal: 12.00")
    assert found["invoice_date"][1] < 0.5
    assert found["total_amount"][1] < 0.5


def test_ocr_pages_scale_confidence() -> None:
    assert fields_of("Invoice number: A-1", "tesseract", 60.0)["invoice_number"][1] < 0.8


def test_checks_name_every_reason() -> None:
    fields = {
        "invoice_number": {"value": "A-1", "confidence": 0.5, "page": 1},
        "invoice_date": {"value": "2026-03-04", "confidence": 0.95, "page": 1},
        "due_date": {"value": "2026-03-01", "confidence": 0.95, "page": 1},
        "net_amount": {"value": "100.00", "confidence": 0.95, "page": 1},
        "tax_amount": {"value": "20.00", "confidence": 0.95, "page": 1},
        "total_amount": {"value": "120.02", "confidence": 0.95, "page": 1},
    }
    codes = [(c.field, c.code) for c in check_fields(fields, INVOICE, RULES.fields)]
    assert codes == [
        ("currency", "missing"),
        ("invoice_number", "low-confidence"),
        ("total_amount", "amounts-disagree"),
        ("due_date", "due-before-invoice"),
    ]
    fields["total_amount"]["value"] = "120.01"  # within a cent
    fields["currency"] = {"value": "EUR", "confidence": 0.9, "page": 1}
    codes = [c.code for c in check_fields(fields, INVOICE, RULES.fields)]
    assert "amounts-disagree" not in codes


def test_corrections_are_normalized_or_refused_with_a_message() -> None:
    current = {"total_amount": {"value": "10.00", "confidence": 0.4, "page": 1}}
    good, bad = validate_corrections(
        current,
        {
            "total_amount": "1.234,56 €",
            "due_date": "4 mars 2026",
            "currency": "chf",
            "invoice_date": "04/03/2026",
            "net_amount": "lots",
            "tax_amount": "10.00",
            "colour": "red",
            "vendor_name": " Acme Ltd ",
        },
    )
    assert good == {
        "total_amount": "1234.56",
        "due_date": "2026-03-04",
        "currency": "CHF",
        "tax_amount": "10.00",
        "vendor_name": "Acme Ltd",
    }
    assert set(bad) == {"invoice_date", "net_amount", "colour"}
    assert "YYYY-MM-DD" in bad["invoice_date"]
    assert validate_corrections({}, {"currency": "XXQ"})[1]["currency"].startswith("enter an ISO")
    assert validate_corrections(current, {"total_amount": "10"}) == ({}, {})  # no change


def test_decision_keeps_validated_corrections_and_refuses_bad_ones() -> None:
    ok = Decision.parse(json.dumps({"approved": True, "corrections": {"currency": "eur"}}))
    assert ok.approved and ok.corrections == {"currency": "EUR"}
    with pytest.raises(DecisionError) as bad:
        Decision.parse(json.dumps({"approved": True, "corrections": {"currency": "Euros"}}))
    assert bad.value.field == "corrections" and not bad.value.decision.approved
    assert Decision.parse(json.dumps({"approved": True})).to_json() == {
        "approved": True,
        "reviewer": "",
        "comment": "",
        "decidedAt": "",
    }


def test_corrections_keep_the_first_original_across_stages() -> None:
    read = {"fields": {"total_amount": {"value": "10.00", "confidence": 0.4, "page": 1}}}
    summary = DocumentSummary.from_json({"docType": "invoice", **read})
    first = apply_corrections(
        summary, Decision(True, "a@x", decided_at="t1", corrections={"total_amount": "11.00"})
    )
    second = apply_corrections(
        first, Decision(True, "b@x", decided_at="t2", corrections={"total_amount": "12.00"})
    )
    assert second.to_json()["fields"]["total_amount"] == {
        "value": "12.00",
        "confidence": 1.0,
        "page": 1,
        "original": "10.00",
        "correctedBy": "b@x",
        "correctedAt": "t2",
    }
    assert summary.text("total_amount") == "10.00"  # pure


def test_rules_file_refuses_a_field_of_no_known_kind_naming_its_line(tmp_path) -> None:
    shipped = DEFAULT_RULES.read_text()
    bad = shipped.replace('kind = "party"', 'kind = "colour"', 1)
    assert bad != shipped
    line = 1 + shipped[: shipped.index("[fields.types.invoice.fields.vendor_name]")].count("\n")
    path = tmp_path / "rules.toml"
    path.write_text(bad)
    with pytest.raises(
        ValueError, match=rf"line {line}: fields.types.invoice.fields.vendor_name: kind 'colour'"
    ):
        load_rules(path)
