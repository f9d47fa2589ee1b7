"""An account found in print or in data: its kind, its compact value, whether its checks
pass, the IBAN it is (where one can be told), and the only form that may be shown.

    iban    an IBAN: its country's length and BBAN structure, and ISO 13616's mod 97
            (schwifty)
    uk      a UK sort code and account number: the value is the six digits of the sort
            code and the eight of the account (a registered GB IBAN ends in them)
    us      a US routing number (ABA, `stdnum.us.rtn`) and an account number: the nine
            digits of the routing number, then the account's
    de      a German Kontonummer with its Bankleitzahl: the IBAN it is (schwifty), valid
            when the bank code is a bank's and the national check passes
    other   any other account: a national number python-stdnum checks (a Spanish CCC, a
            Czech account, an Argentine CBU, a New Zealand account) or a French RIB or a
            Portuguese NIB (their IBAN's national check), or a value printed where an
            account belongs that no check recognizes (`valid=False`)

The whole value is for comparing inside a step only: checkpoints, the read model and logs
carry `masked` (the last four characters, never more).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from schwifty import IBAN as _IBAN
from schwifty.exceptions import SchwiftyException

from docflow.accounts.normalize import normalize_account

IBAN, UK, US, DE, OTHER = "iban", "uk", "us", "de", "other"
KINDS = (IBAN, UK, US, DE, OTHER)
DOT = "•"
_PREFIX = {UK: "UK", US: "US", DE: "DE"}


@dataclass(frozen=True)
class Account:
    kind: str
    value: str  # compact; never leaves a step whole
    valid: bool
    iban: str | None = None  # the IBAN this account is, where it can be told

    @property
    def masked(self) -> str:
        """How a page, a log or the read model may show it: `DE•••• 3000` for an account
        that is an IBAN, `UK•••• 6819` for a national one, `•••• 1234` for the rest; a
        value too short to keep four characters hidden shows none."""
        if self.iban:
            return masked_iban(self.iban)
        if self.kind == IBAN:
            return masked_iban(self.value)
        tail = self.value[-4:] if len(self.value) >= 8 else ""
        prefix = _PREFIX.get(self.kind, "")
        return f"{prefix}{DOT * 4} {tail}".rstrip() if prefix else f"{DOT * 4} {tail}".rstrip()

    def matches(self, registered: Collection[str]) -> bool:
        """Whether this is one of `registered` (the registry's compact IBANs): the same
        IBAN, or a national account whose IBAN is one of them, or (UK) a GB IBAN that ends
        in its sort code and account number (the IBAN's bank code is the bank's BIC prefix,
        which the page's sort code does not say)."""
        if not self.valid:
            return False
        if self.iban is not None:
            return self.iban in registered
        if self.kind == UK:
            return any(r.startswith("GB") and r[8:] == self.value for r in registered)
        return False


def masked_iban(value: str) -> str:
    """An IBAN as it may be shown: country and last four (`DE•••• 3000`)."""
    return f"{value[:2]}{DOT * 4} {value[-4:]}"


def iban_valid(value: str) -> bool:
    """ISO 13616: the country's length and BBAN structure, and mod 97 (schwifty)."""
    try:
        _IBAN(value)
    except (SchwiftyException, ValueError):
        return False
    return True


def iban_of(country: str, bban: str) -> str | None:
    """The IBAN of a national account (`bban`: the country's BBAN), its national check digits
    checked where schwifty knows them; None where they fail or the BBAN is not the
    country's."""
    try:
        return str(_IBAN.from_bban(country, bban, validate_bban=True).compact)
    except (SchwiftyException, ValueError):
        return None


def parse_account(raw: str) -> Account | None:
    """One account as written on its own (an e-invoice's BT-84, a CSV cell): an IBAN by its
    shape (checked), else `other` and unchecked (a national number without the label that
    would say which it is). None for a value with no digit in it (nothing to pay to)."""
    value = normalize_account(raw)
    if not value or not any(c.isdigit() for c in value):
        return None
    if (
        15 <= len(value) <= 34
        and value[:2].isalpha()
        and value[2:4].isdigit()
        and value.isascii()
        and value.isalnum()
    ):
        valid = iban_valid(value)
        return Account(IBAN, value, valid, value if valid else None)
    return Account(OTHER, value, False)
