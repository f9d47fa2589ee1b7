"""A contract's declared parties and dates, filled from the enrich pass where no label named
them, and never trusted alone (`docflow/pipeline/enrich_fill.py`)."""

from __future__ import annotations

import tomllib

from docflow.document import Field
from docflow.extract.declarations.model import parse_declarations
from docflow.pipeline.enrich_fill import FILLED, fill_from_enrichment

RULES = """
[fields.types.contract.fields.parties]
kind = "party"
[fields.types.contract.fields.effective_date]
kind = "date"
labels = { en = ["effective as of", "commencement"] }
[fields.types.contract.fields.termination_date]
kind = "date"
[fields.types.contract.fields.governing_law]
kind = "text"
"""
FOUND = {
    "parties": ["Acme Ltd", "Beta GmbH"],
    "keyDates": [
        {"label": "This Agreement is effective as of", "date": "2026-01-01"},
        {"label": "signed on", "date": "2025-12-20"},
    ],
}


def _decl():
    return parse_declarations(tomllib.loads(RULES)["fields"]["types"], RULES)["contract"]


def test_parties_and_a_matching_date_are_filled_for_a_person_to_confirm() -> None:
    fields, checks = fill_from_enrichment({}, _decl(), FOUND)
    assert fields["parties"].value == "Acme Ltd; Beta GmbH"
    assert fields["effective_date"].to_json() == {
        "value": "2026-01-01",
        "confidence": FILLED,
        "page": 0,
        "box": None,
        "from": "enrich",
    }
    # No key date's words name a termination: nothing guessed.
    assert "termination_date" not in fields
    assert {c.field for c in checks} == {"parties", "effective_date"}
    assert {c.code for c in checks} == {"low-confidence"}


def test_what_a_label_read_is_kept() -> None:
    read = {"effective_date": Field("2026-02-02", 0.95, 1)}
    fields, checks = fill_from_enrichment(read, _decl(), FOUND)
    assert fields["effective_date"] == read["effective_date"]
    assert [c.field for c in checks] == ["parties"]


def test_two_dates_a_field_could_take_fill_nothing() -> None:
    found = {
        **FOUND,
        "keyDates": [*FOUND["keyDates"], {"label": "effective", "date": "2026-03-01"}],
    }
    fields, _ = fill_from_enrichment({}, _decl(), found)
    assert "effective_date" not in fields


def test_no_declaration_or_no_answer_fills_nothing() -> None:
    assert fill_from_enrichment({"a": {}}, None, FOUND) == ({"a": {}}, [])
    assert fill_from_enrichment({}, _decl(), None) == ({}, [])
