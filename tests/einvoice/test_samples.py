"""Every sample in tests/data/einvoice read against its hand-checked truth: what detect says,
the fields, the lines, the VAT breakdown and the rules validate reports."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from docflow.einvoice import detect, read, validate

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
SAMPLES = sorted(p for p in DATA.iterdir() if p.suffix in (".xml", ".pdf"))


def _truth(path: Path) -> dict[str, Any]:
    return json.loads(path.with_suffix(".truth.json").read_text())


def _equal(want: Any, got: Any) -> bool:
    if isinstance(want, str) and isinstance(got, str) and want[:1].isdigit():
        try:
            return Decimal(want) == Decimal(got)
        except ArithmeticError:
            pass
    return bool(want == got)


def test_there_is_a_sample_of_each_format() -> None:
    flavors = {_truth(p)["detect"]["flavor"] for p in SAMPLES}
    containers = {
        (_truth(p)["detect"]["container"], _truth(p)["detect"]["syntax"]) for p in SAMPLES
    }
    assert flavors >= {"factur-x", "zugferd-1", "xrechnung-cii", "xrechnung-ubl", "peppol-bis-3"}
    assert containers >= {("pdf", "cii"), ("pdf", "zugferd-1"), ("xml", "ubl"), ("xml", "cii")}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_a_sample_reads_exactly_as_its_truth(path: Path) -> None:
    truth = _truth(path)
    found = detect(path.read_bytes())
    assert found is not None
    assert {k: getattr(found, k) for k in truth["detect"]} == truth["detect"]
    invoice = read(found)
    got = invoice.to_json()
    assert invoice.document_type == truth["document_type"]
    skip = {"detect", "document_type", "fatal_rules", "seller", "buyer", "lines", "vat"}
    for name, want in truth.items():
        if name not in skip:
            assert _equal(want, got[name]), (name, want, got[name])
    for party in ("seller", "buyer"):
        for key, want in truth[party].items():
            assert _equal(want, got[party][key]), (party, key, want, got[party][key])
    for table in ("lines", "vat"):
        assert len(got[table]) == len(truth[table])
        for want_row, got_row in zip(truth[table], got[table], strict=True):
            for key, want in want_row.items():
                assert _equal(want, got_row[key]), (table, key, want, got_row[key])


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_a_sample_breaks_exactly_the_rules_its_truth_names(path: Path) -> None:
    truth = _truth(path)
    report = validate(path.read_bytes())
    assert report.xsd == "passed", report.xsd_error
    assert sorted({f.rule for f in report.fatal}) == sorted(truth["fatal_rules"])
    assert report.valid is (not truth["fatal_rules"])
