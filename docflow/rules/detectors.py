"""Sensitive-data detectors. Each finds validated matches; the pipeline keeps only their counts,
and the review page shows only their masked forms, so a matched value is never stored."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from docflow.accounts import IBAN, parse_account
from docflow.accounts.ibans import find_in_text

_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
_SSN = re.compile(r"(?<!\d)(\d{3})-(\d{2})-(\d{4})(?!\d)")
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
DOT = "•"


@dataclass(frozen=True)
class Finding:
    """One detected value: where it is in the text and how it may be shown."""

    detector: str
    start: int
    end: int
    masked: str


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# Where card numbers are issued (ISO/IEC 7812 issuer ranges of the payment networks, and the
# petroleum industry's fleet and fuel cards) and how long they are there: (first, last prefix,
# lengths). One in ten digit runs passes Luhn, and invoices print many long ones (SIRET numbers
# are Luhn-valid by design, GTINs and account numbers share its mod-10 shape): on the real
# labelled scans, four invoices with no card went to the privacy stage for a Luhn-valid run
# before this table. 13-digit Visa numbers are no longer issued; a 13-digit run is an EAN.
_ISSUED: tuple[tuple[int, int, range], ...] = (
    (4, 4, range(16, 20)),  # Visa (16, 19)
    (51, 55, range(16, 17)),  # Mastercard
    (2221, 2720, range(16, 17)),  # Mastercard's 2-series
    (2200, 2204, range(16, 17)),  # Mir
    (34, 34, range(15, 16)),  # American Express
    (37, 37, range(15, 16)),
    (300, 305, range(14, 20)),  # Diners Club
    (36, 36, range(14, 20)),
    (38, 39, range(14, 20)),
    (3528, 3589, range(16, 20)),  # JCB
    (6011, 6011, range(16, 20)),  # Discover
    (644, 649, range(16, 20)),
    (65, 65, range(16, 20)),
    (62, 62, range(16, 20)),  # UnionPay
    (50, 50, range(16, 20)),  # Maestro
    (56, 69, range(16, 20)),
    (81, 82, range(16, 17)),  # RuPay
    (7, 7, range(16, 20)),  # fleet and fuel cards (ENI's "Nr carta")
)
# An identifier whose own check digits can pass Luhn, named just before the run.
_OTHER_ID = re.compile(r"(?:SIRE[NT]|GTIN|EAN|ISBN|DUNS|UPC)\W{0,4}$", re.IGNORECASE)


def issued_card(digits: str) -> bool:
    """A number a card issuer could have given: a network's range and length, Luhn-valid."""
    if not luhn_ok(digits) or len(set(digits)) == 1:
        return False
    for first, last, lengths in _ISSUED:
        width = len(str(first))
        if first <= int(digits[:width]) <= last and len(digits) in lengths:
            return True
    return False


def find_cards(text: str) -> Iterator[Finding]:
    for match in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", match.group())
        if not issued_card(digits) or _OTHER_ID.search(
            text[max(0, match.start() - 24) : match.start()]
        ):
            continue
        yield Finding("card_number", match.start(), match.end(), f"{DOT * 4} {digits[-4:]}")


def find_ssns(text: str) -> Iterator[Finding]:
    for match in _SSN.finditer(text):
        area, group, serial = match.groups()
        if area in ("000", "666") or area.startswith("9") or group == "00" or serial == "0000":
            continue
        yield Finding("us_ssn", match.start(), match.end(), f"{DOT * 3}-{DOT * 2}-{serial}")


def iban_ok(candidate: str) -> bool:
    """A valid IBAN however it is printed (separators, grouping, case): the account
    reader's check (docflow.accounts)."""
    account = parse_account(candidate)
    return account is not None and account.kind == IBAN and account.valid


def find_ibans(text: str) -> Iterator[Finding]:
    """Every valid IBAN in `text` in any printed form (any space, dash, dot or slash between
    its characters, any grouping or case, broken over two lines): the account reader's
    finder, so the privacy count and the bank-details check see the same accounts. Offsets
    are the original text's; one broken over two lines spans the line break."""
    for account, start, end in find_in_text(text):
        if account.kind == IBAN and account.valid:
            yield Finding("iban", start, end, account.masked)


def find_emails(text: str) -> Iterator[Finding]:
    for match in _EMAIL.finditer(text):
        local, _, domain = match.group().partition("@")
        yield Finding("email", match.start(), match.end(), f"{local[0]}{DOT * 3}@{domain}")


FINDERS: dict[str, Callable[[str], Iterator[Finding]]] = {
    "card_number": find_cards,
    "us_ssn": find_ssns,
    "iban": find_ibans,
    "email": find_emails,
}


def _counter(finder: Callable[[str], Iterator[Finding]]) -> Callable[[str], int]:
    return lambda text: sum(1 for _ in finder(text))


DETECTORS: dict[str, Callable[[str], int]] = {
    name: _counter(finder) for name, finder in FINDERS.items()
}


def find_all(text: str, detectors: tuple[str, ...] | None = None) -> list[Finding]:
    """Every finding of the named detectors, in text order, overlaps dropped (first wins)."""
    found = sorted(
        (f for name in (detectors or tuple(FINDERS)) for f in FINDERS[name](text)),
        key=lambda f: (f.start, -f.end),
    )
    kept: list[Finding] = []
    for finding in found:
        if not kept or finding.start >= kept[-1].end:
            kept.append(finding)
    return kept
