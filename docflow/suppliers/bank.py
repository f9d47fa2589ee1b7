"""The bank-details check: is the account this invoice asks to be paid on the supplier's own?

A changed bank account is the payment fraud an accounts-payable team meets most, so a payee
IBAN is checked against the registry, never learned from the page:

    registered        every payee IBAN is registered for the matched supplier   -> passes
    unregistered      a payee IBAN the matched supplier has not registered      -> holds
    other-supplier    a payee IBAN registered for another supplier             -> holds
    unknown-supplier  no registered supplier matched: the system downstream onboards it
                      before paying; `[suppliers] unknown_payee = "hold"` holds it
    no-payee          a registered supplier, no payee IBAN printed             -> passes

A payee IBAN is one judged the issuer's (`ownership.py`: the account the reader is asked to
pay). Holding means the `bank-details` stage; approving it lets this invoice finalize and
registers nothing (the supplier master changes only through operators).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from schwifty import IBAN
from schwifty.exceptions import SchwiftyException

from docflow.suppliers.ids import masked_iban
from docflow.suppliers.ownership import ISSUER, IbanFinding
from docflow.suppliers.shapes import Account, BankShown

REGISTERED = "registered"
UNREGISTERED = "unregistered"
OTHER_SUPPLIER = "other-supplier"
UNKNOWN_SUPPLIER = "unknown-supplier"
NO_PAYEE = "no-payee"
HOLDS = (UNREGISTERED, OTHER_SUPPLIER)


def bank_of(iban: str) -> Account:
    """The account masked to its last four, with its bank's name and BIC where schwifty's
    bank registry knows the IBAN's bank code (it ships the national registries)."""
    shown = Account(iban=masked_iban(iban))
    try:
        parsed = IBAN(iban, validate_bban=False)
        bank, bic = parsed.bank_name, parsed.bic
    except (SchwiftyException, ValueError):
        return shown
    if bank:
        shown["bank"] = str(bank)
    if bic:
        shown["bic"] = str(bic)
    return shown


@dataclass(frozen=True)
class BankCheck:
    verdict: str
    printed: tuple[Account, ...] = ()  # the payee accounts, masked, with their banks
    registered: tuple[Account, ...] = ()  # the supplier's registered accounts, masked
    supplier_id: str | None = None

    @property
    def holds(self) -> bool:
        return self.verdict in HOLDS

    def message(self) -> str:
        printed = ", ".join(p["iban"] for p in self.printed) or "none"
        if self.verdict == UNREGISTERED:
            mine = ", ".join(r["iban"] for r in self.registered) or "none registered"
            return (
                f"the invoice asks to be paid on {printed}, which is not registered for "
                f"supplier {self.supplier_id} (registered: {mine})"
            )
        if self.verdict == OTHER_SUPPLIER:
            others = ", ".join(
                f"{p['iban']} of {p['holder']}" for p in self.printed if p.get("holder")
            )
            return f"the invoice asks to be paid on another supplier's account ({others})"
        if self.verdict == UNKNOWN_SUPPLIER:
            if not self.printed:
                return "no registered supplier issued it, and it prints no bank account"
            return f"no registered supplier issued it; it asks to be paid on {printed}"
        return ""

    def shown(self) -> BankShown:
        """What checkpoints, the read model and the review page carry: masked only."""
        out = BankShown(verdict=self.verdict, printed=list(self.printed))
        if self.message():
            out["message"] = self.message()
        if self.supplier_id:
            out["supplierId"] = self.supplier_id
            out["registered"] = list(self.registered)
        return out


def check_bank_details(
    supplier_id: str | None,
    registered: Sequence[str],
    ibans: Sequence[IbanFinding],
    holder: Callable[[str], str | None],
) -> BankCheck:
    """`holder(iban)`: the supplier id that registered that IBAN, if any (the registry)."""
    payees = list(dict.fromkeys(i.value for i in ibans if i.valid and i.owner == ISSUER))
    printed: list[Account] = []
    foreign = False
    for iban in payees:
        owner = holder(iban)
        shown = bank_of(iban)
        if owner and owner != supplier_id:
            shown["holder"] = owner
            foreign = True
        shown["registered"] = bool(supplier_id) and iban in registered
        printed.append(shown)
    mine = tuple(bank_of(i) for i in registered)
    if foreign:
        verdict = OTHER_SUPPLIER
    elif supplier_id is None:
        verdict = UNKNOWN_SUPPLIER
    elif not payees:
        verdict = NO_PAYEE
    elif all(i in registered for i in payees):
        verdict = REGISTERED
    else:
        verdict = UNREGISTERED
    return BankCheck(verdict, tuple(printed), mine if supplier_id else (), supplier_id)
