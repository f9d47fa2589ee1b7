"""The `rules` engine by position: values right of or under their labels, amounts that
reconcile, the vendor from the issuer block, OCR repairs that lower the confidence, and pages
whose reader gave no word positions (laid out from their text)."""

from __future__ import annotations

from docflow.extract.base import PageInput
from docflow.extract.checks.field_checks import check_fields
from docflow.extract.declarations.labels import BUILTIN_KINDS as FIELD_KINDS
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.rules.model import DEFAULT_RULES, load_rules
from tests.support.invoices import FACTUUR, HOTEL

RULES = load_rules(DEFAULT_RULES)
NAMES = list(FIELD_KINDS)


def extract(text: str, engine: str = "textlayer", confidence: float = 100.0):
    return RulesEngine().extract([PageInput(1, text, engine, confidence)], NAMES)


def values(text: str, **kw) -> dict[str, str]:
    return {n: f.value for n, f in extract(text, **kw).fields.items()}


def test_a_page_without_word_positions_extracts_by_its_text() -> None:
    found = extract(FACTUUR)  # no words: laid out from the text's columns
    assert {n: f.value for n, f in found.fields.items()} == {
        "vendor_name": "Coolblue B.V.",
        "invoice_number": "8123456",
        "invoice_date": "2024-01-03",
        "currency": "EUR",
        "net_amount": "826.45",
        "tax_amount": "173.55",
        "total_amount": "1000.00",
    }
    assert all(f.box is None for f in found.fields.values())  # no positions, no boxes


def test_values_under_a_header_row_of_labels() -> None:
    text = (
        "Acme Widgets Inc.\nINVOICE\n"
        "Invoice No.        Invoice Date        Due Date\n"
        "A-7731             31-Dec-2017         30 Jan 2018\n"
        "Subtotal      100.00 USD\nSales tax      7.00 USD\nTotal due      107.00 USD"
    )
    assert values(text) == {
        "vendor_name": "Acme Widgets Inc.",
        "invoice_number": "A-7731",
        "invoice_date": "2017-12-31",
        "due_date": "2018-01-30",
        "currency": "USD",
        "net_amount": "100.00",
        "tax_amount": "7.00",
        "total_amount": "107.00",
    }


def test_reconciliation_picks_the_amounts_that_add_up() -> None:
    # A line item under the `Total` column header and a `Total` printed twice: only one
    # combination of net, tax and total adds up, and its amounts are held by it.
    text = (
        "Description     Qty     Price     Total\nWidget     2     40.00     80.00\n"
        "Subtotal: 80.00 EUR\nVAT 19%: 15.20 EUR\nTotal: 95.20 EUR\nTotal: 95.20 EUR"
    )
    found = extract(text).fields
    assert (found["net_amount"].value, found["tax_amount"].value) == ("80.00", "15.20")
    assert found["total_amount"].value == "95.20" and found["total_amount"].confidence >= 0.95


def test_two_tax_lines_are_one_tax() -> None:
    found = {n: f.value for n, f in extract(HOTEL).fields.items()}
    assert found["total_amount"] == "11032.00"
    assert found["tax_amount"] == "1182.00"  # CGST + SGST
    assert found["vendor_name"] == "Hotel Grand Palace Pvt. Ltd."


def test_the_customer_block_is_not_the_vendor() -> None:
    text = "INVOICE\nBill to:\nBig Customer GmbH\nInvoice number: 77-1\nTotal: 10.00 EUR"
    assert "vendor_name" not in values(text)


def test_an_invoice_number_is_never_a_bare_amount() -> None:
    assert "invoice_number" not in values("INVOICE 24.99\nTotal: 24.99 USD")


def test_an_ocr_repair_lowers_the_confidence_and_is_checked() -> None:
    text = "INVOICE\nInvoice number: INV-O005\nTotal due: 120.00 EUR"
    found = extract(text, engine="tesseract", confidence=95.0)
    number = found.fields["invoice_number"]
    assert number.value == "INV-0005" and found.repairs == {"invoice_number": "INV-O005"}
    assert number.confidence < RULES.fields.threshold("invoice_number")
    summary = {n: f.summary() for n, f in found.fields.items()}
    spec = RULES.fields.for_type("invoice")
    codes = {
        (c.field, c.code) for c in check_fields(summary, spec, RULES.fields, (), found.repairs)
    }
    assert ("invoice_number", "ocr-repair") in codes
    # On a text layer the letter is what was printed: no repair.
    assert values(text)["invoice_number"] == "INV-O005"


def test_a_tax_line_that_does_not_parse_is_unreadable() -> None:
    found = extract(
        "INVOICE\nInvoice number: A-1\nSubtotal: 100.00 EUR\nVAT 20%: 2O,OO\nTotal: 120.00 EUR"
    )
    assert "tax_amount" not in found.fields
    assert {"field": "tax_amount", "reason": "label found, value unreadable"} in found.rejected


def test_a_form_box_gives_the_value_right_aligned_under_its_label() -> None:
    # A fiscal form's boxes: each label at a box's top left, its value at the box's right,
    # one line down and clear of the label's own width.
    from docflow.readers.base import Word

    def word(text: str, x0: float, y0: float) -> Word:
        return Word(text, (x0, y0, x0 + 0.012 * len(text), y0 + 0.01))

    words = [
        word("Nº", 0.80, 0.03),
        word("000.000.046", 0.83, 0.03),
        word("VALOR", 0.03, 0.30),
        word("DO", 0.10, 0.30),
        word("ICMS", 0.13, 0.30),
        word("VALOR", 0.40, 0.30),
        word("TOTAL", 0.47, 0.30),
        word("DA", 0.54, 0.30),
        word("NOTA", 0.57, 0.30),
        word("UF", 0.90, 0.30),
        word("171,60", 0.30, 0.315),
        word("1.950,00", 0.78, 0.315),
    ]
    page = PageInput(1, "", "textlayer", 100.0, words=words)
    found = RulesEngine().extract([page], NAMES).fields
    assert found["tax_amount"].value == "171.60"
    assert found["total_amount"].value == "1950.00"
    assert found["invoice_number"].value == "000.000.046"
