"""What OCR reads for a digit, put back where a learned shape wants one.

On a scan, OCR confuses letters and digits (`O`/`0`, `S`/`5`, `B`/`8`, `I`/`1`). A layout's
profile knows what each field's value looks like, so a value that misses its shape only by
such letters is tried again with them read as digits: an id against its learned pattern
(`repaired_id`), a date until it parses (`date_repaired`), an amount until it is a number of
the learned printed form (`amount_repaired`). Each repair is only a candidate: the profile read
marks it `repaired`, and what it must then pass (the shape; a date that parses; an amount that,
with the others, makes net + tax = total) is the caller's (`docflow.suppliers.profile`,
`docflow.suppliers.layout_read`). Every repair keeps the text's length, so a value's span, and
so its box on the page, is where OCR printed it.
"""

from __future__ import annotations

import re
from itertools import combinations

CONFUSED = {"O": "0", "o": "0", "D": "0", "Q": "0", "I": "1", "l": "1", "i": "1"}
CONFUSED |= {"Z": "2", "z": "2", "S": "5", "s": "5", "G": "6", "B": "8", "g": "9"}
MAX_REPAIRS = 4

# A run that may be a number OCR misread: letters, digits and the marks numbers print.
_NUMBER_LIKE = re.compile(r"[0-9A-Za-z][0-9A-Za-z.,']*[0-9A-Za-z]")
_DATE_LIKE = re.compile(r"[0-9A-Za-z][0-9A-Za-z./-]{5,}[0-9A-Za-z]")


def repaired_id(token: str, shape: str) -> str | None:
    """`token` with the fewest OCR letters put back to digits that makes it fit `shape`, or
    None (no such repair, or more than MAX_REPAIRS letters)."""
    spots = [i for i, c in enumerate(token) if c in CONFUSED]
    if not spots or len(spots) > MAX_REPAIRS:
        return None
    for size in range(1, len(spots) + 1):
        for chosen in combinations(spots, size):
            fixed = "".join(CONFUSED[c] if i in chosen else c for i, c in enumerate(token))
            if re.fullmatch(shape, fixed.upper()):
                return fixed.upper()
    return None


def date_repaired(text: str) -> str:
    """Letters OCR read for digits put back inside tokens that are mostly digits and date
    separators (`O1.O2.2O26`), so a date may parse; other words are left as they are."""

    def fix(m: re.Match[str]) -> str:
        token = m[0]
        digits = sum(c.isdigit() for c in token)
        if digits < 3 or digits < (len(token) - token.count(".") - token.count("/")) / 2:
            return token
        return "".join(CONFUSED.get(c, c) for c in token)

    return _DATE_LIKE.sub(fix, text)


def amount_repaired(text: str) -> str:
    """Letters OCR read for digits put back inside tokens that can only be a misread number
    (`1.2S4,O0`, `1.19O,OO`): every letter one OCR confuses with a digit, at most MAX_REPAIRS
    of them and no more than the digits, at least two digits. Words (`EUR`, `Summe`, `SO`) and
    tokens with any other letter are left as they are."""

    def fix(m: re.Match[str]) -> str:
        token = m[0]
        letters = [c for c in token if c.isalpha()]
        digits = sum(c.isdigit() for c in token)
        if not letters or any(c not in CONFUSED for c in letters):
            return token
        if digits < 2 or len(letters) > digits or len(letters) > MAX_REPAIRS:
            return token
        return "".join(CONFUSED.get(c, c) for c in token)

    return _NUMBER_LIKE.sub(fix, text)
