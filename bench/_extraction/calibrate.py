"""Fitting the field confidences' calibration and the per-field thresholds, and measuring
them honestly (leave-one-issuer-out).

A *record* is one document's run with what the fit needs: its truth, the fields the engine gave
(value, evidence, derived), the checks other than `low-confidence`, and its stages. The fit is a
logistic regression per field over `docflow.extract.rules_engine.calibration`'s features (Platt
scaling widened to a few evidence signals), with the engine's score as its offset, an L2 penalty
and sign bounds, minimized with scipy's L-BFGS-B; the thresholds are chosen, per field, for the
most documents straight through with no silent wrong and no silent missing value on the records
fitted (coordinate descent over each field's confidences). The table is written as JSON for
`docflow.extract.rules_engine.calibration`, which reads it with no scipy.

Measuring on the documents one fitted on flatters: `cross_validate` fits once per issuer on
every other issuer's documents (the made scans of an original share its issuer, so neither
is in the other's fit) and applies that fit to the held-out issuer only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from _extraction.scoring import judge, same
from docflow.extract.rules_engine.calibration import FEATURES, features, probability

LOW = "low-confidence"
FLOOR = 0.5  # no threshold below this, whatever the fit says
C = 1.0  # the logistic regression's inverse regularization
RESTARTS, RESTART_SEED = 24, 28


@dataclass
class Record:
    set: str
    group: str  # the issuer, within its set
    doc: Any  # the Document (truth, language, scanned, doc_type)
    result: dict[str, Any]  # docType, fields {name: {value, confidence, derived?}}, checks, stages
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)


def _samples(
    records: Sequence[Record], name: str
) -> tuple[list[list[float]], list[int], list[float]]:
    """Features, right or wrong, and weights: each set weighs as much as the other in all
    (the generated set is four times the real one, and far easier)."""
    sizes: dict[str, int] = defaultdict(int)
    for rec in records:
        sizes[rec.set] += 1
    xs, ys, ws = [], [], []
    for rec in records:
        got = rec.result["fields"].get(name)
        if not got or got.get("derived") or name not in rec.evidence:
            continue
        xs.append(features(rec.evidence[name]))
        ys.append(int(same(name, got.get("value"), rec.doc.truth.get(name))))
        ws.append(len(records) / (len(sizes) * sizes[rec.set]))
    return xs, ys, ws


# Signs the fit may not turn: more OCR confidence, reconciliation, agreeing labels, a
# strong label or a matching tax rate never make a value less likely right; rivals, a guess,
# a mismatching rate or a repair never make it more likely. (0: free, 1: >= 0, -1: <= 0.)
SIGNS = {
    "logit_score": 1,
    "ocr": 1,
    "scanned": 0,
    "reconciled": 1,
    "rivals": -1,
    "agree": 1,
    "labelled": 1,
    "guessed": -1,
    "tax_rate_match": 1,
    "tax_rate_mismatch": -1,
    "repaired": -1,
}
L2 = 10.0  # the penalty on the corrections to the engine's score


def _fit_one(xs: list[list[float]], ys: list[int], ws: list[float]) -> tuple[list[float], float]:
    """Weighted logistic regression with the score's log-odds as offset, an L2 penalty on
    the corrections and sign bounds (scipy's L-BFGS-B: scikit-learn's LogisticRegression
    takes neither an offset nor bounds)."""
    import numpy as np
    from scipy.optimize import minimize

    x, y, w = np.array(xs), np.array(ys, dtype=float), np.array(ws)
    offset = x[:, 0]
    k = x.shape[1]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        coef, intercept = theta[:k], theta[k]
        z = offset + x @ coef + intercept
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        eps = 1e-9
        value = -np.sum(w * (y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))
        # The intercept is penalized too: a field never seen wrong here would otherwise
        # be called certain whatever its evidence.
        value += L2 * float(coef @ coef + intercept * intercept)
        grad_z = w * (p - y)
        grad = np.concatenate([x.T @ grad_z + 2 * L2 * coef, [grad_z.sum() + 2 * L2 * intercept]])
        return float(value), grad

    bounds = [
        (0.0, None) if SIGNS[f] > 0 else (None, 0.0) if SIGNS[f] < 0 else (None, None)
        for f in FEATURES
    ]
    bounds[0] = (-0.9, None)  # the score keeps at least a tenth of its say
    found = minimize(
        loss, np.zeros(k + 1), jac=True, method="L-BFGS-B", bounds=[*bounds, (None, None)]
    )
    return [round(float(v), 5) for v in found.x[:k]], round(float(found.x[k]), 5)


def fit(records: Sequence[Record], names: Sequence[str]) -> dict[str, Any]:
    """A table {features, fields: {name: {coef, intercept}}} fitted on these records."""
    fields: dict[str, Any] = {}
    for name in names:
        xs, ys, ws = _samples(records, name)
        if not xs:
            continue
        coef, intercept = _fit_one(xs, ys, ws)
        fields[name] = {"coef": coef, "intercept": intercept}
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
    # An advisory table's findings route nowhere (docflow.pipeline.extract).
    if (
        any(not c.get("advisory") for c in checks)
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
    import numpy as np  # comes with scipy

    names = list(names)
    confs = np.full((len(records), len(names)), np.inf)  # an absent field routes nothing
    base = np.zeros(len(records), dtype=bool)
    bad = np.zeros(len(records), dtype=bool)
    wrong_max = dict.fromkeys(names, 0.0)
    for i, rec in enumerate(records):
        result = applied(rec, table, {})
        verdict = judge(rec.doc, result)
        base[i] = any(s.get("name") == "triage" for s in result["stages"]) or any(
            not c.get("advisory") for c in result["checks"]
        )
        bad[i] = any(f["wrong"] or f["missing"] for f in verdict["fields"].values())
        for j, name in enumerate(names):
            got = result["fields"].get(name)
            if got and got.get("value") is not None:
                confs[i, j] = float(got.get("confidence") or 0.0)
                if verdict["fields"].get(name, {}).get("wrong"):
                    wrong_max[name] = max(wrong_max[name], confs[i, j])
    grid = np.array([*np.round(np.arange(FLOOR, 1.0, 0.005), 4).tolist(), 1.0, 1.01])
    below = confs[:, :, None] < grid[None, None, :]  # [doc, field, grid]: routed by it

    def value(routed: np.ndarray) -> float:
        through = ~routed
        return float((through & ~bad).sum()) - 1000.0 * float((through & bad).sum())

    def descend(limits: np.ndarray) -> tuple[float, np.ndarray]:
        index = np.array([int(np.searchsorted(grid, t)) for t in limits])
        for _ in range(8):
            moved = False
            for j in range(len(names)):
                others = np.delete(np.arange(len(names)), j)
                other = base | below[:, others, index[others]].any(axis=1)
                through = ~(other[:, None] | below[:, j, :])  # [doc, grid]
                scores = (through & ~bad[:, None]).sum(axis=0) - 1000.0 * (
                    through & bad[:, None]
                ).sum(axis=0)
                best = scores.max()
                # The highest threshold that reaches the best score: the safer of equals.
                pick = int(np.flatnonzero(scores == best)[-1])
                if pick != index[j]:
                    moved = moved or best > scores[index[j]]
                    index[j] = pick
            if not moved:
                break
        routed = base | below[:, np.arange(len(names)), index].any(axis=1)
        return value(routed), grid[index]

    # Starts: every wrong value under its own field's threshold, then random ones (seeded):
    # coordinate descent stops where no one field can move alone, so several starts.
    rng = np.random.default_rng(RESTART_SEED)
    starts = [np.array([grid[grid > wrong_max[n]][0] for n in names])]
    starts += [rng.choice(grid, size=len(names)) for _ in range(RESTARTS)]
    results = [descend(start) for start in starts]
    best_value = max(v for v, _ in results)
    limits = max((lim for v, lim in results if v == best_value), key=lambda lim: lim.sum())
    return {n: round(min(1.0, float(t)), 4) for n, t in zip(names, limits, strict=True)}


def fit_all(records: Sequence[Record], names: Sequence[str]) -> dict[str, Any]:
    table = fit(records, names)
    for name, limit in choose_thresholds(records, table, names).items():
        table["fields"].setdefault(name, {"coef": [0.0] * len(FEATURES), "intercept": 0.0})[
            "threshold"
        ] = limit
    return table


def cross_validate(
    records: Sequence[Record], names: Sequence[str], only: str | None = None
) -> list[dict[str, Any]]:
    """Each record's result under a fit that never saw its issuer (leave-one-issuer-out).
    `only`: the results of that set's records alone, each fitted without its issuer's
    documents of *every* set (a variant's issuer is its real original's: neither may be in
    the other's fit)."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, rec in enumerate(records):
        groups[rec.group if only else f"{rec.set}:{rec.group}"].append(i)
    out: list[dict[str, Any] | None] = [None] * len(records)
    for key, members in sorted(groups.items()):
        if only and not any(records[i].set == only for i in members):
            continue
        held = set(members)
        train = [r for i, r in enumerate(records) if i not in held]
        table = fit_all(train, names)
        limits = {n: m["threshold"] for n, m in table["fields"].items() if "threshold" in m}
        for i in members:
            if not only or records[i].set == only:
                out[i] = applied(records[i], table, limits)
        del key
    return [r for r in out if r is not None]
