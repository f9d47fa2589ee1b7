"""The bank-details check: is the account this invoice asks to be paid on the supplier's own?

A changed bank account is the payment fraud an accounts-payable team meets most, so a payee
account is checked against the registry, never learned from the page. The check fails
closed: a control that cannot read what it checks holds the document. In order:

    other-supplier    a payee account registered for another supplier            -> holds
    unknown-supplier  no registered supplier matched: the system downstream onboards it
                      before paying; `[suppliers] unknown_payee = "hold"` holds it
    unregistered      a payee account the matched supplier has not registered     -> holds
    unrecognized      a payee account no check recognizes (an IBAN whose check digits
                      fail, a value after an account's label that is no account) -> holds
    unreadable        the page asks to be paid to an account (an account's label, a
                      transfer to an account) and none could be read, or a picture at a
                      payment line could not be read                              -> holds
    registered        every payee account is registered for the matched supplier  -> passes
    no-payee          the page asks for no payment to an account: no account's label or
                      transfer instruction, or it says it is paid (or debited from the
                      reader's account) and asks for no transfer                  -> passes

A payee account is any account the page prints that is not a mandate's, the reader's or the
customer's (`ownership.py`): an account nothing ties to the issuer is still on its invoice.
Holding means the `bank-details` stage; approving it lets this invoice finalize and registers
nothing (the supplier master changes only through operators). `BankCheck.holds` is the one
decision the extract step routes on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from schwifty import IBAN
from schwifty.exceptions import SchwiftyException

from docflow.accounts import IBAN as IBAN_KIND
from docflow.accounts import masked_iban
from docflow.document.shown import AccountShown, BankShown
from docflow.suppliers.ownership import IbanFinding

REGISTERED = "registered"
UNREGISTERED = "unregistered"
OTHER_SUPPLIER = "other-supplier"
UNKNOWN_SUPPLIER = "unknown-supplier"
UNRECOGNIZED = "unrecognized"
UNREADABLE = "unreadable"
NO_PAYEE = "no-payee"
HOLDS = (UNREGISTERED, OTHER_SUPPLIER, UNRECOGNIZED, UNREADABLE)
VERDICTS = (
    REGISTERED,
    NO_PAYEE,
    UNREGISTERED,
    OTHER_SUPPLIER,
    UNRECOGNIZED,
    UNREADABLE,
    UNKNOWN_SUPPLIER,
)


@dataclass(frozen=True)
class Asked:
    """What the pages ask for besides the accounts they print (`ownership.Judged`)."""

    instructions: int = 0  # payment instructions that ask to pay to an account
    settled: bool = False  # the page says it is paid or debited, and asks for no transfer
    unreadable: int = 0  # pictures at a payment line that OCR could not read

    @property
    def wants_account(self) -> bool:
        return self.instructions > 0 and not self.settled


def bank_of(finding: IbanFinding | str) -> AccountShown:
    """The account masked to its last four, with its bank's name and BIC where schwifty's
    bank registry knows the IBAN's bank code (it ships the national registries)."""
    if isinstance(finding, str):
        return _with_bank(AccountShown(iban=masked_iban(finding)), finding)
    account = finding.account
    shown = AccountShown(iban=account.masked)
    if account.kind != IBAN_KIND:
        shown["kind"] = account.kind
    if not account.valid:
        shown["valid"] = False
    return _with_bank(shown, account.iban) if account.iban else shown


def _with_bank(shown: AccountShown, iban: str) -> AccountShown:
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
    printed: tuple[AccountShown, ...] = ()  # the payee accounts, masked, with their banks
    registered: tuple[AccountShown, ...] = ()  # the supplier's registered accounts, masked
    supplier_id: str | None = None
    # `[suppliers] unknown_payee = "hold"`: an invoice no registered supplier issued holds.
    hold_unknown: bool = False

    @property
    def holds(self) -> bool:
        """Whether the invoice waits at `bank-details`: the one decision routed on."""
        return self.verdict in HOLDS or (self.verdict == UNKNOWN_SUPPLIER and self.hold_unknown)

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
        if self.verdict == UNRECOGNIZED:
            odd = ", ".join(p["iban"] for p in self.printed if p.get("valid") is False)
            return (
                f"the invoice prints an account no check recognizes ({odd}): a person reads "
                "it against the registered accounts"
            )
        if self.verdict == UNREADABLE:
            return (
                "the invoice asks to be paid to an account that could not be read (an "
                "account's label or a transfer instruction with no account readable, or a "
                "picture at the payment line OCR could not read)"
            )
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
    accounts: Sequence[IbanFinding],
    holder: Callable[[str], str | None],
    asked: Asked = Asked(),
    hold_unknown: bool = False,
) -> BankCheck:
    """`holder(iban)`: the supplier id that registered that IBAN, if any (the registry);
    `asked`: what the pages ask for besides the accounts (`ownership.Judged`)."""
    payees = list({f.value: f for f in accounts if f.payee}.values())
    printed: list[AccountShown] = []
    foreign = unregistered = unrecognized = False
    for payee in payees:
        shown = bank_of(payee)
        iban = payee.registry_iban
        owner = holder(iban) if iban else None
        if owner and owner != supplier_id:
            shown["holder"] = owner
            foreign = True
        mine = bool(supplier_id) and payee.account.matches(registered)
        shown["registered"] = mine
        if not payee.valid:
            unrecognized = True
        elif not mine:
            unregistered = True
        printed.append(shown)
    mine_shown = tuple(bank_of(i) for i in registered) if supplier_id else ()
    if foreign:
        verdict = OTHER_SUPPLIER
    elif supplier_id is None:
        verdict = UNKNOWN_SUPPLIER
    elif unregistered:
        verdict = UNREGISTERED
    elif unrecognized:
        verdict = UNRECOGNIZED
    elif asked.unreadable or (not payees and asked.wants_account):
        verdict = UNREADABLE
    elif payees:
        verdict = REGISTERED
    else:
        verdict = NO_PAYEE
    return BankCheck(verdict, tuple(printed), mine_shown, supplier_id, hold_unknown)
