"""The edges of consulting the registry (`docflow/suppliers/hook.py` `consult`): a checked id
names the registered supplier only when the page's confident name agrees (0.8 and up, not
below), a disagreement says both names (an IBAN masked), the registry's name and currency are
given with their own confidence and the printed value kept, an invoice with no supplier read is
sent to a person, and an e-invoice's data is never read over by a profile. Each test names the
boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from typing import Any

import pytest

from docflow.extract.base import PageInput
from docflow.settings import load_settings
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.data_evidence import Declared
from docflow.suppliers.hook import REGISTRY, consult
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT
from tests.support.aws import Stack

NAME = "Blauwal Hafenlogistik GmbH"
IBAN = BLAUWAL_IBAN.replace(" ", "")


@pytest.fixture
def store(stack: Stack) -> SupplierStore:
    registry = SupplierStore(load_settings().supplier_table)
    import_suppliers(
        registry, f"id,name,vat,iban,currency\nblauwal,{NAME},{BLAUWAL_VAT},{IBAN},EUR\n"
    )
    return registry


def page(*lines: str) -> PageInput:
    return PageInput(page=1, text="\n".join(lines), engine="textlayer", confidence=100.0)


def vendor(name: str, confidence: float) -> dict[str, dict[str, Any]]:
    return {"vendor_name": {"value": name, "confidence": confidence, "page": 1, "box": None}}


NAMES = ["vendor_name", "currency", "invoice_number"]


def test_a_checked_id_under_another_confident_name_is_two_issuers(store: SupplierStore) -> None:
    """The confident name's edge: read at 0.8 it is the page's word against the id."""
    other = page("Möwe Kühllogistik KG", f"USt-IdNr.: {BLAUWAL_VAT}", "RECHNUNG")
    out = consult(store, [other], vendor("Möwe Kühllogistik KG", 0.8), NAMES)
    assert [c.to_json() for c in out.checks] == [
        {
            "field": "vendor_name",
            "code": "supplier-name-disagrees",
            "message": f"the page's issuer is 'Möwe Kühllogistik KG', but vat {BLAUWAL_VAT} is "
            f"registered to '{NAME}': a person says which it is",
        }
    ]
    assert out.fields["vendor_name"]["value"] == "Möwe Kühllogistik KG"
    assert out.shown["supplier"]["certain"] is False
    assert out.shown["supplier"]["supplierId"] == "blauwal"
    assert "profileFields" not in out.shown and "currency" not in out.fields


def test_a_name_read_below_0_8_does_not_overrule_a_checked_id_the_page_confirms(
    store: SupplierStore,
) -> None:
    """Below the edge the printed name is no word of the page's: the supplier's name printed
    on the page confirms the id, and the registry's name stands."""
    confirmed = page(NAME, f"USt-IdNr.: {BLAUWAL_VAT}", "RECHNUNG")
    out = consult(store, [confirmed], vendor("Möwe Kühllogistik KG", 0.79), NAMES)
    assert out.checks == []
    assert out.shown["supplier"]["certain"] is True
    assert out.fields["vendor_name"] == {
        "value": NAME,
        "confidence": REGISTRY,
        "page": 1,
        "box": None,
        "source": "registry",
        "printed": "Möwe Kühllogistik KG",
    }


def test_an_iban_match_under_another_name_shows_the_iban_masked(store: SupplierStore) -> None:
    paid = page(
        "Möwe Kühllogistik KG",
        "RECHNUNG",
        "Bitte überweisen Sie den Betrag",
        f"IBAN {BLAUWAL_IBAN}",
    )
    out = consult(store, [paid], vendor("Möwe Kühllogistik KG", 0.95), NAMES)
    (check,) = out.checks
    assert check.message == (
        "the page's issuer is 'Möwe Kühllogistik KG', but iban DE•••• 3000 is registered to "
        f"'{NAME}': a person says which it is"
    )
    assert IBAN not in str(out.shown)
    assert out.shown["supplier"]["key"] == "iban:DE•••• 3000"


def test_the_registrys_currency_is_given_only_where_the_page_names_none(
    store: SupplierStore,
) -> None:
    confirmed = page(NAME, f"USt-IdNr.: {BLAUWAL_VAT}", "RECHNUNG")
    out = consult(store, [confirmed], vendor(NAME, 0.9), NAMES)
    assert out.fields["currency"] == {
        "value": "EUR",
        "confidence": 0.95,
        "page": 0,
        "box": None,
        "source": "registry",
    }
    read = {**vendor(NAME, 0.9), "currency": {"value": "EUR", "confidence": 0.6}}
    agreed = consult(store, [confirmed], read, NAMES)
    assert agreed.fields["currency"] == {"value": "EUR", "confidence": 0.95}  # two sources
    surer = {**vendor(NAME, 0.9), "currency": {"value": "EUR", "confidence": 0.99}}
    assert consult(store, [confirmed], surer, NAMES).fields["currency"]["confidence"] == 0.99
    other = {**vendor(NAME, 0.9), "currency": {"value": "USD", "confidence": 0.6}}
    assert consult(store, [confirmed], other, NAMES).fields["currency"] == {
        "value": "USD",
        "confidence": 0.6,
    }
    # A type that reads no currency is given none, and no vendor name it does not read.
    bare = consult(store, [confirmed], {}, ["invoice_number"])
    assert "currency" not in bare.fields and "vendor_name" not in bare.fields


def test_an_invoice_with_no_supplier_read_goes_to_a_person(store: SupplierStore) -> None:
    nobody = page("RECHNUNG", "Betrag 100,00 EUR")
    out = consult(store, [nobody], {}, NAMES)
    assert [c.to_json() for c in out.checks] == [
        {
            "field": "vendor_name",
            "code": "no-supplier",
            "message": "no issuer name was read and no registered supplier is confirmed by "
            "the page",
        }
    ]
    assert out.shown["supplier"] == {"status": "unknown"}
    # A name read, or a type that reads none, is no such case.
    assert consult(store, [nobody], vendor("Someone Else GmbH", 0.5), NAMES).checks == []
    assert consult(store, [nobody], {}, ["invoice_number"]).checks == []
    # Without a registry nothing is matched, said or checked.
    alone = consult(None, [nobody], {}, NAMES)
    assert "supplier" not in alone.shown and alone.bank is None
    assert [c.code for c in alone.checks] == ["no-supplier"]


def test_nothing_to_read_is_answered_as_it_came(store: SupplierStore) -> None:
    fields = vendor("x", 0.1)
    out = consult(store, [], fields, NAMES)
    assert out.fields == fields and out.fields is not fields
    assert out.checks == [] and out.shown == {} and out.bank is None


def test_an_e_invoices_data_is_matched_and_checked_but_read_by_no_profile(
    store: SupplierStore,
) -> None:
    declared = Declared(accounts=(IBAN,))
    out = consult(store, [], vendor(NAME, 1.0), NAMES, declared=declared)
    assert out.shown["supplier"]["supplierId"] == "blauwal"
    assert out.bank is not None and out.bank.verdict == "registered"
    assert "profileFields" not in out.shown


def test_the_ids_shown_are_each_once_and_at_most_ten(store: SupplierStore) -> None:
    many = [f"USt-IdNr.: {BLAUWAL_VAT}"] * 3
    out = consult(store, [page(NAME, *many)], vendor(NAME, 0.9), NAMES)
    assert out.shown["taxIds"] == [{"kind": "vat", "value": BLAUWAL_VAT, "valid": True}]
