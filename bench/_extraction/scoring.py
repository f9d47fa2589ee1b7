"""Scoring an extraction run against its truth: straight-through, exact match, calibration,
silent errors.

The comparer is our own rather than `stickler-eval`: every engine answers in the normal
forms of `docflow/extract/declarations/values.py` (ISO dates, two-place amounts, ISO 4217
codes), so a value is right when it is equal, and stickler-eval's fuzzy comparators and its
dependencies (pydantic, numpy, munkres) would add nothing but tolerance we do not want. The one
exception is `vendor_name`, compared after folding case, accents, punctuation and spacing: the
truth writes a name as printed, and a name is printed in more than one case and spacing on one
document (`LE FOURNISSEUR` in the letterhead, `Le Fournisseur` in the footer).

A value the engine marked `derived` (a net amount computed as total minus tax) where the
document prints no such field is neither right nor wrong: it is not a printed field. Where
the document prints it, it is compared like any other value.

    straight_through      share of documents finalized with no review stage of any kind and
                          every printed field read exactly (the headline figure)
    review_rate           share of documents given any review stage (fields, triage, privacy,
                          quality, a type's own stage)
    fields_review_rate    share given a `fields` or `triage` stage: a person who checks fields
    silent_wrong          wrong values (a different value, or one the document does not
                          print) in documents no person checked the fields of (no `fields` or
                          `triage` stage: a privacy or legal reviewer is not asked to; target 0)
    silent_missing        printed fields not found, in such documents (target 0)
    exact_match           share of printed fields (truth not null) read exactly
    text_layer_exact_match, scanned_exact_match   the same, on text-layer pages or on scans
    ece                   expected calibration error of the extracted fields' confidences
                          (10 equal-width bins, over every value an engine gave)
    classified            share of documents classified as their true type
    by_stage {stage: documents given it}   what holds documents back, by stage name (a
                          document with two stages counts under both)
    by_language {lang: {documents, straight_through, review_rate, exact_match, silent_wrong,
                        silent_missing}}
    by_field {name: {fields, exact_match, ece, silent_wrong, silent_missing, flagged}}
                          `flagged`: share of the field's values sent to a person by a check
                          on that field
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

REVIEWS = {"fields", "triage", "audit"}  # a person checks the fields (an audit: every one)


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


def ece(pairs: Sequence[tuple[float, bool]], bins: int = 10) -> float | None:
    if not pairs:
        return None
    total = 0.0
    for _low, _high, inside in reliability(pairs, bins):
        if inside:
            confidence = sum(c for c, _ in inside) / len(inside)
            accuracy = sum(ok for _, ok in inside) / len(inside)
            total += len(inside) / len(pairs) * abs(confidence - accuracy)
    return round(total, 4)


def reliability(
    pairs: Sequence[tuple[float, bool]], bins: int = 10
) -> list[tuple[float, float, list[tuple[float, bool]]]]:
    """The pairs in equal-width confidence bins: (low, high, pairs in it)."""
    out = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(c, ok) for c, ok in pairs if low <= c < high or (b == bins - 1 and c >= 1.0)]
        out.append((low, high, inside))
    return out


def judge(doc: Any, result: dict[str, Any]) -> dict[str, Any]:
    """One document's verdict: reviewed?, each printed field right?, its silent errors."""
    reviewed = any(s.get("name") in REVIEWS for s in result["stages"])
    any_stage = bool(result["stages"])
    flagged = {c.get("field") for c in result.get("checks", [])}
    fields: dict[str, dict[str, Any]] = {}
    for name, truth in doc.truth.items():
        got = result["fields"].get(name) or {}
        value = got.get("value")
        derived = bool(got.get("derived"))
        ok = same(name, value, truth) or (derived and truth is None)
        fields[name] = {
            "truth": truth,
            "value": value,
            "confidence": got.get("confidence"),
            "ok": ok,
            "printed": truth is not None,
            "scored": value is not None and not (derived and truth is None),
            "wrong": not ok and value is not None,
            "missing": not ok and value is None,
            "flagged": name in flagged or "*" in flagged,
        }
    all_right = all(f["ok"] for f in fields.values())
    return {
        "reviewed": reviewed,
        "any_stage": any_stage,
        "stages": sorted({str(s.get("name")) for s in result["stages"]}),
        "straight_through": not any_stage and all_right,
        "silent_wrong": 0 if reviewed else sum(f["wrong"] for f in fields.values()),
        "silent_missing": 0 if reviewed else sum(f["missing"] for f in fields.values()),
        "classified": result["docType"] == doc.doc_type,
        "fields": fields,
    }


