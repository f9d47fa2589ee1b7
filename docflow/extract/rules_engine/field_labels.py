"""The labels of a type's declared scalar fields, found in a line or cell of a page: exactly
(accent-folded, whole words, the longest label first) or, on an OCR page, fuzzily at the
start of the text (`Dato of loss`), with the fuzzy score as the hit's quality."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from docflow.extract.declarations.model import FieldDecl
from docflow.extract.declarations.parse import fold
from docflow.extract.rules_engine.matching import FUZZY_CUTOFF, fold_keep_length


@dataclass(frozen=True)
class Hit:
    field: str
    start: int
    end: int
    quality: float  # 1.0 exact; the fuzzy score on an OCR page


class LabelIndex:
    """Every label of a type's declared scalar fields, longest first, to find in a cell."""

    def __init__(self, fields: Sequence[FieldDecl]) -> None:
        self.names = {
            " ".join(fold(label).split()): f.name for f in fields for label in f.all_labels()
        }
        ordered = sorted(self.names, key=len, reverse=True)
        alternation = "|".join(
            r"\s+".join(re.escape(w) for w in label.split()) for label in ordered
        )
        self.pattern = (
            re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE) if ordered else None
        )

    def hits(self, text: str, ocr: bool) -> list[Hit]:
        if self.pattern is None:
            return []
        folded = fold_keep_length(text)
        found = [
            Hit(self.names[" ".join(fold(m[0]).split())], m.start(), m.end(), 1.0)
            for m in self.pattern.finditer(folded)
        ]
        if ocr and (not found or folded[: found[0].start].strip()):
            fuzzy = self._fuzzy_start(folded)
            if fuzzy is not None and (not found or fuzzy.end <= found[0].start):
                found.insert(0, fuzzy)
        return found

    def _fuzzy_start(self, folded: str) -> Hit | None:
        words = list(re.finditer(r"[^\s:]+", folded))
        for count in range(min(4, len(words)), 0, -1):
            phrase = folded[: words[count - 1].end()].lower().strip()
            if len(phrase) < 5:
                continue
            best = process.extractOne(
                phrase, self.names.keys(), scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF
            )
            if best:
                return Hit(self.names[best[0]], 0, words[count - 1].end(), best[1] / 100)
        return None

    def starts_line(self, text: str, ocr: bool) -> bool:
        hits = self.hits(text, ocr)
        return bool(hits) and not text[: hits[0].start].strip()
