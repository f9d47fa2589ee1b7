"""Matching a page to a learned layout reads every layout's outline (fingerprint, issuer,
supplier, type), not its profile's fields, and then the one that matched whole (moto)."""

from __future__ import annotations

from docflow.extract.rules_engine.layout import from_text
from docflow.suppliers import profile
from docflow.suppliers.match import find_layout
from tests.suppliers.layouts import put_layout, store, trusted
from tests.support.aws import Stack

PAGE = """Reiherwerk GmbH
Hafenstrasse 4, 20457 Hamburg
RECHNUNG
Belegnummer: RW-2201
Datum: 04.03.2026
Gesamtbetrag: 1.190,00 EUR"""


def test_outlines_carry_what_matching_reads_and_no_fields(stack: Stack) -> None:
    page = from_text(1, PAGE)
    number = trusted(profile.learn_entry([page], "invoice_number", "RW-2201"))
    whole = put_layout(PAGE, "Reiherwerk GmbH", {"invoice_number": number}, supplier_id="reiher")

    [outline] = store().outlines()

    assert outline.layout_id == whole.layout_id and outline.version == whole.version
    assert outline.issuer == "Reiherwerk GmbH" and outline.supplier_id == "reiher"
    assert outline.fingerprint == whole.fingerprint and outline.doc_type == "invoice"
    assert set(outline.profile["fields"]) == {"vendor_name"}  # not the number's entry


def test_the_layout_that_matched_is_read_whole(stack: Stack) -> None:
    page = from_text(1, PAGE.replace("RW-2201", "RW-2202"))
    number = trusted(profile.learn_entry([from_text(1, PAGE)], "invoice_number", "RW-2201"))
    whole = put_layout(PAGE, "Reiherwerk GmbH", {"invoice_number": number})

    found = find_layout(store(), [page])

    assert found.layout == whole and found.score > 0
    assert found.layout is not None and "invoice_number" in found.layout.profile["fields"]


def test_no_layout_matches_a_page_of_another_issuer(stack: Stack) -> None:
    put_layout(PAGE, "Reiherwerk GmbH")
    other = PAGE.replace("Reiherwerk GmbH", "Storchenbau AG")

    assert find_layout(store(), [from_text(1, other)]).layout is None
