"""The operators' view on the real local stack: `docflow run`, `show`, `events`, `dashboard`,
and the dashboard page in a real Chromium."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from docflow.local.config import StackConfig
from docflow.local.services.dashboard import read_points
from tests.kit.pdfgen import fresh_invoice, make_pdf
from tests.support.browser import chromium
from tests.support.live_stack import LEGAL_ONLY, http, review_url, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.live_stack(fast=True)]


def docflow(live_stack: StackConfig, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(live_stack.state), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def ran(live_stack: StackConfig, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("docs")
    (folder / "invoice.pdf").write_bytes(make_pdf([fresh_invoice()]))
    (folder / "legal.pdf").write_bytes(make_pdf([LEGAL_ONLY]))
    (folder / "notes.txt").write_bytes(b"not a pdf")
    done = docflow(live_stack, "run", str(folder), "--json")
    assert done.returncode == 5, done.stderr  # notes.txt failed: `run` says so in its status
    rows = {Path(r["path"]).name: r for r in json.loads(done.stdout)}
    return {"rows": rows, "stderr": done.stderr}


def test_run_shows_plain_progress_and_each_settled_cost(ran: dict[str, Any]) -> None:
    # stderr is a pipe here, not a terminal: plain lines, no cursor movement.
    assert "\x1b[" not in ran["stderr"]
    assert "invoice.pdf: finalized" in ran["stderr"]
    assert "notes.txt: failed" in ran["stderr"]
    invoice = ran["rows"]["invoice.pdf"]
    assert invoice["status"] == "finalized" and invoice["cost"]["usd"] > 0
    assert invoice["cost"]["pages"] == {"textlayer": 1}


def test_show_prints_the_cost(live_stack: StackConfig, ran: dict[str, Any]) -> None:
    shown = docflow(live_stack, "show", ran["rows"]["invoice.pdf"]["documentId"])
    (line,) = [x for x in shown.stdout.splitlines() if x.startswith("cost")]
    assert "$" in line and "operations" in line


def test_events_lists_each_transition_once(live_stack: StackConfig, ran: dict[str, Any]) -> None:
    invoice = ran["rows"]["invoice.pdf"]["documentId"]
    deadline = time.monotonic() + 30
    events: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        events = json.loads(docflow(live_stack, "events", "--json").stdout)
        if any(e["detail"]["documentId"] == invoice for e in events):
            break
        time.sleep(1)
    mine = [e for e in events if e["detail"]["documentId"] == invoice]
    assert [e["detail-type"] for e in mine] == ["finalized"]
    assert mine[0]["detail"]["summary"]["docType"] == "invoice"
    ids = [e["detail"]["eventId"] for e in events]
    assert len(ids) == len(set(ids))
    legal = ran["rows"]["legal.pdf"]["documentId"]
    assert "review-requested" in {
        e["detail-type"] for e in events if e["detail"]["documentId"] == legal
    }


@pytest.mark.browser
def test_the_dashboard_lists_pending_and_failed_documents(
    live_stack: StackConfig, ran: dict[str, Any], tmp_path: Path
) -> None:
    answer = json.loads(docflow(live_stack, "dashboard", "--json").stdout)
    assert answer == {"url": f"{live_stack.review_url}/dashboard", "running": True}
    assert http("POST", answer["url"], {"x": "1"})[0] == 405
    pending, failed = ran["rows"]["legal.pdf"], ran["rows"]["notes.txt"]
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        requested: list[str] = []
        page.on("request", lambda r: requested.append(r.url))
        response = page.goto(answer["url"])
        assert response is not None and response.status == 200
        assert "default-src 'none'" in response.headers["content-security-policy"]
        assert pending["documentId"] in page.locator("#pending").inner_text()
        assert "legal" in page.locator("#pending").inner_text()
        failures = page.locator("#failed").inner_text()
        assert failed["documentId"] in failures and "not-a-pdf" in failures
        assert page.locator("figure.chart svg").count() >= 10
        assert page.locator("script").count() == 0
        page.screenshot(path=str(tmp_path / "dashboard.png"), full_page=True)
    assert requested == [answer["url"]]  # nothing fetched from anywhere else


def test_a_decision_is_one_published_event_on_the_dashboard(
    live_stack: StackConfig, ran: dict[str, Any]
) -> None:
    """#44.6: the callback API and the orchestrator both report a decision; metrics.jsonl had
    two DomainEventsPublished for each, and the dashboard counted review-decided twice. (Last
    in the module: the dashboard test above wants legal.pdf still pending.)"""
    legal = ran["rows"]["legal.pdf"]["documentId"]
    decided = 0
    state = wait_for(legal, {"pending-review"})
    while state["status"] == "pending-review":
        url = review_url(live_stack, state["runId"], stage=int(state["stageIndex"]))
        assert http("POST", url, {"decision": "approve"})[0] == 200
        decided += 1
        after = state["stageIndex"]
        state = wait_for(legal, {"pending-review", "finalized"}, timeout=120)
        while state["status"] == "pending-review" and state["stageIndex"] == after:
            time.sleep(0.3)
            state = wait_for(legal, {"pending-review", "finalized"}, timeout=120)
    assert state["status"] == "finalized"
    published = [
        p
        for p in read_points(live_stack.state / "metrics.jsonl")
        if p.get("name") == "DomainEventsPublished"
        and p["dims"].get("detailType") == "review-decided"
    ]
    assert sum(float(p["value"]) for p in published) == decided
