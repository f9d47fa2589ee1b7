"""Reading an identifier (invoice or order number) from the text after its label, and
repairing OCR's letter-for-digit confusions where the identifier's own shape makes it certain.

An identifier has a digit, and is neither a bare amount (`24.99`, `1,250.00`) nor a date. On
an OCR page, a letter that OCR confuses with a digit (O/o->0, I/l->1, S->5, B->8) is put back
to the digit only where the shape leaves no doubt: between two digits (`2O26`), or in the
numeric part after an alphabetic prefix and a separator that already holds two digits
(`INV-O005`). Any repair is reported, so the field's confidence drops and a person checks it.
"""

from __future__ import annotations

import re

from docflow.extract.declarations.parse import find_dates

_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9\-/._]*[A-Za-z0-9]$|^[0-9]$")
_BARE_AMOUNT = re.compile(r"^-?\d{1,3}(?:[,.' ]\d{3})*[.,]\d{1,2}$|^-?\d+[.,]\d{2}$")
_CONFUSED = {"O": "0", "o": "0", "I": "1", "l": "1", "S": "5", "B": "8"}
_SEPARATORS = re.compile(r"([-/._])")


def read_identifier(text: str, ocr: bool) -> tuple[str, str | None] | None:
    """(identifier, the text before a repair or None), or None when no identifier is there."""
    parts = text.split()
    if not parts:
        return None
    if parts[0].startswith("("):  # `Handelsrechnung (380)`: a code in brackets, not a number
        return None
    token = parts[0].strip(".,;:()[]")
    if not _TOKEN.match(token):
        return None
    original = token
    if ocr:
        token = repair(token)
    if not any(c.isdigit() for c in token) or _BARE_AMOUNT.match(token) or find_dates(token):
        return None
    return token, (original if token != original else None)


def repair(token: str) -> str:
    groups = _SEPARATORS.split(token)
    out = []
    prefix_seen = False
    for group in groups:
        if _SEPARATORS.fullmatch(group):
            out.append(group)
            continue
        digits = sum(c.isdigit() for c in group)
        if group.isalpha() and not out:
            prefix_seen = True
            out.append(group)
            continue
        chars = list(group)
        numeric_part = (
            prefix_seen and digits >= 2 and all(c.isdigit() or c in _CONFUSED for c in group)
        )
        for i, char in enumerate(chars):
            if char not in _CONFUSED:
                continue
            between = 0 < i < len(chars) - 1 and chars[i - 1].isdigit() and chars[i + 1].isdigit()
            if numeric_part or between:
                chars[i] = _CONFUSED[char]
        out.append("".join(chars))
    return "".join(out)
