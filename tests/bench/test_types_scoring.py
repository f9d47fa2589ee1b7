"""The scoring of `bench/extraction.py --only types` on small made-up inputs: exact fields,
tables' rows, silent wrong values only where no person checks, straight-through."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # the benchmarks' modules are imported as bench/ runs them

from _extraction.generated import Document  # noqa: E402
from _extraction.types import judge_document, rows_exact, same_value, score_types  # noqa: E402

KINDS = {"merchant": "party", "total": "amount", "lines": "table"}
ROWS = [{"description": "Tea", "amount": "2.30"}, {"description": "Rice", "amount": "7.00"}]


def doc(ident: str, **truth: Any) -> Document:
    return Document(ident, "en", "receipt", "real", True, "", truth=truth)


def result(stages: list[str], doc_type: str = "receipt", **fields: Any) -> dict[str, Any]:
    out = {}
    for name, value in fields.items():
        out[name] = (
            {"value": f"{len(value)} rows", "rows": value}
            if isinstance(value, list)
            else {"value": value}
        )
    return {"docType": doc_type, "fields": out, "stages": [{"name": s} for s in stages]}


def test_parties_and_text_compare_folded_amounts_exactly() -> None:
    assert same_value("party", "Syl Roasted Delights Sdn Bhd", "SYL ROASTED DELIGHTS SDN. BHD.")
    assert not same_value("amount", "54.5", "54.50")
    assert same_value("amount", None, None) and not same_value("amount", None, "1.00")


def test_rows_exact_counts_each_read_row_once_whatever_the_order() -> None:
    assert rows_exact(ROWS, list(reversed(ROWS))) == 2
    assert rows_exact(ROWS + ROWS[:1], ROWS) == 2  # one read row, not two truth rows
    assert rows_exact(ROWS, [{"description": "Tea", "amount": "2.3"}]) == 0


def test_a_wrong_value_is_silent_only_where_no_person_checks_the_fields() -> None:
    truth = doc("r/1", merchant="SYL", total="54.50", lines=ROWS)
    unseen = judge_document(truth, result([], merchant="SYL", total="45.50"), KINDS)
    seen = judge_document(truth, result(["fields"], merchant="SYL", total="45.50"), KINDS)
    legal = judge_document(truth, result(["legal"], merchant="SYL", total="45.50"), KINDS)
    assert (unseen["silent_wrong"], seen["silent_wrong"], legal["silent_wrong"]) == (1, 0, 1)
    # A table read with other rows is a wrong value too.
    rows = judge_document(truth, result([], merchant="SYL", total="54.50", lines=ROWS[:1]), KINDS)
    assert rows["silent_wrong"] == 1 and not rows["straight_through"]


def test_straight_through_wants_no_stage_and_every_field_and_row_right() -> None:
    truth = doc("r/1", merchant="SYL", total="54.50", lines=ROWS)
    right = result([], merchant="syl", total="54.50", lines=list(reversed(ROWS)))
    assert judge_document(truth, right, KINDS)["straight_through"]
    assert not judge_document(truth, {**right, "stages": [{"name": "privacy"}]}, KINDS)[
        "straight_through"
    ]
    # A table the document does not print, and none read: right.
    none = doc("r/2", merchant="SYL", total="1.00", lines=None)
    assert judge_document(none, result([], merchant="SYL", total="1.00"), KINDS)["straight_through"]


def test_figures_per_type() -> None:
    docs = [
        doc("r/1", merchant="SYL", total="54.50", lines=ROWS),
        doc("r/2", merchant="ABC", total=None, lines=None),
    ]
    results = [
        result(["fields"], merchant="SYL", lines=[ROWS[0], {"description": "Rice"}]),
        result([], doc_type="invoice", merchant="ABD"),
    ]
    figures = score_types(docs, results, {"receipt": KINDS})["receipt"]
    assert figures["documents"] == 2 and figures["classified"] == 0.5
    assert figures["fields"]["merchant"] == {"printed": 2, "read": 2, "exact": 0.5}
    assert figures["fields"]["total"] == {"printed": 1, "read": 0, "exact": 0.0}
    assert figures["tables"]["lines"] == {"rows_truth": 2, "rows_read": 2, "rows_exact": 1}
    assert figures["silent_wrong"] == 1  # ABD for ABC, and nobody checks r/2's fields
    assert figures["straight_through"] == 0.0 and figures["fields_review_rate"] == 0.5
    assert figures["by_stage"] == {"fields": 1}
