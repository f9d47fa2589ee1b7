"""Fitting the field confidences' calibration and the per-field thresholds, and measuring
them honestly (leave-one-issuer-out).

A *record* is one document's run with what the fit needs: its truth, the fields the engine
gave (value, evidence, derived), the checks other than `low-confidence`, and its stages. The
fit is scikit-learn's logistic regression per field over `docflow.extract.calibration`'s
features (Platt scaling widened to a few evidence signals); the thresholds are chosen, per
field, for the most documents straight through with no silent wrong and no silent missing
value on the records fitted (coordinate descent over each field's confidences). The table
is written as JSON for `docflow.extract.calibration`, which reads it with no scikit-learn.

Measuring on the documents one fitted on flatters: `cross_validate` fits once per issuer on
every other issuer's documents (the made scans of an original share its issuer, so neither
is in the other's fit) and applies that fit to the held-out issuer only.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from _extraction.scoring import judge, same
from docflow.extract.calibration import FEATURES, features, probability

LOW = "low-confidence"
FLOOR = 0.5  # no threshold below this, whatever the fit says
C = 1.0  # the logistic regression's inverse regularization


@dataclass
class Record:
    set: str
    group: str  # the issuer, within its set
    doc: Any  # the Document (truth, language, scanned, doc_type)
    result: dict[str, Any]  # docType, fields {name: {value, confidence, derived?}}, checks, stages
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)


def _samples(records: Sequence[Record], name: str) -> tuple[list[list[float]], list[int]]:
    xs, ys = [], []
    for rec in records:
        got = rec.result["fields"].get(name)
        if not got or got.get("derived") or name not in rec.evidence:
            continue
        xs.append(features(rec.evidence[name]))
        ys.append(int(same(name, got.get("value"), rec.doc.truth.get(name))))
    return xs, ys


def fit(records: Sequence[Record], names: Sequence[str]) -> dict[str, Any]:
    """A table {features, fields: {name: {coef, intercept}}} fitted on these records."""
    from sklearn.linear_model import LogisticRegression  # a dev dependency: bench only

    fields: dict[str, Any] = {}
    for name in names:
        xs, ys = _samples(records, name)
        if not xs:
            continue
        if len(set(ys)) < 2:
            # One class only: a constant, shrunk toward a half (Laplace), so no value of a
            # field never seen wrong is called certain.
            rate = (sum(ys) + 1) / (len(ys) + 2)
            fields[name] = {
                "coef": [0.0] * len(FEATURES),
                "intercept": math.log(rate / (1 - rate)),
            }
            continue
        model = LogisticRegression(C=C, max_iter=2000)
        model.fit(xs, ys)
        fields[name] = {
            "coef": [round(float(w), 5) for w in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 5),
        }
    return {"features": list(FEATURES), "fields": fields}


def applied(rec: Record, table: dict[str, Any], limits: dict[str, float]) -> dict[str, Any]:
    """The record's result as the pipeline would give it with this table and thresholds."""
    fields = {}
    for name, given in rec.result["fields"].items():
        if name in rec.evidence and not given.get("derived"):
            given = {**given, "confidence": probability(name, rec.evidence[name], table)}  # noqa: PLW2901
        fields[name] = given
    checks = [c for c in rec.result.get("checks", []) if c.get("code") != LOW]
    for name, got in sorted(fields.items()):
        if name in limits and float(got.get("confidence") or 0.0) < limits[name]:
            checks.append({"field": name, "code": LOW, "message": ""})
    stages = [s for s in rec.result["stages"] if s.get("name") != "fields"]
    if (
        checks
        and rec.result.get("fieldsStage", True)
        and rec.result["docType"]
        in (
            "invoice",
            "purchase-order",
            "credit-note",
        )
    ):
        stages.append({"name": "fields"})
    return {**rec.result, "fields": fields, "checks": checks, "stages": stages}


def choose_thresholds(
    records: Sequence[Record], table: dict[str, Any], names: Sequence[str]
) -> dict[str, float]:
    """Per field, the threshold that gives the most documents straight through with no
    silent wrong and no silent missing value on these records (coordinate descent from a
    start where every wrong value is below its own field's threshold; ties keep the higher,
    safer threshold)."""
    import numpy as np  # comes with scikit-learn

    names = list(names)
    confs = np.full((len(records), len(names)), np.inf)  # an absent field routes nothing
    base = np.zeros(len(records), dtype=bool)
    bad = np.zeros(len(records), dtype=bool)
    wrong_max = dict.fromkeys(names, 0.0)
    for i, rec in enumerate(records):
        result = applied(rec, table, {})
        verdict = judge(rec.doc, result)
        base[i] = any(s.get("name") == "triage" for s in result["stages"]) or bool(result["checks"])
        bad[i] = any(f["wrong"] or f["missing"] for f in verdict["fields"].values())
        for j, name in enumerate(names):
            got = result["fields"].get(name)
            if got and got.get("value") is not None:
                confs[i, j] = float(got.get("confidence") or 0.0)
                if verdict["fields"].get(name, {}).get("wrong"):
                    wrong_max[name] = max(wrong_max[name], confs[i, j])
    grid = [*np.round(np.arange(FLOOR, 1.0, 0.005), 4).tolist(), 1.0, 1.01]
    # The start: each field just above its highest wrong value.
    limits = np.array([next(t for t in grid if t > wrong_max[n]) for n in names])

    def value(routed: np.ndarray) -> float:
        through = ~routed
        return float((through & ~bad).sum()) - 1000.0 * float((through & bad).sum())

    for _ in range(6):
        moved = False
        for j in range(len(names)):
            others = np.delete(confs, j, axis=1) < np.delete(limits, j)
            other = base | others.any(axis=1)
            column = confs[:, j][:, None] < np.array(grid)[None, :]
            scores = [value(other | column[:, k]) for k in range(len(grid))]
            best = max(scores)
            # The highest threshold that reaches the best score: the safer of equals.
            pick = max(k for k, sc in enumerate(scores) if sc == best)
            if grid[pick] != limits[j]:
                current = value(other | (confs[:, j] < limits[j]))
                if best > current or grid[pick] > limits[j]:
                    limits[j] = grid[pick]
                    moved = moved or best > current
        if not moved:
            break
    return {n: round(min(1.0, float(t)), 4) for n, t in zip(names, limits, strict=True)}


def fit_all(records: Sequence[Record], names: Sequence[str]) -> dict[str, Any]:
    table = fit(records, names)
    for name, limit in choose_thresholds(records, table, names).items():
        table["fields"].setdefault(name, {"coef": [0.0] * len(FEATURES), "intercept": 0.0})[
            "threshold"
        ] = limit
    return table


def cross_validate(records: Sequence[Record], names: Sequence[str]) -> list[dict[str, Any]]:
    """Each record's result under a fit that never saw its issuer (leave-one-issuer-out)."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, rec in enumerate(records):
        groups[f"{rec.set}:{rec.group}"].append(i)
    out: list[dict[str, Any] | None] = [None] * len(records)
    for key, members in sorted(groups.items()):
        held = set(members)
        train = [r for i, r in enumerate(records) if i not in held]
        table = fit_all(train, names)
        limits = {n: m["threshold"] for n, m in table["fields"].items() if "threshold" in m}
        for i in members:
            out[i] = applied(records[i], table, limits)
        del key
    return [r for r in out if r is not None]
