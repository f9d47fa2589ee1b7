"""Calibrated confidences (`docflow/extract/rules_engine/calibration.py`): the fitted table
turns a field's evidence into a probability, read at run time with no fitting library; the
thresholds fitted with it apply unless the rules file sets its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docflow.extract.base import FoundField
from docflow.extract.checks.field_checks import check_fields
from docflow.extract.checks.spec import parse_field_rules
from docflow.extract.rules_engine.calibration import (
    FEATURES,
    TABLE,
    calibrate,
    features,
    load_table,
    probability,
    thresholds,
)
from docflow.rules.model import DEFAULT_RULES, load_rules

TABLE_ONE = {
    "features": list(FEATURES),
    "fields": {
        "total_amount": {
            "coef": [1.0] + [0.0] * (len(FEATURES) - 4) + [0.0, -2.0, 0.0],
            "intercept": 0.0,
            "threshold": 0.9,
        }
    },
}


def test_the_probability_follows_the_score_and_the_evidence() -> None:
    low = probability("total_amount", {"score": 0.6}, TABLE_ONE)
    high = probability("total_amount", {"score": 0.95}, TABLE_ONE)
    assert 0 < low < high < 1
    mismatch = probability("total_amount", {"score": 0.95, "tax_rate": "mismatch"}, TABLE_ONE)
    assert mismatch < high
    # A field the table has no model for keeps the engine's score.
    assert probability("currency", {"score": 0.7}, TABLE_ONE) == 0.7


def test_unknown_signals_are_kept_and_ignored() -> None:
    evidence = {"score": 0.9, "registry": "vat-id", "source": "label"}
    assert len(features(evidence)) == len(FEATURES)
    found = calibrate({"total_amount": FoundField("1.00", 0.9, 1, evidence=evidence)}, TABLE_ONE)
    assert found["total_amount"].evidence["registry"] == "vat-id"
    assert found["total_amount"].evidence["score"] == 0.9  # the engine's own score, kept


def test_a_table_fitted_for_other_features_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"features": ["score"], "fields": {}}))
    with pytest.raises(ValueError, match="refit"):
        load_table(str(path))


def test_the_shipped_table_has_a_model_and_a_threshold_for_every_field() -> None:
    table = json.loads(TABLE.read_text())
    assert table["features"] == list(FEATURES)
    for name in (
        "invoice_number",
        "invoice_date",
        "vendor_name",
        "currency",
        "net_amount",
        "tax_amount",
        "total_amount",
    ):
        model = table["fields"][name]
        assert len(model["coef"]) == len(FEATURES), name
        assert 0.5 <= model["threshold"] <= 1.0, name
    assert thresholds() == {n: m["threshold"] for n, m in table["fields"].items()}


def test_fitted_thresholds_apply_unless_the_rules_file_sets_its_own() -> None:
    rules = load_rules(DEFAULT_RULES).fields
    spec = rules.for_type("invoice")
    assert spec is not None
    fields = {
        "invoice_number": {"value": "A1", "confidence": 0.85},
        "currency": {"value": "EUR", "confidence": 0.85},
        "total_amount": {"value": "1.00", "confidence": 0.85},
    }
    fitted = {"total_amount": 0.9}
    codes = [(c.field, c.code) for c in check_fields(fields, spec, rules, fitted=fitted)]
    assert ("total_amount", "low-confidence") in codes  # 0.85 < the fitted 0.9
    assert ("currency", "low-confidence") not in codes  # 0.85 >= min_confidence 0.80
    scalars = [f for f in spec.fields if not f.is_table]
    own = parse_field_rules(
        {
            "types": {"invoice": {"fields": {f.name: {"kind": f.kind} for f in scalars}}},
            "thresholds": {"total_amount": 0.8},
        }
    )
    codes = [c.code for c in check_fields(fields, spec, own, fitted=fitted)]
    assert "low-confidence" not in codes  # the rules file's 0.8 wins over the fitted 0.9


def _engine(text: str, engine: str = "textlayer", ocr: float = 100.0) -> dict[str, FoundField]:
    from docflow.extract.base import PageInput
    from docflow.extract.declarations.labels import BUILTIN_KINDS as FIELD_KINDS
    from docflow.extract.rules_engine.engine import RulesEngine

    pages = [PageInput(1, text, engine, ocr)]
    return RulesEngine().extract(pages, list(FIELD_KINDS)).fields


def test_doubts_are_never_calibrated_away() -> None:
    # An undecidable day/month order and two totals that disagree: the shipped table may
    # lower such values but never raises them above the engine's own score.
    found = _engine("Invoice number: A-1\nInvoice date: 04/03/2026\nTotal: 10.00\nTotal: 12.00")
    for name in ("invoice_date", "total_amount"):
        assert found[name].confidence <= found[name].evidence["score"] < 0.5, name


def test_a_worse_ocr_reading_is_calibrated_less_sure() -> None:
    text = "Invoice number: A-1"
    clean = _engine(text)["invoice_number"].confidence
    blurred = _engine(text, "tesseract", 60.0)["invoice_number"].confidence
    assert blurred < clean
    assert blurred < thresholds()["invoice_number"]  # and a person checks it
