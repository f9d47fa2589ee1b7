"""The local dashboard's metric panels: per-minute buckets and escaped server-side SVG."""

from __future__ import annotations

from pathlib import Path

from docflow.local.config import StackConfig
from docflow.local.services.dashboard import charts, read_points, series
from docflow.observability import record_local
from docflow.ops.charts import bar_chart, line_chart


def test_points_fall_into_minute_buckets() -> None:
    start = 1_000_000.0
    points = [
        {"t": start + 5, "ns": "docflow", "name": "PagesRead", "value": 2, "dims": {}},
        {"t": start + 50, "ns": "docflow", "name": "PagesRead", "value": 3, "dims": {}},
        {"t": start + 70, "ns": "docflow", "name": "PagesRead", "value": 4, "dims": {}},
        {"t": start - 1, "ns": "docflow", "name": "PagesRead", "value": 99, "dims": {}},
    ]
    pick = lambda p: "pages"  # noqa: E731
    assert series(points, start, pick, buckets=3) == {"pages": [5.0, 4.0, 0.0]}
    # Gauges keep their latest reading through minutes without a sample.
    assert series(points, start, pick, "max", buckets=3) == {"pages": [3.0, 4.0, 4.0]}
    assert series(points, start, pick, "mean", buckets=3) == {"pages": [2.5, 4.0, 4.0]}


def test_recorded_points_are_drawn_with_names_escaped(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "metrics.jsonl"
    monkeypatch.setenv("DOCFLOW_METRICS_FILE", str(path))
    record_local("docflow", "DocumentsFailedByReason", 1, {"reason": "<b>x</b>"})
    record_local("docflow", "DocumentCostUsd", 0.25, {"docType": "invoice"})
    record_local("docflow", "DocumentsReceived", 1)
    path.open("a").write('{"t": 1, "cut short')  # a crash mid-write loses one line only
    points = read_points(path)
    assert len(points) == 3
    html = charts(points, StackConfig(state=tmp_path), points[-1]["t"] + 1)
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "invoice" in html and "received (total 1)" in html
    assert "<script" not in html


def test_empty_charts_say_so() -> None:
    assert "no data yet" in bar_chart("nothing", {})
    assert "no data yet" in line_chart("nothing", {}, ("a", "b"))


def test_the_bank_check_verdicts_are_drawn_as_shares(tmp_path: Path, monkeypatch) -> None:
    """Issue 56: what the bank-details check holds, passes and could not read, as shares."""
    path = tmp_path / "metrics.jsonl"
    monkeypatch.setenv("DOCFLOW_METRICS_FILE", str(path))
    for verdict in ("registered", "registered", "registered", "unreadable"):
        record_local("docflow", "BankDetailsChecks", 1, {"verdict": verdict})
    points = read_points(path)
    html = charts(points, StackConfig(state=tmp_path), points[-1]["t"] + 1)
    assert "Bank-details check, by verdict (% of 4 checked)" in html
    assert ">75%<" in html and ">25%<" in html and "unreadable" in html
