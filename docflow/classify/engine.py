"""The rules classifier: document types by keywords and patterns, review stages by rules.

Classification is split in two so that no step ever re-reads a document's text: each page
batch extracts small *features* (hit counts per type and per detector) from the text it has
just read, and the classify step merges those counts and decides. Features hold counts only,
so nothing sensitive reaches a checkpoint. The rules themselves (their file, its model and its
checks) live in `docflow.rules.model`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NotRequired, TypedDict

from docflow.rules.detectors import DETECTORS
from docflow.rules.model import Rules
from docflow.rules.routed import PrivacyHeld, RoutedStageJson

UNKNOWN = "unknown"


class Features(TypedDict):
    """What a stretch of text gives the classifier, counts only: hits per document type and
    per detector (`RulesClassifier.extract`; `merge_features` adds them up)."""

    types: dict[str, int]
    sensitive: dict[str, int]


class Classified(TypedDict):
    """The classifier's answer (`RulesClassifier.classify`), key by key in the order written:
    the type and how sure, the detectors' counts, whether the OCR was poor, the stages routed
    and why, whether the type has fields, and the privacy stage held back, when one is."""

    docType: str
    confidence: float
    sensitive: dict[str, int]
    lowConfidence: bool
    stages: list[RoutedStageJson]
    extract: bool
    privacyHeld: NotRequired[PrivacyHeld]


class RulesClassifier:
    name = "rules"

    def __init__(self, rules: Rules) -> None:
        self.rules = rules

    def extract(self, text: str) -> Features:
        """Counts for one stretch of text; `merge_features` adds them up across batches."""
        types = {t.name: n for t in self.rules.types if (n := t.hits(text))}
        sensitive = {d: n for d in self.rules.detectors if (n := DETECTORS[d](text))}
        return {"types": types, "sensitive": sensitive}

    def classify(
        self,
        features: Features,
        ocr_confidence: float | None,
        forced: str | None = None,
    ) -> Classified:
        """Decide type, confidence and review stages from merged features (JSON in and out).
        `forced`: a type of the rules file the document's data states (an e-invoice's type
        code): taken for certain, never triaged; its stages and the detectors' as for any."""
        hits: Mapping[str, int] = features.get("types", {})
        sensitive: Mapping[str, int] = features.get("sensitive", {})
        doc_type, confidence = UNKNOWN, 0.0
        # Each stage with the rule that routed the document to it, for the reviewer to see.
        because: dict[str, str] = {}
        stated = [t for t in self.rules.types if t.name == forced]
        ranked = stated or sorted(
            (t for t in self.rules.types if hits.get(t.name, 0) >= t.min_hits),
            key=lambda t: (-hits[t.name], t.name),
        )
        if stated:
            doc_type, confidence = stated[0].name, 1.0
        elif ranked:
            best = ranked[0]
            doc_type = best.name
            confidence = round(hits[best.name] / max(1, sum(hits.values())), 3)
        triage = self.rules.triage_stage
        if triage and (not ranked or confidence < self.rules.triage_min_confidence):
            # Nobody finalizes a document whose type nobody knows: a person picks it.
            because[triage] = "unknown-type" if not ranked else "type-unsure"
        if ranked:
            for name in ranked[0].stages:
                because.setdefault(name, "type")
        held: PrivacyHeld | None = None
        if self.rules.sensitive_stage and any(sensitive.get(d) for d in self.rules.review_on):
            others = [d for d in self.rules.review_on if d != "iban" and sensitive.get(d)]
            if (
                not others
                and doc_type in self.rules.issuer_iban_types
                and self.rules.sensitive_stage not in because
                and triage not in because
            ):
                # Only IBANs: extraction judges whose they are, then `issuer_iban_privacy`
                # puts the stage back unless each is the issuer's.
                stage = self.rules.stages[self.rules.sensitive_stage].to_dict()
                held = {"stage": {**stage, "because": "sensitive"}, "ibans": sensitive["iban"]}
            else:
                because.setdefault(self.rules.sensitive_stage, "sensitive")
        # A stated type's data is exact whatever its printed page's OCR read (a hybrid's scan).
        low_confidence = (
            not stated and ocr_confidence is not None and ocr_confidence < self.rules.min_confidence
        )
        if self.rules.quality_stage and low_confidence:
            because.setdefault(self.rules.quality_stage, "quality")
        stages: list[RoutedStageJson] = [
            {**self.rules.stages[name].to_dict(), "because": rule} for name, rule in because.items()
        ]
        answer: Classified = {
            "docType": doc_type,
            "confidence": confidence,
            "sensitive": dict(sorted(sensitive.items())),
            "lowConfidence": low_confidence,
            "stages": stages,
            # Whether the type has fields to extract: decided here so that the orchestrator
            # branches on a checkpointed value, not on the rules file it happens to load.
            "extract": doc_type in self.rules.fields.types,
        }
        if held:
            answer["privacyHeld"] = held
        return answer


def merge_features(parts: Iterable[Features]) -> Features:
    merged: Features = {"types": {}, "sensitive": {}}
    for part in parts:
        _add(merged["types"], part.get("types", {}))
        _add(merged["sensitive"], part.get("sensitive", {}))
    return merged


def _add(into: dict[str, int], counts: Mapping[str, int]) -> None:
    for name, count in counts.items():
        into[name] = into.get(name, 0) + int(count)
