"""An XML-only invoice's page: every sample's invoice as text holds its number, parties, each
line, the VAT breakdown, the totals and the payee account exactly as the XML states them."""

from __future__ import annotations

from pathlib import Path

import pytest

from docflow.einvoice import detect, read
from docflow.einvoice.text import render

DATA = Path(__file__).parents[1] / "data" / "einvoice"
SAMPLES = sorted(p.name for p in DATA.iterdir() if p.suffix in (".xml", ".pdf"))


@pytest.mark.parametrize("name", SAMPLES)
def test_the_invoice_reads_as_text(name: str) -> None:
    found = detect((DATA / name).read_bytes())
    assert found is not None
    invoice = read(found)
    text = render(invoice)
    for value in (invoice.number, invoice.seller.name, invoice.buyer.name, invoice.total):
        if value:
            assert value in text
    for line in invoice.lines:
        assert f"net {line.net}" in text
    for row in invoice.vat:
        assert f"tax {row.tax}" in text
    for iban in invoice.ibans:
        assert f"IBAN: {iban}" in text
    assert text.splitlines()[0].startswith(("INVOICE", "CREDIT NOTE"))


def test_a_credit_note_says_so_with_its_type_code() -> None:
    text = render(read((DATA / "cen-ubl-creditnote1.xml").read_bytes()))
    assert text.startswith("CREDIT NOTE (type code 381)\n")
    assert "Lines (1)\n  1. Exonération du versement du PP | qty 1.00 C62" in text
