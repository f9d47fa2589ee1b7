"""The local operators' dashboard as a person sees it: every chart label inside its chart (in a
real Chromium, measured), the orchestrator's errors counting the failures the page lists, no
heading repeated by its caption, and screenshots at desktop and phone widths."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from docflow.ids import DocumentRef
from docflow.local.config import StackConfig
from docflow.local.resources import LocalNames
from docflow.local.services.dashboard import charts, render
from docflow.ops.charts import bar_chart, line_chart
from docflow.readmodel import transitions as t
from docflow.readmodel.schema import make_report
from docflow.reporting import recorder_for
from docflow.settings import load_settings
from tests.kit.sandbox import moto_sandbox
from tests.support import screenshots
from tests.support.aws import TEST_ENV
from tests.support.browser import chromium, not_blank

pytestmark = pytest.mark.browser  # drives a real Chromium

SCREENSHOTS = screenshots.folder()
NOW = time.time()  # the recorder stamps the listed failures with the clock too
# Every <text> of every chart: how far it reaches outside its SVG's viewBox (0: inside).
OVERFLOW = """() => [...document.querySelectorAll('svg')].flatMap(svg => {
  const width = svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll('text')].map(text => {
    const box = text.getBBox();
    return {text: text.textContent, out: Math.max(0, -box.x, box.x + box.width - width)};
  });
})"""


def point(t: float, ns: str, name: str, value: float, **dims: str) -> dict[str, Any]:
    return {"t": t, "ns": ns, "name": name, "value": value, "dims": dims}


def busy_hour() -> list[dict[str, Any]]:
    """An hour of a stack at work, with long invocations (172 s) and two internal errors."""
    points = []
    for minute in range(0, 60, 3):
        t_ = NOW - 3600 + minute * 60 + 5
        points += [
            point(t_, "docflow", "DocumentsReceived", 12),
            point(t_, "docflow", "DocumentsFinalized", 10),
            point(t_, "docflow", "PagesRead", 40, engine="text"),
            point(t_, "docflow", "PagesRead", 9, engine="tesseract"),
            point(t_, "AWS/Lambda", "Duration", 172_000, FunctionName="docflow-orchestrator"),
            point(t_, "AWS/SQS", "ApproximateNumberOfMessagesVisible", 3, QueueName="x"),
        ]
    for minute in (20, 41):
        t_ = NOW - 3600 + minute * 60
        points += [
            point(t_, "docflow", "DocumentsFailed", 1),
            point(t_, "docflow", "DocumentsFailedByReason", 1, reason="internal-error"),
        ]
    return points


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The page, rendered from a read model with a pending review and two failures."""
    state = tmp_path_factory.mktemp("dashboard")
    lines = "\n".join(json.dumps(p) for p in busy_hour())
    (state / "metrics.jsonl").write_text(lines + "\n")
    with moto_sandbox(LocalNames(prefix="dp"), TEST_ENV):
        recorder = recorder_for(load_settings())
        waiting = DocumentRef("b", "incoming/contract-7.pdf", "v1", "0A")
        recorder.record(make_report(waiting, t.RECEIVED, "intake", payload={"key": waiting.key}))
        recorder.record(
            make_report(
                waiting,
                t.PENDING_REVIEW,
                "review-0",
                stage_index=0,
                payload={"stageName": "legal", "reviewers": ["legal@example.com"]},
            )
        )
        for n in range(2):
            doc = DocumentRef("b", f"incoming/scanned-contract-{n}.pdf", "v1", "0A")
            recorder.record(make_report(doc, t.RECEIVED, "intake", payload={"key": doc.key}))
            why = {"reason": "internal-error", "message": "TypeError: '<' not supported"}
            recorder.record(make_report(doc, t.FAILED, "failed", payload=why))
        yield render(StackConfig(state=state), "", now=NOW)


def overflow(page: Any, html: str) -> list[dict[str, Any]]:
    page.set_content(html)
    return [o for o in page.evaluate(OVERFLOW) if o["out"] > 0.5]


def test_every_chart_label_fits_inside_its_chart() -> None:
    long_runs = {"ms": [172_000.0] * 60}
    panels = [
        line_chart("Orchestrator invocation duration (mean)", long_runs, ("10:00", "11:00"), " ms"),
        line_chart("Pages", {"pages": [12_345_678.0, 0.0]}, ("10:00", "11:00"), " pages"),
        line_chart("Oldest pending review", {"s": [86_399.0]}, ("10:00", "11:00"), " s"),
        bar_chart("Failed, by reason", {"internal-error": 2, "encrypted-pdf-with-a-long": 1}),
    ]
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 390, "height": 800})
        assert overflow(page, "".join(panels)) == []


def figure(html: str, title: str) -> str:
    found = re.search(rf"<figcaption>{re.escape(title)}</figcaption>(.*?)</figure>", html, re.S)
    assert found, title
    return unescape(found[1])


def test_orchestrator_errors_count_the_failures_the_page_lists(dashboard: str) -> None:
    errors = figure(dashboard, "Orchestrator errors")
    assert "documents failed: internal-error (total 2)" in errors
    assert "invocation errors (total 0)" in errors and "no data yet" not in errors
    assert dashboard.count("internal-error") >= 3  # the two listed failures, and the chart


def test_a_quiet_hour_shows_zero_errors_not_a_missing_panel(tmp_path: Path) -> None:
    errors = figure(charts([], StackConfig(state=tmp_path), NOW), "Orchestrator errors")
    assert "invocation errors (total 0)" in errors and "no data yet" not in errors


def test_no_heading_is_repeated_by_its_caption(dashboard: str) -> None:
    sections = re.findall(r'<h2>([^<]+)</h2>.*?<p class="none">([^<]*)</p>', dashboard, re.S)
    assert {h for h, _ in sections} >= {"Pending reviews", "Latest failures"}
    for heading, caption in sections:
        assert heading.lower() not in unescape(caption).lower(), (heading, caption)


@pytest.mark.parametrize(("name", "width"), [("desktop", 1280), ("phone", 390)])
def test_dashboard_screenshots(dashboard: str, name: str, width: int) -> None:
    with chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": 900})
        assert overflow(page, dashboard) == []
        png = page.screenshot(full_page=True)
        # Nothing wider than the phone's screen but the tables, which scroll in their box.
        scroll = page.evaluate("document.documentElement.scrollWidth")
    assert not_blank(png) and scroll <= width
    (SCREENSHOTS / f"dashboard-{name}.png").write_bytes(png)
