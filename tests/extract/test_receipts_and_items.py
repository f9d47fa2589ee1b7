"""What reading real vendors' documents taught the rules engine: till receipts (`RM` amounts,
`SDN BHD`, product names in capitals), line items labelled like totals, a zero beside a tax,
a customer's mail domain, a name broken over two lines, and OCR specks between a label and its
value. Text and hand-placed word boxes, no AWS."""

from __future__ import annotations

from docflow.extract.base import PageInput
from docflow.extract.declarations.labels import BUILTIN_KINDS as FIELD_KINDS
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.readers.base import Word


def values(text: str, words: tuple[Word, ...] = (), engine: str = "textlayer") -> dict[str, str]:
    page = PageInput(1, text, engine, 90.0 if engine != "textlayer" else 100.0, words=words)
    found = RulesEngine().extract([page], list(FIELD_KINDS))
    return {n: f.value for n, f in found.fields.items()}


def line_words(lines: list[list[tuple[str, float]]]) -> tuple[Word, ...]:
    """Words placed by hand: each line's words at the given left edges, 2% of the page high."""
    out = []
    for row, line in enumerate(lines):
        top = 0.05 + row * 0.03
        for text, left in line:
            out.append(Word(text, (left, top, left + 0.012 * len(text), top + 0.02), 90.0))
    return tuple(out)


def tight(text: str) -> list[tuple[str, float]]:
    """A line of words set as print sets them: one narrow space apart."""
    out, left = [], 0.05
    for word in text.split():
        out.append((word, left))
        left += 0.012 * len(word) + 0.006
    return out


def test_a_receipts_currency_is_the_sign_beside_its_amounts_not_a_word_in_capitals() -> None:
    found = values(
        "LIGHTROOM GALLERY SDN BHD\nNo: 28, JALAN ASTANA 1C\nTAX INVOICE\n"
        "1 SUMMER CUP 48X230ML 8.49\nCASH RM 20.00\nCHANGE RM 11.51"
    )
    assert found["currency"] == "MYR"
    assert found["vendor_name"] == "LIGHTROOM GALLERY SDN BHD"


def test_no_currency_from_a_product_or_a_legal_form_or_a_postcode() -> None:
    found = values(
        "FUYI MINI MARKET SDN BHD\nTAX INVOICE\n1 SUMMER CUP 48X230ML 8.49\nRoma RM 00144"
    )
    assert "currency" not in found


def test_a_label_repeated_on_every_line_item_is_not_the_documents_total() -> None:
    found = values(
        "Fattura\nNumero documento: 123\nValore totale: 5.00\nValore totale: 20.00\n"
        "Valore totale: 4.50\nTotale imponibile/importo: 36.08\nTotale imposta: 7.94"
    )
    assert "total_amount" not in found
    assert (found["net_amount"], found["tax_amount"]) == ("36.08", "7.94")


def test_between_two_tax_lines_a_zero_is_the_lesser_reading() -> None:
    found = values("NOTA FISCAL\nVALOR DO ICMS: 171,60\nVALOR DO IPI: 0,00")
    assert found["tax_amount"] == "171.60"


def test_the_customers_mail_domain_is_no_evidence_for_the_vendor() -> None:
    lines = [
        [*tight("Le Fournisseur"), ("Client", 0.55)],
        [*tight("35 rue d'ici"), ("me@buyer.com", 0.55)],
        tight("FACTURE DU MOIS DE JANVIER POUR LES SERVICES RENDUS"),
        tight("REF COMPTABLE : BUYER ACCOUNT"),
    ]
    words = line_words(lines)
    text = "\n".join(" ".join(w for w, _ in line) for line in lines)
    assert values(text, words)["vendor_name"] == "Le Fournisseur"


def test_a_name_broken_after_an_ampersand_is_one_name() -> None:
    text = "HOME MASTER HARDWARE &\nELECTRICAL\nNO. 113G, JALAN SETIA\nTAX INVOICE\nTotal: 15.90"
    assert values(text)["vendor_name"] == "HOME MASTER HARDWARE & ELECTRICAL"


def test_on_a_scan_a_speck_between_a_label_and_its_value_is_passed_over() -> None:
    lines = [
        tight("GOODS SOLD ARE NOT RETURNABLE PLEASE KEEP THIS RECEIPT"),
        tight("THANK YOU AND PLEASE COME AGAIN SOON"),
        [("Sub", 0.05), ("Total", 0.10), ("o", 0.40), ("RM", 0.60), ("68.87", 0.66)],
        [("GST", 0.05), ("6%", 0.10), ("9", 0.40), ("RM", 0.60), ("4.13", 0.66)],
        [("TOTAL", 0.05), ("RM", 0.60), ("73.00", 0.66)],
    ]
    text = "\n".join(" ".join(w for w, _ in line) for line in lines)
    found = values(text, line_words(lines), engine="tesseract")
    assert (found["net_amount"], found["tax_amount"], found["total_amount"]) == (
        "68.87",
        "4.13",
        "73.00",
    )
