"""Sensitive-data detectors. Each finds validated matches; the pipeline keeps only their counts,
and the review page shows only their masked forms, so a matched value is never stored."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from docflow.accounts import IBAN, parse_account
from docflow.accounts.ibans import find_in_text
from docflow.rules.card_numbers import card_spans

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


def find_cards(text: str) -> Iterator[Finding]:
    """Card numbers however they are printed (docflow/rules/card_numbers.py), last four kept."""
    for card in card_spans(text):
        yield Finding("card_number", card.start, card.end, f"{DOT * 4} {card.last4}")


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