def _rate(a: int | float, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _docs_figures(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(verdicts)
    printed = [f for v in verdicts for f in v["fields"].values() if f["printed"]]
    return {
        "documents": n,
        "straight_through": _rate(sum(v["straight_through"] for v in verdicts), n),
        "review_rate": _rate(sum(v["any_stage"] for v in verdicts), n),
        "fields_review_rate": _rate(sum(v["reviewed"] for v in verdicts), n),
        "exact_match": _rate(sum(f["ok"] for f in printed), len(printed)),
        "silent_wrong": sum(v["silent_wrong"] for v in verdicts),
        "silent_missing": sum(v["silent_missing"] for v in verdicts),
    }


def score(docs: Sequence[Any], results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    verdicts = [judge(d, r) for d, r in zip(docs, results, strict=True)]
    pairs = [
        (float(f["confidence"] or 0.0), f["ok"])
        for v in verdicts
        for f in v["fields"].values()
        if f["scored"]
    ]
    top = _docs_figures(verdicts)

    def exact(keep: Any) -> float | None:
        chosen = [
            f
            for d, v in zip(docs, verdicts, strict=True)
            if keep(d)
            for f in v["fields"].values()
            if f["printed"]
        ]
        return _rate(sum(f["ok"] for f in chosen), len(chosen))

    by_language: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for doc, verdict in zip(docs, verdicts, strict=True):
        by_language[doc.language].append(verdict)
    by_field: dict[str, list[tuple[dict[str, Any], bool]]] = defaultdict(list)
    for verdict in verdicts:
        for name, f in verdict["fields"].items():
            by_field[name].append((f, verdict["reviewed"]))
    misses = [
        {
            "doc": doc.ident,
            "field": name,
            "truth": f["truth"],
            "got": f["value"],
            "confidence": f["confidence"],
            "reviewed": verdict["reviewed"],
        }
        for doc, verdict in zip(docs, verdicts, strict=True)
        for name, f in verdict["fields"].items()
        if not f["ok"]
    ]
    return {
        "documents": len(docs),
        "fields": sum(f["printed"] for v in verdicts for f in v["fields"].values()),
        **{k: top[k] for k in ("straight_through", "review_rate", "fields_review_rate")},
        "silent_wrong": top["silent_wrong"],
        "silent_missing": top["silent_missing"],
        "exact_match": top["exact_match"],
        "text_layer_exact_match": exact(lambda d: not d.scanned),
        "scanned_exact_match": exact(lambda d: d.scanned),
        "ece": ece(pairs),
        "classified": _rate(sum(v["classified"] for v in verdicts), len(verdicts)),
        "by_stage": dict(sorted(Counter(s for v in verdicts for s in v["stages"]).items())),
        "by_language": {k: _docs_figures(v) for k, v in sorted(by_language.items())},
        "by_field": {k: _field_figures(v) for k, v in sorted(by_field.items())},
        "_misses": misses,
        "_pairs": pairs,
    }


def _field_figures(rows: list[tuple[dict[str, Any], bool]]) -> dict[str, Any]:
    printed = [f for f, _ in rows if f["printed"]]
    given = [f for f, _ in rows if f["scored"]]
    return {
        "fields": len(printed),
        "exact_match": _rate(sum(f["ok"] for f in printed), len(printed)),
        "ece": ece([(float(f["confidence"] or 0.0), f["ok"]) for f in given]),
        "silent_wrong": sum(f["wrong"] for f, reviewed in rows if not reviewed),
        "silent_missing": sum(f["missing"] for f, reviewed in rows if not reviewed),
        "flagged": _rate(sum(f["flagged"] for f in given), len(given)),
    }
