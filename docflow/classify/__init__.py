"""Classifiers behind one interface; the rules engine ships, driven by the rules file
(`docflow.rules`: its model, its detectors). Classifying only: reading and checking the rules
file is not done here."""

from __future__ import annotations

from typing import Protocol

from docflow.classify.engine import (
    Classified,
    Features,
    RulesClassifier,
    merge_features,
)


class Classifier(Protocol):
    name: str

    def extract(self, text: str) -> Features:
        """Small, countable features of a stretch of text (no text, no matched values)."""
        ...

    def classify(
        self,
        features: Features,
        ocr_confidence: float | None,
        forced: str | None = None,
    ) -> Classified:
        """`docType`, `confidence`, `sensitive` (counts), `lowConfidence`, `stages`; `forced`:
        the type the document's own data states (an e-invoice's type code), not guessed."""
        ...


__all__ = [
    "Classified",
    "Classifier",
    "Features",
    "RulesClassifier",
    "merge_features",
]
