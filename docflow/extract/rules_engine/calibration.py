"""Confidence that says right when it is right: each field's confidence from its evidence.

The rules engine scores every value it reads from its evidence (`engine.py`: the label's
position and quality, the value's printed form, the OCR confidence of its words, repairs,
rivals, reconciliation). That score orders values well but is not a probability. This module
turns the evidence into one: per field, a logistic model (Platt scaling, widened to a few
evidence signals besides the score) fitted offline on the labelled sets by
`bench/_extraction/calibrate.py`, shipped as `calibration.json` beside this file and read
here with no fitting library. The same file holds the per-field thresholds chosen for the
highest straight-through at no silent wrong value on those sets.

The evidence record is open: a signal this module does not know is kept in the record and
ignored by the model until a fit names it (a supplier registry's or a learned profile's
match will be such signals). A field the file has no model for keeps its score.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import NotRequired, TypedDict

from docflow.extract.base import Evidence, FoundField

TABLE = Path(__file__).with_name("calibration.json")
_EPS = 1e-4
# The signals the model reads, in the order of its coefficients. Each is a number from the
# evidence record (see `features`).
FEATURES: tuple[str, ...] = (
    "logit_score",  # the engine's own score, as a log-odds
    "ocr",  # 1.0 on a text layer; the OCR confidence of the value's words on a scan
    "scanned",  # the value was read by OCR
    "reconciled",  # net + tax = total held for this amount
    "rivals",  # another value of the field scored within 0.1 of it
    "agree",  # more than one label read this same value
    "labelled",  # read after a strong label (not a title, not a guess)
    "guessed",  # no label: an issuer block, a sign beside amounts, a first date
    "tax_rate_match",  # the printed rate times the net gives this tax
    "tax_rate_mismatch",
    "repaired",  # an OCR letter put back to a digit
)
_GUESSED = {"unlabelled", "issuer", "sender-line", "beside-amounts", "dollar-sign", "page"}


def _logit(p: float) -> float:
    p = min(1 - _EPS, max(_EPS, p))
    return math.log(p / (1 - p))


def features(evidence: Evidence) -> list[float]:
    """The model's inputs from an evidence record (`score` is the engine's own confidence)."""
    source = str(evidence.get("source", ""))
    ocr = float(evidence.get("ocr", 1.0))
    rate = evidence.get("tax_rate")
    return [
        _logit(float(evidence.get("score", 0.5))),
        ocr,
        1.0 if evidence.get("scanned") else 0.0,
        1.0 if evidence.get("reconciled") else 0.0,
        1.0 if evidence.get("rivals") else 0.0,
        1.0 if int(evidence.get("agree", 1)) > 1 else 0.0,
        1.0 if source == "label" else 0.0,
        1.0 if source in _GUESSED else 0.0,
        1.0 if rate == "match" else 0.0,
        1.0 if rate == "mismatch" else 0.0,
        1.0 if evidence.get("repaired") else 0.0,
    ]


class FieldModel(TypedDict):
    """One field's fit: the coefficients of `FEATURES`, the intercept, and the threshold the
    fit says a confidence must reach."""

    coef: list[float]
    intercept: float
    threshold: NotRequired[float]


class CalibrationTable(TypedDict):
    """`calibration.json`: the features it was fitted on, each field's model, and (from the
    bench) what it was fitted on."""

    features: list[str]
    fields: dict[str, FieldModel]
    fitted_on: NotRequired[object]  # the bench's note of its sets; read by no code


@lru_cache(maxsize=4)
def load_table(path: str = str(TABLE)) -> CalibrationTable:
    """The fitted table; an empty one (scores kept, no thresholds) when there is none."""
    try:
        table: CalibrationTable = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"features": list(FEATURES), "fields": {}}
    if tuple(table.get("features", ())) != FEATURES:
        raise ValueError(f"{path}: fitted for other features; refit it")
    return table


def probability(name: str, evidence: Evidence, table: CalibrationTable) -> float:
    """The calibrated probability that the value with this evidence is right."""
    model = table.get("fields", {}).get(name)
    score = float(evidence.get("score", 0.0))
    if not model:
        return score
    x = features(evidence)
    # The engine's score is the prior (an offset): the fit corrects it where the labelled
    # documents say it is too sure or too shy, and stays near it where they say little.
    z = x[0] + float(model["intercept"]) + sum(w * v for w, v in zip(model["coef"], x, strict=True))
    p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
    # Evidence against a value (an OCR repair, an undecidable day/month order, a rival
    # reading) is a doubt a person settles: the fit, which saw few of them, never makes such
    # a value surer than the engine scored it.
    doubted = evidence.get("repaired") or evidence.get("rivals") or evidence.get("form") == 0
    return min(p, score) if doubted else p


def calibrate(
    fields: Mapping[str, FoundField], table: CalibrationTable | None = None
) -> dict[str, FoundField]:
    """Every field with its calibrated confidence; its evidence keeps the engine's score."""
    table = load_table() if table is None else table
    out = {}
    for name, found in fields.items():
        evidence: Evidence = {**found.evidence, "score": round(found.confidence, 4)}
        out[name] = replace(found, confidence=probability(name, evidence, table), evidence=evidence)
    return out


def thresholds(table: CalibrationTable | None = None) -> dict[str, float]:
    """The per-field thresholds fitted with the table."""
    table = load_table() if table is None else table
    return {
        name: float(model["threshold"])
        for name, model in table.get("fields", {}).items()
        if "threshold" in model
    }
