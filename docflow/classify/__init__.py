"""Classifiers behind one interface; the rules engine ships, driven by `rules.toml`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from docflow.rules.model import RulesClassifier, load_rules, merge_features


class Classifier(Protocol):
    name: str

    def extract(self, text: str) -> dict[str, dict[str, int]]:
        """Small, countable features of a stretch of text (no text, no matched values)."""
        ...

    def classify(self, features: Mapping[str, Any], ocr_confidence: float | None) -> dict[str, Any]:
        """`docType`, `confidence`, `sensitive` (counts), `lowConfidence`, `stages`."""
        ...


__all__ = ["Classifier", "RulesClassifier", "load_rules", "merge_features"]
