"""Finding the printed labels in a cell's text: exactly, or fuzzily where OCR misread a letter.

Exact matching runs one regular expression of every label (longest first) over the
accent-folded text. A cell that starts with no exact label is compared, by its first one to
four words, with every strong label through `rapidfuzz` (`lnvoice Numbcr` is `invoice number`
at 86): a fuzzy match counts only on OCR pages, only at the start of a cell, and its score
becomes the label's quality (0..1), which the field's confidence carries.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz, process

from docflow.extract.declarations.labels import CUSTOMER, IGNORED, STRONG, TAX_ID, WEAK
from docflow.extract.declarations.parse import fold

FUZZY_CUTOFF = 84.0  # rapidfuzz ratio; below it two labels are different words


@dataclass(frozen=True)
class LabelHit:
    field: str | None  # None: a label whose value is no field (`Bill to`, `IBAN`)
    strong: bool
    start: int
    end: int
    quality: float  # 1.0 for an exact match; the fuzzy score / 100 otherwise


def _pattern(label: str) -> str:
    return r"\s+".join(re.escape(word) for word in label.split())


def _build() -> tuple[re.Pattern[str], dict[str, tuple[str | None, bool]]]:
    # Keyed as the matcher sees the text: `nº` is `no` once folded.
    meaning: dict[str, tuple[str | None, bool]] = {}
    for name, labels in WEAK.items():
        meaning.update({_folded(label): (name, False) for label in labels})
    for name, labels in STRONG.items():
        meaning.update({_folded(label): (name, True) for label in labels})
    for label in IGNORED:
        meaning.setdefault(_folded(label), (None, True))
    ordered = sorted(meaning, key=len, reverse=True)
    alternation = "|".join(_pattern(label) for label in ordered)
    # A rate may follow with no space (`GST6%`, `MwSt19%`): only a letter or `_` ends a label early.
    return re.compile(rf"(?<![\w])(?:{alternation})(?![^\W\d])", re.IGNORECASE), meaning


def _folded(label: str) -> str:
    return " ".join(fold(label).split())


LABELS, MEANING = _build()
_STRONG_CHOICES = {label: name for name, labels in STRONG.items() for label in labels}
_CUSTOMER = re.compile(
    r"^\s*(?:" + "|".join(_pattern(c) for c in sorted(CUSTOMER, key=len, reverse=True)) + r")"
    r"\s*(?::|$|\s)",
    re.IGNORECASE,
)
_TAX_ID = re.compile(
    r"(?<![\w])(?:" + "|".join(_pattern(t) for t in sorted(TAX_ID, key=len, reverse=True)) + r")"
    r"(?![\w])",
    re.IGNORECASE,
)


def fold_keep_length(text: str) -> str:
    """Accents removed character by character, so offsets still point into the original.
    The ordinal sign of `Nº` becomes the degree sign of `N°` (not the letter `o`, which
    would make every English `No` a number's label)."""
    out = []
    for char in text.replace("º", "°"):
        bare = "".join(
            c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
        )
        out.append(bare if len(bare) == 1 else char)
    return "".join(out)


def key(label: str) -> str:
    return " ".join(fold(label).split())


_SIGNS = re.compile(r"[€$£₹¥]")


def find_labels(text: str, ocr: bool) -> list[LabelHit]:
    # Currency signs inside a label (`Total € incl. VAT`) are spaces to the matcher.
    folded = _SIGNS.sub(" ", fold_keep_length(text))
    hits = []
    for m in LABELS.finditer(folded):
        if folded[: m.start()].count("(") > folded[: m.start()].count(")"):
            continue  # `(zzgl. 19% MwSt.)`: a remark in parentheses, not a label
        name, strong = MEANING.get(key(m[0]), (None, True))
        hits.append(LabelHit(name, strong, m.start(), m.end(), 1.0))
    if ocr and (not hits or hits[0].start > 0):
        fuzzy = _fuzzy_start(folded)
        if fuzzy and (not hits or fuzzy.end <= hits[0].start):
            hits.insert(0, fuzzy)
    return hits


@lru_cache(maxsize=4096)
def _fuzzy_start(folded: str) -> LabelHit | None:
    """The best strong label among the cell's first one to four words, if close enough."""
    words = list(re.finditer(r"[^\s:]+", folded))
    best: LabelHit | None = None
    for count in range(min(4, len(words)), 0, -1):
        end = words[count - 1].end()
        phrase = folded[:end].lower().strip()
        if len(phrase) < 5:
            continue
        found = process.extractOne(
            phrase, _STRONG_CHOICES.keys(), scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF
        )
        if found and (best is None or found[1] / 100 > best.quality):
            best = LabelHit(_STRONG_CHOICES[found[0]], True, 0, end, found[1] / 100)
    return best


def is_customer_label(text: str) -> bool:
    return bool(_CUSTOMER.match(fold_keep_length(text)))


def has_tax_id(text: str) -> bool:
    return bool(_TAX_ID.search(fold_keep_length(text)))
