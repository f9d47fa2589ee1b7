"""Which of the rules file's OCR languages a page is written in, from a first pass's words.

The identifier is py3langid (langid.py's maintained fork): its model ships inside the package
(4 MB, numpy only), it loads in a fraction of a second, nothing is fetched at run time, and it
can be restricted to the languages the rules file names, with probabilities normalised over
just those. lingua is more accurate on a few words, but its wheel is 96 MB of models for 75
languages and what it gains is on text shorter than the pages this decides on (short pages go
to the full list anyway, below).

The decision errs towards the full list: a page with too few letters to tell, or whose best
guesses do not add up to `SURE`, is read with every language, as it was before; so a wrong or
doubtful guess costs time, never accuracy.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypedDict

# Tesseract's language names (ISO 639-2/T, as the traineddata files are called) to the
# ISO 639-1 codes the identifier knows. A rules-file language outside this map is never
# identified: a page that may be in it is read with the full list.
TESSERACT_TO_ISO = {
    "eng": "en",
    "deu": "de",
    "fra": "fr",
    "spa": "es",
    "ita": "it",
    "nld": "nl",
    "por": "pt",
    "dan": "da",
    "swe": "sv",
    "nor": "no",
    "fin": "fi",
    "pol": "pl",
    "ces": "cs",
    "slk": "sk",
    "hun": "hu",
    "ron": "ro",
    "cat": "ca",
    "tur": "tr",
}
ISO_TO_TESSERACT = {iso: tess for tess, iso in TESSERACT_TO_ISO.items()}

# Below this many letters in the first pass's words a page is not identified: a few words
# (a heading, a total) say little about a language, and the full list reads them as before.
MIN_LETTERS = 80
# The best language (or the best two together) must hold this share of the probability.
SURE = 0.9
# A second language is named only if it holds this much on its own (a bilingual page).
SECOND = 0.15


class LanguageChoiceJson(TypedDict):
    languages: str
    identified: str | None
    probability: float
    reason: str


@dataclass(frozen=True)
class LanguageChoice:
    """What the reader decided for one page, kept beside its words."""

    languages: str  # tesseract's `-l` the words were read with, `deu` or `eng+deu+...`
    identified: str | None  # the identifier's best guess (tesseract name), None if not asked
    probability: float  # that guess's probability among the allowed languages, 0..1
    reason: str  # "identified", "unsure", "short", "single" (only one language allowed)

    def to_json(self) -> LanguageChoiceJson:
        return {
            "languages": self.languages,
            "identified": self.identified,
            "probability": round(self.probability, 3),
            "reason": self.reason,
        }


_identifiers: dict[tuple[str, ...], Any] = {}
_identifiers_lock = threading.Lock()


def _identifier(isos: tuple[str, ...]) -> Any:
    """One identifier per set of languages: restricting one mutates it, so each set gets its
    own, built once; classifying with it afterwards only reads."""
    with _identifiers_lock:
        found = _identifiers.get(isos)
        if found is None:
            # Deferred: only a page that needs identifying pays for the model's load.
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            found = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            found.set_languages(list(isos))
            _identifiers[isos] = found
        return found


def identification_text(words: Iterable[str]) -> str:
    """The words worth identifying: those made mostly of letters (amounts, dates and codes
    are the same in every language and only blur the guess)."""
    kept = []
    for word in words:
        letters = sum(c.isalpha() for c in word)
        if letters >= 2 and letters * 2 > len(word):
            kept.append(word)
    return " ".join(kept)


def choose_languages(words: Iterable[str], allowed: str) -> LanguageChoice:
    """The languages to read a page with, from the words a first pass found on it.

    `allowed` is the rules file's `-l` (`eng+deu+...`); the answer is always within it."""
    names = tuple(allowed.split("+"))
    if len(names) == 1:
        return LanguageChoice(allowed, None, 1.0, "single")
    known = tuple(n for n in names if n in TESSERACT_TO_ISO)
    text = identification_text(words)
    if len(known) < len(names) or sum(c.isalpha() for c in text) < MIN_LETTERS:
        return LanguageChoice(allowed, None, 0.0, "short" if len(known) == len(names) else "unsure")
    try:
        ranked = _identifier(tuple(TESSERACT_TO_ISO[n] for n in known)).rank(text)
    except ImportError:  # a machine without the identifier reads as before, with every one
        return LanguageChoice(allowed, None, 0.0, "unsure")
    (best, p1), (runner, p2) = ranked[0], ranked[1]
    first = ISO_TO_TESSERACT[best]
    if p1 >= SURE:
        return LanguageChoice(first, first, p1, "identified")
    if p1 + p2 >= SURE and p2 >= SECOND:
        return LanguageChoice(f"{first}+{ISO_TO_TESSERACT[runner]}", first, p1, "identified")
    return LanguageChoice(allowed, first, p1, "unsure")
