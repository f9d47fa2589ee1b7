"""The edges of a learned profile's trust (`docflow/suppliers/profile.py`) and of the hook's
reconciliation (`docflow/suppliers/hook.py` `_reconciled`): net + tax = total within a cent,
never a euro; the confirmations a field needs; the misses that suspend it. Each test names the
boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from typing import Any

from docflow.extract.base import PageInput
from docflow.extract.layout import from_text
from docflow.settings import load_settings
from docflow.suppliers import profile
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.hook import _reconciled, consult
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_VAT
from tests.support.aws import Stack

NAMES = ("net_amount", "tax_amount", "total_amount")


def amounts(net: Any, tax: Any, total: Any, **more: Any) -> dict[str, dict[str, Any]]:
    return {n: {"value": v, **more} for n, v in zip(NAMES, (net, tax, total), strict=True)}


def test_net_plus_tax_is_the_total_within_a_cent_and_no_more() -> None:
    """The tolerance's edge: 0.01 either way reconciles, 0.02 does not (a tolerance of 1.00
    would let a profile supply a total a euro off)."""
    assert _reconciled(amounts("100.00", "19.00", "119.00"))
    assert _reconciled(amounts("100.00", "19.00", "119.01"))
    assert _reconciled(amounts("100.00", "19.00", "118.99"))
    assert not _reconciled(amounts("100.00", "19.00", "119.02"))
    assert not _reconciled(amounts("100.00", "19.00", "118.98"))
    assert not _reconciled(amounts("100.00", "19.00", "120.00"))
    assert not _reconciled(amounts("100.00", "19.00", "118.00"))
    # Numbers as the engine writes them, and as JSON numbers.
    assert _reconciled(amounts(100, 19.0, "119.00"))


def test_an_amount_derived_missing_or_unreadable_reconciles_nothing() -> None:
    for name in NAMES:
        derived = amounts("100.00", "19.00", "119.00")
        derived[name]["derived"] = True
        assert not _reconciled(derived), name
        missing = amounts("100.00", "19.00", "119.00")
        del missing[name]
        assert not _reconciled(missing), name
        for bad in ("n/a", None, {"v": 1}):
            odd = amounts("100.00", "19.00", "119.00")
            odd[name]["value"] = bad
            assert not _reconciled(odd), (name, bad)
    assert _reconciled(amounts("100.00", "19.00", "119.00", derived=False))


PAGE = f"""Blauwal Hafenlogistik GmbH
USt-IdNr.: {BLAUWAL_VAT}
RECHNUNG
Belegkennung: E2026000000017
Nettobetrag: 1.000,00 EUR
MwSt: 190,00 EUR
Gesamtbetrag: 1.190,00 EUR"""


def test_the_profile_fills_a_total_only_where_net_plus_tax_reaches_it_within_a_cent(
    stack: Stack,
) -> None:
    """Through `consult`: a total the rules did not read is the profile's only where the
    rules' net and tax add up to it within 0.01."""
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    entry = profile.learn_entry([from_text(1, PAGE)], "total_amount", "1190.00")
    assert entry is not None
    store.update_profile(
        "blauwal", lambda p: {"fields": {"total_amount": {**entry, "confirmed": 2}}}
    )

    def read(net: str, tax: str) -> dict[str, dict[str, Any]]:
        return {
            "net_amount": {"value": net, "confidence": 0.9, "page": 1, "box": None},
            "tax_amount": {"value": tax, "confidence": 0.9, "page": 1, "box": None},
        }

    for net, tax in (("1000.00", "190.00"), ("1000.00", "189.99"), ("1000.01", "190.00")):
        out = consult(store, [page], read(net, tax), list(NAMES))
        assert out.fields["total_amount"]["source"] == "profile", (net, tax)
        assert out.fields["total_amount"]["value"] == "1190.00"
    for net, tax in (("1000.00", "189.98"), ("1000.00", "190.02"), ("999.00", "190.00")):
        out = consult(store, [page], read(net, tax), list(NAMES))
        assert "total_amount" not in out.fields, (net, tax)
