"""validate: the XSD first, then the EN 16931 rules from the CEN schematron, each finding with
its id, severity and official text."""

from __future__ import annotations

import importlib
import io
from pathlib import Path

from facturx import generate_from_binary
from reportlab.pdfgen import canvas

from docflow.einvoice import detect, validate

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"


def test_a_total_that_does_not_add_up_is_br_co_15_with_its_text() -> None:
    report = validate((DATA / "invalid-br-co-15-ubl.xml").read_bytes())
    finding = next(f for f in report.fatal if f.rule == "BR-CO-15")
    assert "Invoice total amount with VAT" in finding.text
    assert finding.location and "Invoice" in finding.location
    assert not report.valid
    assert report.rules and "EN16931-UBL-validation" in report.rules[0]


def test_a_missing_seller_name_is_br_06() -> None:
    report = validate((DATA / "invalid-br-06-cii.xml").read_bytes())
    assert [f.rule for f in report.fatal] == ["BR-06"]
    assert "Seller name" in report.fatal[0].text


def test_warnings_are_reported_but_do_not_make_an_invoice_invalid() -> None:
    report = validate((DATA / "kosit-xrechnung-01.01a-cii.xml").read_bytes())
    assert report.warnings
    assert report.valid
    # The Factur-X profile's own rules (its guideline id) do not bind an XRechnung.
    assert not [f for f in report.findings if f.rule.startswith("FX-")]


def test_an_element_the_schema_does_not_know_fails_the_xsd() -> None:
    xml = (
        (DATA / "cen-ubl-example1.xml")
        .read_bytes()
        .replace(
            b"<cbc:DocumentCurrencyCode>",
            b"<cbc:Surprise>1</cbc:Surprise><cbc:DocumentCurrencyCode>",
        )
    )
    report = validate(xml)
    assert report.xsd == "failed"
    assert report.xsd_error and "Surprise" in report.xsd_error
    assert not report.valid


def test_zugferd_1_gets_its_xsd_and_no_en_16931_rules() -> None:
    report = validate((DATA / "mustang-zugferd1-505.pdf").read_bytes())
    assert report.xsd == "passed"
    assert report.rules == ()


def test_a_hybrid_pdf_made_from_a_broken_xml_reports_the_xml_rule() -> None:
    xml = (DATA / "cen-cii-example5.xml").read_bytes()
    found = detect(xml)
    assert found is not None
    broken = xml.replace(b"<ram:GrandTotalAmount>4675", b"<ram:GrandTotalAmount>4775", 1)
    assert broken != xml
    page = io.BytesIO()
    c = canvas.Canvas(page)
    c.drawString(72, 720, "Invoice TOSL110")
    c.save()
    pdf = generate_from_binary(page.getvalue(), broken, flavor="factur-x", level="en16931")
    report = validate(pdf)
    assert "BR-CO-15" in {f.rule for f in report.fatal}


def test_rules_that_cannot_run_are_skipped_never_passed(monkeypatch) -> None:
    module = importlib.import_module("docflow.einvoice.rules_function")
    monkeypatch.setattr(module, "saxon_installed", lambda: False)
    monkeypatch.delenv(module.RULES_FUNCTION_ENV, raising=False)
    report = validate((DATA / "invalid-br-co-15-ubl.xml").read_bytes())
    assert report.xsd == "passed"
    assert report.findings == ()
    assert report.skipped and "saxonche" in report.skipped[0]
    assert not report.valid
