"""The variant generator of `bench/extraction.py`'s `variants` section on real invoices of the
labelled set: new values printed in place of the old, amounts that still add up, the same
bytes on every run, and a document it cannot change skipped rather than half changed."""

from __future__ import annotations

import json
import re
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest

BENCH = Path(__file__).parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # the benchmarks' modules are imported as bench/ runs them

from _extraction.variants import Skip, make_variant, variant_set  # noqa: E402

REAL = Path(__file__).parents[1] / "data" / "real_invoices"
EINFACH = "mustangproject/EN16931_Einfach"  # German: 15.11.2024, 1.419,00


def _original(name: str) -> tuple[bytes, dict[str, Any]]:
    truth = json.loads((REAL / f"{name}.truth.json").read_text(encoding="utf-8"))
    return (REAL / f"{name}.pdf").read_bytes(), truth


def _text(pdf: bytes) -> str:
    doc = pdfium.PdfDocument(pdf)
    try:
        return "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    finally:
        doc.close()


def _printed(text: str, value: str) -> bool:
    return re.search(rf"(?<![\d.,]){re.escape(value)}(?![\d])(?!\s?%)", text) is not None


def _de_date(iso: str) -> str:
    return date.fromisoformat(iso).strftime("%d.%m.%Y")


def _de_amount(value: str) -> str:
    whole, cents = f"{Decimal(value):.2f}".split(".")
    return f"{int(whole):,}".replace(",", ".") + "," + cents


@pytest.fixture(scope="module")
def einfach() -> tuple[dict[str, Any], bytes, dict[str, Any], str]:
    pdf, truth = _original(EINFACH)
    made, new = make_variant(pdf, truth, EINFACH, 0)
    return truth, made, new, _text(made)


def test_the_variant_prints_every_new_value_and_no_old_one(einfach: Any) -> None:
    truth, _made, new, text = einfach
    old, fresh = truth["fields"], new["fields"]
    assert _printed(_text(_original(EINFACH)[0]), old["invoice_number"])
    for name in ("invoice_number", "invoice_date", "due_date", "net_amount", "tax_amount"):
        assert fresh[name] != old[name], name
    assert not _printed(text, old["invoice_number"]) and _printed(text, fresh["invoice_number"])
    for name in ("invoice_date", "due_date"):
        assert not _printed(text, _de_date(old[name])), name
        assert _printed(text, _de_date(fresh[name])), name
    for name in ("net_amount", "tax_amount", "total_amount"):
        assert not _printed(text, _de_amount(old[name])), name
        assert _printed(text, _de_amount(fresh[name])), name
    # What the variant keeps: the supplier and the layout's own text.
    assert fresh["vendor_name"] == old["vendor_name"] and "Lieferant GmbH" in text
    assert new["derivedFrom"] == truth["file"]
    # Its amounts are new: the original's hand-written line items are not carried over.
    assert truth["tables"]["lines"] and not {"tables", "linesAddUp", "linesNote"} & set(new)


def test_the_dates_move_together_and_the_amounts_still_add_up(einfach: Any) -> None:
    truth, _made, new, _text = einfach
    old, fresh = truth["fields"], new["fields"]
    k, days = new["variant"]["k"], new["variant"]["days"]
    assert 2 <= k <= 9 and days > 0
    for name in ("invoice_date", "due_date"):
        moved = date.fromisoformat(fresh[name]) - date.fromisoformat(old[name])
        assert moved.days == days
    for name in ("net_amount", "tax_amount", "total_amount"):
        assert Decimal(fresh[name]) == Decimal(old[name]) * k
    net, tax, total = (Decimal(fresh[n]) for n in ("net_amount", "tax_amount", "total_amount"))
    assert net + tax == total
    # The invoice number keeps its shape: digits where digits were.
    assert re.sub(r"\d", "9", fresh["invoice_number"]) == re.sub(r"\d", "9", old["invoice_number"])


def test_the_same_variant_is_the_same_bytes_and_another_is_not(einfach: Any) -> None:
    truth, made, new, _text = einfach
    pdf, _ = _original(EINFACH)
    again, again_truth = make_variant(pdf, truth, EINFACH, 0)
    assert again == made and again_truth == new
    other, other_truth = make_variant(pdf, truth, EINFACH, 1)
    assert other != made and other_truth["fields"] != new["fields"]


def test_the_embedded_invoice_data_with_the_old_values_is_dropped(einfach: Any) -> None:
    import pymupdf

    _truth, made, _new, _text = einfach
    original = pymupdf.open(stream=_original(EINFACH)[0], filetype="pdf")
    variant = pymupdf.open(stream=made, filetype="pdf")
    assert original.embfile_count() > 0 and variant.embfile_count() == 0


def test_a_document_whose_number_is_not_printed_as_its_truth_is_skipped() -> None:
    # The Argentine invoice prints its point of sale and number on two lines.
    pdf, truth = _original("simple-procesador-facturas/factura128")
    with pytest.raises(Skip, match="invoice_number"):
        make_variant(pdf, truth, "simple-procesador-facturas/factura128", 0)


def test_the_set_caches_variants_with_their_truth_and_their_scans(tmp_path: Path) -> None:
    found = variant_set(2, cache=tmp_path, only="zugferd_invoice$")
    idents = [d.ident for d in found.documents]
    assert idents == [
        "mustangproject/zugferd_invoice~v0",
        "mustangproject/zugferd_invoice~v1",
        "mustangproject/zugferd_invoice~v0_scan",
        "mustangproject/zugferd_invoice~v1_scan",
    ]
    text, scan = found.documents[0], found.documents[2]
    assert scan.scanned and not text.scanned and scan.truth == text.truth
    assert _text(scan.pdf).strip() == ""  # an image: the reader must OCR it
    assert len(list(tmp_path.rglob("*.truth.json"))) == 2
    again = variant_set(2, cache=tmp_path, only="zugferd_invoice$")  # read from the cache
    assert [d.pdf for d in again.documents] == [d.pdf for d in found.documents]
