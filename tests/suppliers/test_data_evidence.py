"""Supplier evidence an e-invoice states as data: checked and keyed as printed ids are, and a
declared payee IBAN the issuer's whatever the page's clues said of it."""

from __future__ import annotations

from docflow.suppliers.data_evidence import PAYEE_DATA, Declared
from docflow.suppliers.ownership import ISSUER, OTHER, IbanFinding


def test_ids_are_checked_and_compacted_as_printed_ones_are() -> None:
    declared = Declared.of("NL8200.98.395.B.01", "22/815/0815/4", ["nl57 rabo 0107 3075 10"])
    assert [(f.key, f.valid) for f in declared.tax_ids] == [("vat:NL820098395B01", True)]
    assert declared.ibans == ("NL57RABO0107307510",)
    bad = Declared.of("DE000000000", None, ["DE00123456780000000000"])
    assert [(f.key, f.valid) for f in bad.tax_ids] == [("vat:DE000000000", False)]
    assert not Declared.of(None, "  ", [])


def test_a_declared_iban_is_the_payee_and_keeps_the_page_it_was_printed_on() -> None:
    iban = "DE89370400440532013000"
    mandate = IbanFinding(iban, True, OTHER, "debit-mandate", 2)
    other = IbanFinding("GB82WEST12345698765432", True, OTHER, "customer-block", 1)
    found = Declared.of(None, None, [iban]).with_ibans([mandate, other])
    assert [(i.value, i.owner, i.why, i.page) for i in found] == [
        ("GB82WEST12345698765432", OTHER, "customer-block", 1),
        (iban, ISSUER, PAYEE_DATA, 2),
    ]
    registered = Declared.of(None, None, [iban]).with_ibans([], registered=[iban])
    assert [(i.why, i.page) for i in registered] == [("registered", 0)]
