"""Which order a document cites: one supplier's order number in its normal form, and never a
card number kept as a key."""

from __future__ import annotations

import pytest

from docflow.document import DocumentSummary
from docflow.matching.keys import BILL, cited


def invoice(po_number: str, vendor: str = "Acme Supplies Ltd") -> DocumentSummary:
    return DocumentSummary.from_json(
        {
            "docType": "invoice",
            "fields": {
                "po_number": {"value": po_number, "confidence": 1.0},
                "vendor_name": {"value": vendor, "confidence": 1.0},
            },
        }
    )


def test_an_invoice_cites_its_suppliers_order_in_normal_form() -> None:
    one, other = cited(invoice("po 4711")), cited(invoice("PO-04711"))
    assert one.role == BILL and one.key is not None and other.key is not None
    assert (one.key.supplier, one.key.number) == (other.key.supplier, other.key.number)
    another = cited(invoice("PO-4711", "Another Supplier GmbH")).key
    assert another is not None and another.supplier != one.key.supplier


@pytest.mark.parametrize(
    "printed", ["4111 1111 1111 1111", "4111.1111.1111.1111", "PO 4111111111111111"]
)
def test_a_card_number_in_the_order_field_is_no_key_and_is_not_repeated(printed: str) -> None:
    said = cited(invoice(printed))
    assert said.role == BILL and said.key is None
    assert said.problem and "4111" not in said.problem
