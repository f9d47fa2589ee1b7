"""Account numbers as people print them, folded to one form.

A printed account may be grouped in fours, threes or not at all, with spaces (any of
Unicode's: a no-break or thin space is a space), dashes (any of Unicode's), dots or slashes
between the groups, in either case, in full-width digits. `fold` maps a text to the same
length (so offsets found in the fold hold in the original): each character to its NFKC form
where that is one character, upper case. `separator` says which characters may sit between
an account's characters; `normalize_account` is the compact form the registry keys on.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# Between two characters of an account: any space but a line break, any dash, a dot, a
# slash, a middle dot, and invisible format characters (a zero-width space in a text layer).
_SEPARATOR_CATEGORIES = frozenset({"Zs", "Pd", "Cf"})
_SEPARATOR_CHARS = frozenset("\t\r.-/\\·‧∙•−")
NEWLINE = "\n"


@lru_cache(maxsize=4096)
def fold_char(char: str) -> str:
    """One character's folded form: NFKC, upper case; the character itself where either
    would change the text's length (`ß`, a ligature)."""
    folded = unicodedata.normalize("NFKC", char)
    if len(folded) != 1:
        return char
    upper = folded.upper()
    return upper if len(upper) == 1 else folded


def fold(text: str) -> str:
    """`text` folded character by character: the same length, offsets kept."""
    return "".join(fold_char(c) for c in text)


@lru_cache(maxsize=4096)
def separator(char: str) -> bool:
    """May sit between two characters of a printed account (never a line break)."""
    if char == NEWLINE:
        return False
    return char in _SEPARATOR_CHARS or unicodedata.category(char) in _SEPARATOR_CATEGORIES


def is_account_char(char: str) -> bool:
    """An ASCII letter or digit (after folding): what an account is made of."""
    return char.isascii() and char.isalnum()


def normalize_account(raw: str) -> str:
    """The compact form of an account as written anywhere (a page, a CSV, an e-invoice's
    BT-84): folded, every separator and space dropped, upper case. Other characters are
    kept, so that what is not an account stays visibly not one."""
    return "".join(c for c in fold(raw) if not (separator(c) or c.isspace()))


@lru_cache(maxsize=4096)
def _plain_char(char: str) -> str:
    base = unicodedata.normalize("NFKD", char)[:1] or char
    if unicodedata.combining(base):
        return char
    lower = base.lower()
    return lower if len(lower) == 1 else base


def plain(text: str) -> str:
    """`text` for matching words: each character lower case without its accents
    (`Überweisung` reads `uberweisung`), the same length, offsets kept."""
    return "".join(_plain_char(c) for c in text)
