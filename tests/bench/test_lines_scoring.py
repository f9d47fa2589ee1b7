"""The real set's `lines` figures (`bench/_extraction/lines.py`) on small made-up documents:
which read rows count as exact, what a silent-wrong row is, when the sum check passes, and
what the section says when no engine read a table."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # the benchmarks' modules are imported as bench/ runs them

from _extraction.generated import Document  # noqa: E402
from _extraction.lines import match_rows, misses, same_row, section, sum_checks  # noqa: E402

WIDGET = {"description": "Widget blue", "quantity": "2", "unit_price": "10.00", "amount": "20.00"}
BOLT = {"description": "Bolt", "quantity": "100", "amount": "5.00"}  # no unit price printed


def _doc(ident: str, lines: list[dict[str, str]] | None, issuer: str = "A", adds: bool = True):
    scanned = ident.startswith("b/")  # the made-up set's one scan
    tables = None if lines is None else {"lines": lines}
    return Document(
        ident=ident,
        language="en",
        doc_type="invoice",
        layout="real",
        scanned=scanned,
        text="",
        issuer=issuer,
        tables=tables,
        lines_add_up=adds,
    )


def _result(rows: list[dict[str, str]] | None, net: str | None = None, stages=()) -> dict:
    fields: dict[str, Any] = {}
    if rows is not None:
        fields["lines"] = {"value": f"{len(rows)} rows", "rows": rows}
    if net is not None:
        fields["net_amount"] = {"value": net}
    return {"docType": "invoice", "fields": fields, "stages": [{"name": s} for s in stages]}


def test_a_row_is_exact_on_every_column_its_truth_has_and_numbers_compare_by_value():
    assert same_row(dict(WIDGET, quantity="2.000", amount="20.0"), WIDGET)
    assert same_row(dict(WIDGET, description="Widget\n blue"), WIDGET)
    # A unit price the truth leaves out (not printed) is not scored.
    assert same_row(dict(BOLT, unit_price="0.05"), BOLT)
    assert not same_row(dict(WIDGET, amount="20.01"), WIDGET)
    assert not same_row(dict(WIDGET, description="Widget Blue"), WIDGET)
    assert not same_row({k: v for k, v in WIDGET.items() if k != "quantity"}, WIDGET)


def test_rows_match_by_value_each_truth_row_once_and_out_of_order():
    truth = [WIDGET, BOLT, WIDGET]
    assert match_rows([BOLT, WIDGET, WIDGET, WIDGET], truth) == [1, 0, 2, None]
    assert match_rows([], truth) == []


def test_the_sum_check_needs_every_amount_and_the_net():
    rows = [WIDGET, BOLT]
    assert sum_checks(rows, "25.00")
    assert sum_checks(rows, "25.01")  # within a cent
    assert not sum_checks(rows, "25.02")
    assert not sum_checks(rows, None)
    assert sum_checks([WIDGET, {"description": "Note"}], "20.00")  # a blank cell adds nothing
    assert not sum_checks([], "0.00")


def test_the_section_counts_rows_documents_silent_errors_and_issuers():
    docs = [
        _doc("a/1", [WIDGET, BOLT], issuer="A"),
        _doc("a/2", [WIDGET], issuer="A", adds=False),
        _doc("b/1", [BOLT], issuer="B"),
        _doc("c/receipt", [], issuer="C"),  # prints no line table
        _doc("d/unknown", None, issuer="D"),  # no lines truth: not scored
    ]
    wrong = dict(BOLT, amount="50.00")
    results = [
        _result([BOLT, WIDGET], net="25.00"),  # exact, out of order, adds up
        _result([WIDGET, wrong], net="20.00", stages=("fields",)),  # an extra row, checked
        _result([wrong], net="5.00"),  # wrong and nobody looks
        _result([WIDGET]),  # a row on a document that prints none, nobody looks
        _result([WIDGET]),
    ]
    got = section(docs, results)
    assert got["documents"] == 3 and got["without_lines"] == 1
    assert got["read"] == 3
    assert (got["rows"], got["rows_read"], got["rows_exact"]) == (4, 5, 3)
    assert got["rows_exact_rate"] == 0.75
    assert got["documents_exact"] == 1
    assert got["silent_wrong_rows"] == 2  # b/1's wrong row and the receipt's invented one
    assert got["sum_checked"] == 1 and got["sum_checked_exact"] == 1
    assert got["truth_adds_up"] == 2
    assert got["by_issuer"] == {
        "A": {"documents": 2, "rows": 3, "rows_read": 4, "rows_exact": 3},
        "B": {"documents": 1, "rows": 1, "rows_read": 1, "rows_exact": 0},
    }
    assert got["by_mode"] == {
        "text_layer": {"documents": 2, "rows": 3, "rows_read": 4, "rows_exact": 3},
        "scanned": {"documents": 1, "rows": 1, "rows_read": 1, "rows_exact": 0},
    }
    listed = misses(docs, results)
    assert {"doc": "b/1", "missed": BOLT} in listed
    assert {"doc": "b/1", "extra": wrong} in listed
    assert {"doc": "c/receipt", "extra": WIDGET} in listed
    assert not any(m["doc"] == "d/unknown" for m in listed)


def test_unmasked_rows_the_bench_kept_are_scored_before_the_checkpoint_s():
    card = {"description": "Fuel card 4111 1111 1111 1111", "amount": "20.00"}
    masked = {"description": "Fuel card ****1111", "amount": "20.00"}
    result = _result([masked], net="20.00") | {"tableRows": {"lines": [card]}}
    got = section([_doc("e/1", [card])], [result])
    assert got["rows_exact"] == 1 and got["documents_exact"] == 1


def test_with_no_table_read_the_section_says_so():
    docs = [_doc("a/1", [WIDGET, BOLT]), _doc("c/r", [])]
    got = section(docs, [_result(None, net="25.00"), _result([])])
    assert got == {"read": 0, "documents": 1, "rows": 2}
