"""Labels that, on a given page, name something other than the document's field: a generic
`Date` qualified by another word, a print stamp with its page number, a bare `Nº` after a
word; and a row of totals' labels, which heads the totals, not line items. Pure, no AWS."""

from __future__ import annotations

from docflow.extract.base import PageInput
from docflow.extract.rules_engine.engine import RulesEngine

NAMES = ["invoice_number", "invoice_date", "net_amount", "tax_amount", "total_amount"]


def read(text: str) -> dict[str, tuple[str, float]]:
    page = PageInput(page=1, text=text, engine="textlayer", confidence=100.0)
    found = RulesEngine().extract([page], NAMES).fields
    return {name: (f.value, f.confidence) for name, f in found.items()}


def test_a_qualified_date_names_another_date() -> None:
    got = read(
        "FACTURE N° : F20180027\n"
        "Date : 31/12/2018\n"
        "Date début : 01/12/2018\n"
        "Total TTC : 110,00 EUR\n"
    )
    value, confidence = got["invoice_date"]
    assert value == "2018-12-31" and confidence > 0.9  # no rival reading makes it unsure


def test_a_print_stamp_with_its_page_number_is_not_the_documents_date() -> None:
    got = read(
        "Rechnungsnummer: 2015738820\n"
        "Datum: 01.11.2024\n"
        "Gesamtbetrag: 447,88 EUR\n"
        "\n\n\n"
        "Datum: 30.10.2024 Zeit: 04:59:13 Seite: 1\n"
    )
    value, confidence = got["invoice_date"]
    assert value == "2024-11-01" and confidence > 0.9


def test_a_bare_number_sign_after_a_word_is_that_words_number() -> None:
    got = read(
        "FACTURA\n"
        "Comp. Nro: 00001360\n"
        "UW SINIESTRO Nº2730591\n"
        "CAE N°: 73079568739200\n"
        "Importe Total: $ 228250,00\n"
    )
    value, confidence = got["invoice_number"]
    assert value == "00001360" and confidence > 0.9


def test_a_row_of_totals_labels_heads_the_totals_not_line_items() -> None:
    items = (
        "Description     Qty     Unit price     Amount\n"
        "Support         1       100,00         100,00\n"
    )
    totals = "TOTAL HT     TOTAL TVA     TOTAL TTC\n100,00       4,90          104,90\n"
    got = read("FACTURE N° : F1\n" + items + "\n" + totals)
    assert got["net_amount"][0] == "100.00" and got["tax_amount"][0] == "4.90"
    # Read as line items under a header they would score 0.6 before reconciliation.
    assert got["net_amount"][1] > 0.9 and got["tax_amount"][1] > 0.9
