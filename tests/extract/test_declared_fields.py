"""Declared fields the rules engine has no built-in labels for, read by their own labels in
English and German, or by their pattern alone; a value that does not read is rejected, so the
checks send it to a person. Real PDFs, read by the real text-layer reader or by tesseract."""

from __future__ import annotations

import tomllib

import pytest

from docflow.extract.base import Extraction, PageInput
from docflow.extract.checks.field_checks import check_fields
from docflow.extract.checks.spec import parse_field_rules
from docflow.extract.declarations.values import normalize
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.pdf import open_pdf
from docflow.readers.tesseract import TesseractReader
from docflow.readers.textlayer import TextLayerReader
from tests.kit.pdfgen import columns_pdf, scanned_pdf, text_pdf

RULES = """[fields]
stage = "fields"

[fields.types.claim.fields.claim_number]
kind = "id"
pattern = 'CL-\\d{6}'
required = true

[fields.types.claim.fields.claimant]
kind = "party"
labels = { en = ["claimant", "policy holder"], de = ["versicherungsnehmer"] }

[fields.types.claim.fields.date_of_loss]
kind = "date"
labels = { en = ["date of loss"], de = ["schadendatum"] }
required = true

[fields.types.claim.fields.amount_claimed]
kind = "amount"
labels = { en = ["amount claimed"], de = ["geforderter betrag"] }

[fields.types.claim.fields.plan]
kind = "enum"
values = ["Gold", "Silver", "Bronze"]
labels = { en = ["plan"], de = ["tarif"] }

[fields.types.claim.fields.deductible]
kind = "percent"
labels = { en = ["deductible"], de = ["selbstbeteiligung"] }

[fields.types.claim.fields.police_report]
kind = "checkbox"
labels = { en = ["police report filed"], de = ["polizeilich gemeldet"] }
"""

ENGLISH = """NORTHERN MUTUAL INSURANCE
Claim form
Reference CL-204518
Claimant: Jane Doe
Date of loss: 12 March 2026
Amount claimed: 1,250.00 EUR
Plan: Silver
Deductible: 12.5 %
[x] Police report filed"""

GERMAN = """NORDSTERN VERSICHERUNG AG
Schadenmeldung
Aktenzeichen CL-204519
Versicherungsnehmer: Jörg Müller
Schadendatum: 04.03.2026
Geforderter Betrag: 1.250,00 €
Tarif: Gold
Selbstbeteiligung: 10 %
Polizeilich gemeldet: [ ]"""


def rules():
    return parse_field_rules(tomllib.loads(RULES)["fields"], RULES)


def read(pdf_bytes: bytes, scan: bool = False) -> list[PageInput]:
    reader = TesseractReader(dpi=300) if scan else TextLayerReader()
    with open_pdf(pdf_bytes) as pdf:
        page = reader.read(pdf, 1)
    return [PageInput(1, page.text, page.engine, page.confidence, words=page.words)]


def extract(pages: list[PageInput]) -> Extraction:
    spec = rules().for_type("claim")
    assert spec is not None
    return RulesEngine().extract(pages, spec)


def values(found: Extraction) -> dict[str, str]:
    return {n: f.value for n, f in found.fields.items()}


def test_every_kind_is_read_by_its_english_label() -> None:
    found = extract(read(text_pdf(ENGLISH)))
    assert values(found) == {
        "claim_number": "CL-204518",
        "claimant": "Jane Doe",
        "date_of_loss": "2026-03-12",
        "amount_claimed": "1250.00",
        "plan": "Silver",
        "deductible": "12.5",
        "police_report": "true",
    }
    assert found.rejected == []
    amount = found.fields["amount_claimed"]
    assert amount.confidence == pytest.approx(0.9) and amount.page == 1
    assert amount.evidence["source"] == "declared-label"
    x0, _y0, x1, _y1 = amount.box or (0, 0, 0, 0)
    assert x0 > 0.2 and x1 < 0.5  # the value's words, not its label's


def test_every_kind_is_read_by_its_german_label() -> None:
    found = extract(read(text_pdf(GERMAN)))
    assert values(found) == {
        "claim_number": "CL-204519",
        "claimant": "Jörg Müller",
        "date_of_loss": "2026-03-04",
        "amount_claimed": "1250.00",
        "plan": "Gold",
        "deductible": "10",
        "police_report": "false",
    }


def test_a_field_with_a_pattern_and_no_label_is_read_where_the_pattern_matches_once() -> None:
    field = extract(read(text_pdf(ENGLISH))).fields["claim_number"]
    assert field.evidence["source"] == "pattern" and field.confidence == pytest.approx(0.85)
    twice = ENGLISH.replace("Claim form", "Claim form (replaces CL-100001)")
    assert "claim_number" not in extract(read(text_pdf(twice))).fields


