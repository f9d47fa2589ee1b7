"""Names and identities as a person sees them: what renders as nothing, what looks alike, and
which writing systems a word mixes. The ground floor: the supplier registry, the proposals'
four eyes, the supplier matcher and the review desk's corrections all ask it.

- Format characters: Unicode category `Cf` (zero-width space and joiners, the bidirectional
  marks, embeddings, overrides and isolates, the soft hyphen, the byte-order mark, tags) and the
  other default-ignorable code points (Hangul fillers, variation selectors), which render as
  nothing as well. `format_chars` names the ones a name or a typed value may not hold: every
  one, except a zero-width (non-)joiner between two letters of one script that shapes with it
  (Persian `می‌خواهم`, the Indic scripts); never in Latin, Greek or Cyrillic.
- Skeletons (Unicode TR39, "Confusable Detection"): `skeleton(a) == skeleton(b)` when `a` and
  `b` look alike (`Вlauwal` with a Cyrillic Ve, `BIauwaI` with capital I's, `Blauwal`). The
  prototypes come from the confusables table `confusable-homoglyphs` ships (MIT; Unicode's
  `confusables.txt`, see `_prototypes` for how its direction is read back).
- Mixed scripts: a word whose letters come from two writing systems (Latin and Cyrillic in
  `Вlauwal`) is one a person cannot tell from a word of one; TR39's "highly restrictive" level
  allows only Latin with the CJK scripts (Japanese, Chinese, Korean).
- Identities: an address or a principal as four eyes compares it (NFKC, case folding, format
  characters removed).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache, lru_cache

# Default-ignorable code points that are not `Cf` (DerivedCoreProperties.txt, Unicode 15):
# they render as nothing too, so a name holding one reads as a name without it.
_IGNORABLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)
_JOINERS = frozenset("\u200c\u200d")
# Scripts in which a joiner never shapes anything: one there only hides a character.
_NO_JOINING = frozenset({"LATIN", "GREEK", "CYRILLIC", "COMMON", "INHERITED", "UNKNOWN"})
# A script alone, or one of TR39's CJK sets with Latin ("highly restrictive").
_TOGETHER = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_NO_SCRIPT = frozenset({"COMMON", "INHERITED"})
# The confusables table wraps right-to-left characters in left-to-right marks for display.
_LRM = "\u200e"


def is_format(char: str) -> bool:
    """A character that renders as nothing: category Cf, or another default-ignorable."""
    return unicodedata.category(char) == "Cf" or bool(_IGNORABLE.match(char))


def strip_format(text: str) -> str:
    """`text` without its format characters (every one: for comparing, not for showing)."""
    return "".join(c for c in text if not is_format(c))


def format_chars(text: str) -> list[str]:
    """The format characters `text` may not hold as a name or a typed value, in order: all of
    them but a joiner between two letters of one script that joins (see the module's doc)."""
    return [c for i, c in enumerate(text) if is_format(c) and not _shaping_joiner(text, i)]


def has_format(text: str) -> bool:
    return bool(format_chars(text))


def describe(char: str) -> str:
    """`U+202E (RIGHT-TO-LEFT OVERRIDE)`: a character a person cannot see, named."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")


def _shaping_joiner(text: str, i: int) -> bool:
    if text[i] not in _JOINERS or i == 0 or i == len(text) - 1:
        return False
    before, after = _base_script(text[:i][::-1]), _base_script(text[i + 1 :])
    return before == after and before not in _NO_JOINING


def _base_script(chars: str) -> str:
    """The script of the first letter in `chars` (marks take their letter's: skipped)."""
    for c in chars:
        if unicodedata.category(c).startswith("M"):
            continue
        return script(c) if unicodedata.category(c).startswith("L") else "COMMON"
    return "COMMON"


@lru_cache(maxsize=4096)
def script(char: str) -> str:
    """The character's script as Unicode's Scripts.txt names it, upper case (`LATIN`,
    `CYRILLIC`, `COMMON` for digits and punctuation, `INHERITED` for most marks, `UNKNOWN`)."""
    from confusable_homoglyphs import categories

    found = categories.alias(char)
    return "UNKNOWN" if found == "Unknown" else str(found)


def words(text: str) -> Iterator[str]:
    """The words of `text`: runs of letters, marks, digits and format characters."""
    word: list[str] = []
    for c in text:
        if unicodedata.category(c)[0] in "LMN" or is_format(c):
            word.append(c)
        elif word:
            yield "".join(word)
            word = []
    if word:
        yield "".join(word)


def scripts(word: str) -> frozenset[str]:
    """The scripts of `word`'s characters, leaving out those every script shares."""
    return frozenset(script(c) for c in word) - _NO_SCRIPT


def mixed_script(word: str) -> bool:
    """Whether `word`'s letters come from writing systems a person reads as one word only
    when they are one script (Latin with Cyrillic, or Greek): TR39's highly restrictive."""
    found = scripts(word)
    return len(found) > 1 and not any(found <= allowed for allowed in _TOGETHER)


def mixed_words(text: str) -> list[str]:
    """The words of `text` that mix scripts."""
    return [w for w in words(text) if mixed_script(w)]


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (the string TR39's skeleton puts in its place).

    `confusable-homoglyphs` ships Unicode's confusables.txt as a symmetric table: for each line
    `source ; prototype`, the source lists the prototype and the prototype lists the source,
    appended in the file's order (its `cli.generate_confusables`), so the direction is read
    back: a source is one code point with exactly one entry; a character with several entries,
    or a string of several, is a prototype; and in a pair of characters that list only each
    other, the source is the key the table met first (it was appended first). Every prototype
    with several sources was first met right after its first source, which
    tests/suppliers/test_names.py checks on the installed table."""
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[str, list[str]] = {}
    for key, entries in confusables_data.items():
        table.setdefault(key.replace(_LRM, ""), []).extend(
            e["c"].replace(_LRM, "") for e in entries
        )
    order = {key: n for n, key in enumerate(table)}
    out: dict[str, str] = {}
    for key, entries in table.items():
        listed = set(entries)
        if len(key) != 1 or len(listed) != 1:
            continue
        (other,) = listed
        if not other or other == key:
            continue
        if len(other) > 1 or len(set(table.get(other, ()))) > 1 or order[key] < order[other]:
            out[key] = other
    return out


@lru_cache(maxsize=16384)
def skeleton(text: str) -> str:
    """TR39's skeleton: NFD, without default-ignorable characters, each character replaced by
    its prototype, NFD again. Case is kept (a capital I is a small l's look-alike). A character
    the table does not list is replaced as its compatibility form is (a fullwidth letter as
    its letter): TR39 leaves those to NFKC, which would also turn a listed `ſ` (an `f` to the
    eye) into an `s`."""
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(_prototype(c) for c in decomposed if not is_format(c))
    return unicodedata.normalize("NFD", mapped)


@lru_cache(maxsize=8192)
def _prototype(char: str) -> str:
    """The character's prototype; for one the table does not list, its compatibility form's
    (a fullwidth `ｍ` is an `m`, whose prototype is `rn`)."""
    table = _prototypes()
    found = table.get(char)
    if found is not None:
        return found
    compat = unicodedata.normalize("NFKD", char)
    return char if compat == char else "".join(table.get(c, c) for c in compat)


@lru_cache(maxsize=4096)
def ascii_twins(text: str) -> str:
    """`text` (NFKC) with each non-ASCII character that looks like one ASCII character written
    as that character (`GmbН` with a Cyrillic En: `GmbH`), so that a pattern of ASCII words,
    a legal form, finds its look-alikes too."""
    table = _prototypes()
    out = []
    for c in unicodedata.normalize("NFKC", text):
        twin = table.get(c, c)
        out.append(twin if not c.isascii() and len(twin) == 1 and twin.isascii() else c)
    return "".join(out)


def identity_key(who: str) -> str:
    """An address or a principal as four eyes compares it: NFKC, case folded, without format
    characters or surrounding space (`AP@Example.com\\u200b` is `ap@example.com`)."""
    text = strip_format(unicodedata.normalize("NFKC", who))
    return unicodedata.normalize("NFKC", text.casefold()).strip()
