"""Scoring an extraction run against its truth: exact match, calibration, silent errors.

The comparer is our own rather than `stickler-eval`: every engine answers in the normal forms
of `docflow/extract/fields.py` (ISO dates, two-place amounts, ISO 4217 codes), so a value is
right when it is equal, and stickler-eval's fuzzy comparators and its dependencies (pydantic,
numpy, munkres) would add nothing but tolerance we do not want. The one exception is
`vendor_name`, compared after folding case, accents, punctuation and spacing: the truth writes
a name as printed, and a name is printed in more than one case and spacing on one document
(`LE FOURNISSEUR` in the letterhead, `Le Fournisseur` in the footer).

    exact_match           share of printed fields (truth not null) read exactly
    scanned_exact_match   the same, on scans only (text_layer_exact_match: on the others)
    ece                   expected calibration error of the extracted fields' confidences
                          (10 equal-width bins, over every field an engine gave a value)
    silent_wrong          wrong values (a different value, or one the document does not
                          print) in documents that went through no `fields`/`triage` review
    silent_missing        printed fields not found, in documents with no such review
    routed                share of documents given a `fields` or `triage` review stage
    by_language, by_field exact match per language and per field
    classified            share of documents classified as their true type
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from typing import Any

from _extraction.generated import Document

REVIEWS = {"fields", "triage"}


def _fold_name(value: str) -> str:
    text = unicodedata.normalize("NFKD", value)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return re.sub(r"[^a-z0-9]", "", text)


def same(name: str, got: str | None, truth: str | None) -> bool:
    if got is None or truth is None:
        return got is None and truth is None
    if name == "vendor_name":
        return _fold_name(got) == _fold_name(truth)
    return got == truth


def ece(pairs: list[tuple[float, bool]], bins: int = 10) -> float | None:
    if not pairs:
        return None
    total = 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(c, ok) for c, ok in pairs if low <= c < high or (b == bins - 1 and c == 1.0)]
        if inside:
            confidence = sum(c for c, _ in inside) / len(inside)
            accuracy = sum(ok for _, ok in inside) / len(inside)
            total += len(inside) / len(pairs) * abs(confidence - accuracy)
    return round(total, 4)


def score(docs: list[Document], results: list[dict[str, Any]]) -> dict[str, Any]:
    hits: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    pairs: list[tuple[float, bool]] = []
    silent_wrong = silent_missing = routed = classified = 0
    misses: list[dict[str, Any]] = []
    for doc, result in zip(docs, results, strict=True):
        reviewed = any(s.get("name") in REVIEWS for s in result["stages"])
        routed += reviewed
        classified += result["docType"] == doc.doc_type
        for name, truth in doc.truth.items():
            got = result["fields"].get(name) or {}
            value = got.get("value")
            ok = same(name, value, truth)
            if value is not None:
                pairs.append((float(got.get("confidence", 0.0)), ok))
            if truth is not None:
                mode = "scanned" if doc.scanned else "text"
                for key in (f"field:{name}", f"lang:{doc.language}", f"mode:{mode}", "all"):
                    hits[key][0] += ok
                    hits[key][1] += 1
            if not ok:
                wrong = value is not None
                if not reviewed:
                    silent_wrong += wrong
                    silent_missing += not wrong
                misses.append(
                    {
                        "doc": doc.ident,
                        "field": name,
                        "truth": truth,
                        "got": value,
                        "confidence": got.get("confidence"),
                        "reviewed": reviewed,
                    }
                )

    def rate(key: str) -> float | None:
        return round(hits[key][0] / hits[key][1], 4) if hits[key][1] else None

    return {
        "documents": len(docs),
        "fields": hits["all"][1],
        "exact_match": rate("all"),
        "text_layer_exact_match": rate("mode:text"),
        "scanned_exact_match": rate("mode:scanned"),
        "ece": ece(pairs),
        "silent_wrong": silent_wrong,
        "silent_missing": silent_missing,
        "routed": round(routed / len(docs), 4) if docs else None,
        "classified": round(classified / len(docs), 4) if docs else None,
        "by_language": {k[5:]: rate(k) for k in sorted(hits) if k.startswith("lang:")},
        "by_field": {k[6:]: rate(k) for k in sorted(hits) if k.startswith("field:")},
        "_misses": misses,
    }
