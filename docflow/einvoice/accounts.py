"""Payee accounts (BT-84) as one comparable form, and which of them are IBANs.

EN 16931 lets the payee's account be any identifier: an IBAN in CII's `ram:IBANID` or UBL's
`cbc:ID`, a national account number in CII's `ram:ProprietaryID` or the same `cbc:ID`. The
XML is the sender's, and how it writes an account (grouped in fours, with hyphens, dots or
slashes, a no-break or a zero-width space between groups, lower case) changes nothing of the
account a bank transfer reaches. So every account is compared, registered and shown in one
form: the separators `[\\s\\-./]`, every Unicode space and every invisible format character
(zero-width spaces, joiners, a soft hyphen, a byte order mark) removed, upper case.

The rule is the accounts room's (`docflow.accounts.normalize_account`), the one every page,
CSV and e-invoice account goes through, so a BT-84 and the page's printed account compare
(full-width digits folded too)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from docflow.accounts import normalize_account

IBAN_SHAPE = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}")

__all__ = ["IBAN_SHAPE", "is_iban_shaped", "normalize_account", "payee_accounts"]


def payee_accounts(raw: Iterable[str | None]) -> tuple[str, ...]:
    """Every account named, normalized, each once, in document order; an empty one is none."""
    normal = (normalize_account(value) for value in raw if value)
    return tuple(dict.fromkeys(account for account in normal if account))


def is_iban_shaped(account: str) -> bool:
    """Shaped as an IBAN (country, check digits, 11 to 30 more): a normalized account that is
    not may still be the payee's (a national account); its checksum is another question."""
    return IBAN_SHAPE.fullmatch(account) is not None
