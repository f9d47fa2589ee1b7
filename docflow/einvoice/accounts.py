"""Payee accounts (BT-84) as one comparable form, and which of them are IBANs.

EN 16931 lets the payee's account be any identifier: an IBAN in CII's `ram:IBANID` or UBL's
`cbc:ID`, a national account number in CII's `ram:ProprietaryID` or the same `cbc:ID`. The
XML is the sender's, and how it writes an account (grouped in fours, with hyphens, dots or
slashes, a no-break or a zero-width space between groups, lower case) changes nothing of the
account a bank transfer reaches. So every account is compared, registered and shown in one
form: the separators `[\\s\\-./]`, every Unicode space and every invisible format character
(zero-width spaces, joiners, a soft hyphen, a byte order mark) removed, upper case.

One function holds the rule (`normalize_account`), so that it can be unified with the
accounts room's (`docflow/accounts/`) without touching a caller."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_SEPARATORS = re.compile(r"[\s\-./]")
# Unicode space separators (Zs) and format characters (Cf: U+200B..U+200D, U+2060, U+FEFF,
# U+00AD...) that a person reading the account never sees.
_INVISIBLE = frozenset({"Zs", "Cf"})
IBAN_SHAPE = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}")


def normalize_account(raw: str) -> str:
    """`raw` without separators, spaces or invisible characters, upper case."""
    kept = "".join(c for c in raw if unicodedata.category(c) not in _INVISIBLE)
    return _SEPARATORS.sub("", kept).upper()


def payee_accounts(raw: Iterable[str | None]) -> tuple[str, ...]:
    """Every account named, normalized, each once, in document order; an empty one is none."""
    normal = (normalize_account(value) for value in raw if value)
    return tuple(dict.fromkeys(account for account in normal if account))


def is_iban_shaped(account: str) -> bool:
    """Shaped as an IBAN (country, check digits, 11 to 30 more): a normalized account that is
    not may still be the payee's (a national account); its checksum is another question."""
    return IBAN_SHAPE.fullmatch(account) is not None
