"""Sensitive-data detectors. They count matches and never return or store the matched text."""

from __future__ import annotations

import re
from collections.abc import Callable

_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
_SSN = re.compile(r"(?<!\d)(\d{3})-(\d{2})-(\d{4})(?!\d)")
_IBAN = re.compile(r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?)\b")
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def count_cards(text: str) -> int:
    count = 0
    for match in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", match.group())
        if 13 <= len(digits) <= 19 and luhn_ok(digits) and len(set(digits)) > 1:
            count += 1
    return count


def count_ssns(text: str) -> int:
    count = 0
    for area, group, serial in _SSN.findall(text):
        if area in ("000", "666") or area.startswith("9") or group == "00" or serial == "0000":
            continue
        count += 1
    return count


def iban_ok(candidate: str) -> bool:
    iban = candidate.replace(" ", "")
    if not 15 <= len(iban) <= 34:
        return False
    moved = iban[4:] + iban[:4]
    numeric = "".join(str(int(ch, 36)) for ch in moved)
    return int(numeric) % 97 == 1


def count_ibans(text: str) -> int:
    return sum(1 for m in _IBAN.finditer(text.upper()) if iban_ok(m.group(1)))


def count_emails(text: str) -> int:
    return len(_EMAIL.findall(text))


DETECTORS: dict[str, Callable[[str], int]] = {
    "card_number": count_cards,
    "us_ssn": count_ssns,
    "iban": count_ibans,
    "email": count_emails,
}
