"""No silent misses on noisy scans: a Spanish scan whose tax line the rules do not read as a
label (`I.V.A. (21%)`) gets its tax amount or goes to a person, and a scan whose currency
sign OCR read as a digit (a leading 4 on every amount) goes to a person with the amounts
right. Real PDFs, rendered as images and read by real tesseract."""

from __future__ import annotations

from docflow.extract.base import PageInput
from docflow.extract.checks.field_checks import check_fields
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.pdf import open_pdf
from docflow.readers.tesseract import TesseractReader
from docflow.rules.model import DEFAULT_RULES, load_rules
from tests.kit.pdfgen import scanned_pdf

NAMES = (
    "invoice_number",
    "po_number",
    "invoice_date",
    "due_date",
    "vendor_name",
    "currency",
    "net_amount",
    "tax_amount",
    "total_amount",
)


def _scan(text: str, language: str) -> list[PageInput]:
    reader = TesseractReader(dpi=300, language=language)
    with open_pdf(scanned_pdf(text)) as pdf:
        page = reader.read(pdf, 1)
    return [PageInput(1, page.text, page.engine, page.confidence, words=page.words)]


def _routed(pages: list[PageInput]) -> tuple[dict[str, str], list[str]]:
    """(values, check codes) as the extract step decides them."""
    rules = load_rules(DEFAULT_RULES).fields
    spec = rules.for_type("invoice")
    assert spec is not None
    found = RulesEngine().extract(pages, spec)
    fields = {n: f.summary() for n, f in found.fields.items()}
    unreadable = {r["field"] for r in found.rejected}
    checks = check_fields(fields, spec, rules, unreadable, found.repairs, found.thresholds)
    checks.extend(found.findings)
    return {n: f["value"] for n, f in fields.items()}, [c.code for c in checks]


SPANISH = """FERRETERIA GARCIA S.L.
FACTURA
Factura No: F-2026-0417
Fecha: 04/03/2026
Base imponible: 1.000,00 EUR
{tax}: 210,00 EUR
Total a pagar: 1.210,00 EUR
Gracias por su confianza."""


def test_a_spanish_scan_with_iva_in_brackets_gets_its_tax_amount() -> None:
    values, _codes = _routed(_scan(SPANISH.format(tax="IVA (21%)"), "spa+eng"))
    assert (values["net_amount"], values["tax_amount"], values["total_amount"]) == (
        "1000.00",
        "210.00",
        "1210.00",
    )


def test_a_spanish_tax_line_the_rules_do_not_read_goes_to_review() -> None:
    # `I.V.A.` is no label of the rules file: the line is a tax line all the same (a tax
    # word and a rate), so a document whose tax amount was not read goes to a person.
    values, codes = _routed(_scan(SPANISH.format(tax="I.V.A. (21%)"), "spa+eng"))
    assert values.get("total_amount") == "1210.00"
    assert values.get("tax_amount") in (None, "210.00")
    if values.get("tax_amount") is None:
        assert "unread-tax-line" in codes, (values, codes)


SIGN_AS_DIGIT = """NORTHWIND TRADERS LTD
INVOICE
Invoice number: INV-5521
Invoice date: 2026-03-04
Currency: GBP
Subtotal: 4100.00
VAT 20%: 420.00
Total due: 4120.00
Thank you for your business."""


RECEIPT_SIGN_AS_DIGIT = """NORTHWIND TRADERS LTD
INVOICE
Invoice number: INV-5522
Invoice date: 2026-03-04
Currency: GBP
Widget, blue      4100.00
Delivery           420.00
Total due: 4120.00
Thank you for your business."""


def test_a_total_whose_sign_was_read_as_a_digit_is_never_finalized_unreviewed() -> None:
    # Only the total is labelled: nothing else would stop `4120.00` (for `£120.00`).
    values, codes = _routed(_scan(RECEIPT_SIGN_AS_DIGIT, "eng"))
    assert "ocr-currency-sign" in codes, (values, codes)


def test_a_currency_sign_read_as_a_digit_goes_to_review_with_the_amounts_right() -> None:
    # What OCR leaves of `£100.00`, `£20.00`, `£120.00`: a 4 in front of every amount.
    values, codes = _routed(_scan(SIGN_AS_DIGIT, "eng"))
    assert "ocr-currency-sign" in codes
    assert (values["net_amount"], values["tax_amount"], values["total_amount"]) == (
        "100.00",
        "20.00",
        "120.00",
    )


def test_a_tax_line_ocr_garbled_past_reading_sends_the_invoice_to_a_person() -> None:
    # OCR read `IVA` as `[VA`: no label, no tax amount, and net and total that differ.
    rules = load_rules(DEFAULT_RULES).fields
    spec = rules.for_type("invoice")
    assert spec is not None
    read = {
        "invoice_number": "A81941",
        "currency": "EUR",
        "net_amount": "14153.70",
        "total_amount": "17125.98",
    }
    fields = {n: {"value": v, "confidence": 0.99, "page": 1} for n, v in read.items()}
    checks = check_fields(fields, spec, rules)
    assert [(c.field, c.code) for c in checks] == [("tax_amount", "amounts-disagree")]
    same = {**fields, "total_amount": {"value": "14153.70", "confidence": 0.99, "page": 1}}
    assert not check_fields(same, spec, rules)  # no tax, and none to read