def test_a_value_under_its_label_is_read_a_little_less_surely() -> None:
    page = [[(0.1, "Claimant"), (0.5, "Date of loss")], [(0.1, "Jane Doe"), (0.5, "2026-03-12")]]
    found = extract(read(columns_pdf([page]))).fields
    assert (found["claimant"].value, found["date_of_loss"].value) == ("Jane Doe", "2026-03-12")
    assert found["date_of_loss"].confidence == pytest.approx(0.85)


def test_a_label_whose_value_does_not_read_is_rejected_and_goes_to_a_person() -> None:
    found = extract(read(text_pdf(ENGLISH.replace("12 March 2026", "unknown"))))
    assert "date_of_loss" not in found.fields
    assert found.rejected == [
        {"field": "date_of_loss", "reason": "label found, value unreadable: no date"}
    ]
    fields = {n: f.summary() for n, f in found.fields.items()}
    spec = rules().for_type("claim")
    assert spec is not None
    unreadable = {r["field"] for r in found.rejected}
    codes = {(r.field, r.code) for r in check_fields(fields, spec, rules(), unreadable)}
    assert ("date_of_loss", "unreadable") in codes


def test_a_blank_form_field_on_a_text_layer_is_missing_not_unreadable() -> None:
    found = extract(read(text_pdf(ENGLISH.replace("Plan: Silver", "Plan:"))))
    assert "plan" not in found.fields and found.rejected == []


def test_two_labels_that_read_two_values_make_the_field_unsure() -> None:
    found = extract(read(text_pdf(f"{ENGLISH}\nPolicy holder: John Roe"))).fields["claimant"]
    assert found.value == "Jane Doe" and found.confidence < 0.5 and found.evidence["rivals"]


def test_a_scanned_form_is_read_by_its_labels_with_the_ocr_factor() -> None:
    found = extract(read(scanned_pdf(ENGLISH), scan=True))
    got = values(found)
    for name in ("claim_number", "date_of_loss", "amount_claimed", "plan"):
        assert got[name] == values(extract(read(text_pdf(ENGLISH))))[name]
    amount = found.fields["amount_claimed"]
    assert amount.evidence["ocr"] <= 1.0
    assert amount.confidence == pytest.approx(0.9 * amount.evidence["ocr"])


@pytest.mark.parametrize(
    ("kind", "typed", "normal"),
    [
        ("number", "12.5", "12.5"),
        ("number", "1.5", "1.5"),
        ("number", "0.125", "0.125"),
        ("percent", "12.5", "12.5"),
        ("percent", "0.125 %", "0.125"),
        ("number", "1.500", "1500"),  # a German thousands separator, as before
        ("amount", "35.5", "35.50"),
        ("amount", "35,5", "35.50"),
        ("amount", "-35.5", "-35.50"),
        ("amount", "1.234,50", "1234.50"),
    ],
)
def test_a_dot_that_cannot_group_thousands_is_a_decimal_point(
    kind: str, typed: str, normal: str
) -> None:
    assert normalize(kind, typed) == (normal, None)


def test_a_negative_value_keeps_its_sign() -> None:
    found = extract(read(text_pdf(ENGLISH.replace("1,250.00 EUR", "-1,250.00 EUR"))))
    assert found.fields["amount_claimed"].value == "-1250.00"


def test_a_label_word_in_a_sentence_is_no_label() -> None:
    text = ENGLISH.replace("Claimant: Jane Doe", "The claimant agrees to the terms below.")
    text = text.replace("Plan: Silver", "Your plan may be changed to Gold at renewal.")
    found = extract(read(text_pdf(text)))
    assert "claimant" not in found.fields and "plan" not in found.fields
    assert found.rejected == []
    heading = ENGLISH.replace("Claimant: Jane Doe", "Claimant Jane Doe signed below")
    assert "claimant" not in extract(read(text_pdf(heading))).fields  # no colon: no value


def test_a_figures_label_qualified_in_its_cell_has_its_value_beside_it() -> None:
    page = [[(0.1, "Amount claimed (incl. VAT)"), (0.6, "1,250.00")]]
    assert extract(read(columns_pdf([page]))).fields["amount_claimed"].value == "1250.00"


def test_a_heading_over_a_paragraph_is_no_label_and_value() -> None:
    page = [
        [(0.1, "Claimant")],
        [(0.1, "The person named in the policy schedule who suffered the loss and asks us")],
    ]
    assert "claimant" not in extract(read(columns_pdf([page]))).fields


def test_free_text_stops_where_the_next_label_starts_on_its_line() -> None:
    from docflow.extract.rules_engine.printed import read_value

    assert read_value("text", "Delaware. Signature: ______").value == "Delaware"
    assert read_value("text", "New York; Venue: the courts of Manhattan").value == "New York"
    assert read_value("party", "Acme Inc. and Beta LLC").value == "Acme Inc. and Beta LLC"
