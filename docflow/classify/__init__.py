"""Classifiers behind one interface; the rules engine ships, driven by the rules file
(`docflow.rules`: its model, its detectors). Classifying only: reading and checking the rules
file is not done here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from docflow.classify.engine import RulesClassifier, merge_features


class Classifier(Protocol):
    name: str

    def extract(self, text: str) -> dict[str, dict[str, int]]:
        """Small, countable features of a stretch of text (no text, no matched values)."""
        ...

    def classify(
        self,
        features: Mapping[str, Any],
        ocr_confidence: float | None,
        forced: str | None = None,
    ) -> dict[str, Any]:
        """`docType`, `confidence`, `sensitive` (counts), `lowConfidence`, `stages`; `forced`:
        the type the document's own data states (an e-invoice's type code), not guessed."""
        ...


__all__ = ["Classifier", "RulesClassifier", "merge_features"]
