"""Supplier evidence a document states as data rather than prints: an e-invoice's seller VAT
id (BT-31) and tax number (BT-32), and its payee accounts (BT-84).

The registry takes them exactly as it takes ids read on a page: each checked by the same
`python-stdnum` checks and keyed in the same compact form, so a VAT id in the XML names a
registered supplier as a printed one does, and an IBAN in the XML meets the bank-details
check as a printed one does (an attacker's account in a known supplier's XML still holds the
invoice). A payee account in the data is the issuer's by definition (the account BT-84 asks to
be paid on), so it needs none of the page's clues (`ownership.py`) to be judged the payee.

Every payee account goes to the bank-details check, whatever its form (`payees`): a national
account or an IBAN whose check digits fail is still where a payment run would send the money.
It is registered for no supplier (the registry holds checked IBANs), so it holds the invoice.
A page's IBAN that fails its check is nobody's (a misread); the data's is not misread.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from docflow.accounts import OTHER, parse_account
from docflow.suppliers.ids import FoundId, find_tax_ids, iban_valid, normalize, vat_valid
from docflow.suppliers.ownership import ISSUER, IbanFinding

PAYEE_DATA = "payee-data"  # why a declared IBAN is the issuer's: the data names it the payee


@dataclass(frozen=True)
class Declared:
    tax_ids: tuple[FoundId, ...] = ()
    # Every payee account, compact, upper case, IBAN or not: never checkpointed whole.
    accounts: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tax_ids or self.accounts)

    @property
    def ibans(self) -> tuple[str, ...]:
        """The payee accounts that are IBANs (their check digits hold): what may name a
        registered supplier, as a printed IBAN may."""
        return tuple(a for a in self.accounts if iban_valid(a))

    @classmethod
    def of(
        cls, vat_id: str | None, tax_number: str | None, accounts: Sequence[str] = ()
    ) -> Declared:
        """The seller's ids as written: the VAT id checked as a VAT number; the tax number
        by its own shape (a French SIREN or an EU VAT number written there), a national
        number none recognizes matching nothing, as on a page. `accounts`: every payee
        account (BT-84), an IBAN or not."""
        found: list[FoundId] = []
        if vat_id and vat_id.strip():
            value = normalize("vat", vat_id)
            found.append(FoundId("vat", value, vat_valid(value), 0, len(vat_id)))
        if tax_number and tax_number.strip():
            found.extend(f for f in find_tax_ids(tax_number) if f.key not in {x.key for x in found})
        compact = (normalize("iban", a) for a in accounts if a.strip())
        return cls(tuple(found), tuple(dict.fromkeys(a for a in compact if a)))

    def with_ibans(
        self, judged: Sequence[IbanFinding], registered: Collection[str] = ()
    ) -> list[IbanFinding]:
        """The page's judged IBANs with the declared ones: a declared IBAN is the payee's
        whatever the page's clues said of it (printed on a page, it keeps that page)."""
        pages = {i.value: i.page for i in judged}
        ibans = self.ibans
        kept = [i for i in judged if i.value not in ibans]
        for iban in ibans:
            why = "registered" if iban in registered else PAYEE_DATA
            kept.append(IbanFinding(iban, True, ISSUER, why, pages.get(iban, 0)))
        return kept

    def payees(self, findings: Sequence[IbanFinding]) -> list[IbanFinding]:
        """`findings` (`with_ibans`'s) with every other declared account as a payee, for the
        bank-details check only: a national account or an IBAN whose check digits fail is
        where the data asks to be paid, so it is checked (and, registered nowhere, holds)
        instead of being passed over as a misread."""
        shown = {i.value for i in findings if i.valid and i.owner == ISSUER}
        pages = {i.value: i.page for i in findings}
        extra = []
        for account in self.accounts:
            if account in shown:
                continue
            # Its kind and the IBAN it is, as the account reader says (`other` for a national
            # number with no label to say which): shown and keyed like a printed one.
            parsed = parse_account(account)
            kind, iban = (parsed.kind, parsed.iban) if parsed is not None else (OTHER, None)
            page = pages.get(account, 0)
            extra.append(IbanFinding(account, True, ISSUER, PAYEE_DATA, page, kind, iban))
        return [*findings, *extra]
