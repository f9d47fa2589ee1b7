"""The dashboard's document page in Chromium at 1280 and 390 px (issue 44 item 7), drawn from
a packet part's run folded from history events (no stack): the whole critical path (the page
once stopped at 12 of its 16 steps), review stages by name in the history, timeline labels that
are neither cut at the drawing's edge nor touching their bars, and table cells that never break
inside a word."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from docflow.trace import page, report
from docflow.trace.timeline import Fold

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ["DOCFLOW_SCREENSHOTS"]) if os.environ.get("DOCFLOW_SCREENSHOTS") else None
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
DOC = "d-" + "1" * 24
PACKET = "d-" + "2" * 24
RUN = "part-" + "4" * 32 + "-5-6"  # one token, longer than a phone's line at 14 px
STEPS = [
    "record received", "split", "read pages", "classify", "record classified", "extract fields",
    "supplier match", "check fields", "enrich", "record enriched", "route", "record routed",
    "notify reviewers", "record pending review",
]  # fmt: skip


def event(kind: str, name: str, s: float, sub: str = "Step", parent: str | None = None) -> dict:
    found = {"EventType": kind, "SubType": sub, "Id": name, "Name": name}
    found["EventTimestamp"] = T0 + timedelta(seconds=s)
    return {**found, **({"ParentId": parent} if parent else {})}


def part_trace(now: datetime) -> tuple[dict[str, Any], dict[str, Any]]:
    """A packet part's run waiting at its legal review: 14 steps, then the review's callback."""
    events: list[dict] = [
        {"EventType": "ExecutionStarted", "Id": "x", "Name": "run", "EventTimestamp": T0}
    ]
    for n, name in enumerate(STEPS):
        events += [event("StepStarted", name, 2 * n), event("StepSucceeded", name, 2 * n + 1)]
    wait = len(STEPS) * 2
    events += [
        event("ContextStarted", "review-0", wait, "WaitForCallback"),
        event("CallbackStarted", "review-0 create callback id", wait, "Callback", "review-0"),
    ]
    fold = Fold()
    fold.add(events)
    at = (T0 + timedelta(seconds=wait, milliseconds=184)).isoformat()  # as the recorder writes
    history = [
        {"runId": RUN, "at": T0.isoformat(), "status": "received", "stage": "intake",
         "cause": "orchestrator"},
        {"runId": RUN, "at": at, "status": "classified", "stage": "classify",
         "cause": "orchestrator", "payload": {"docType": "contract"}},
        {"runId": RUN, "at": at, "status": "pending-review", "stage": "review-0",
         "cause": "callback-api", "payload": {"stageIndex": 0, "stageName": "legal",
                                              "reviewers": ["legal@example.com"]}},
    ]  # fmt: skip
    state = {
        "documentId": DOC,
        "key": f"packets/{PACKET}/v-{'3' * 16}/00005-00006.pdf",
        "version": "null",
        "status": "pending-review",
        "docType": "contract",
        "pages": 2,
        "runId": RUN,
        "parentId": PACKET,
        "parentKey": "incoming/packets/post.pdf",
        "parentPages": [5, 6],
    }
    shown = {"state": state, "history": history}
    return shown, report.build(shown, RUN, None, fold, lambda c: None, now)


class Model:
    def states(self, ids: list[str]) -> dict[str, dict]:
        return {PACKET: {"documentId": PACKET, "key": "incoming/packets/post.pdf"}}


# Every timeline label inside the drawing and clear of every bar, in CSS pixels.
LABELS = """(() => {
  const svg = document.querySelector('svg.timeline').getBoundingClientRect();
  const bars = [...document.querySelectorAll('svg.timeline rect')]
    .map(r => r.getBoundingClientRect());
  const bad = [];
  for (const t of document.querySelectorAll('svg.timeline text')) {
    const r = t.getBoundingClientRect();
    if (r.right > svg.right + 0.5 || r.left < svg.left - 0.5) bad.push('cut: ' + t.textContent);
    for (const b of bars) {
      const apart = r.bottom + 1 <= b.top || b.bottom + 1 <= r.top
        || r.right <= b.left || b.right <= r.left;
      if (!apart) bad.push('touches a bar: ' + t.textContent);
    }
  }
  return bad;
})()"""
# The table cells whose words were broken across lines: a word in one cell on two line boxes.
BROKEN_WORDS = """(() => {
  const bad = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let text = walk.nextNode(); text; text = walk.nextNode()) {
    if (!text.parentElement.closest('td')) continue;
    for (const m of text.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(text, m.index);
      range.setEnd(text, m.index + m[0].length);
      const rects = [...range.getClientRects()];
      const wide = rects.reduce((sum, r) => sum + r.width, 0);
      // Broken though it fits its cell's line (a token wider than the line has to break).
      if (rects.length > 1 && wide <= text.parentElement.closest('td').clientWidth) bad.push(m[0]);
    }
  }
  return bad;
})()"""


def test_the_document_page_shows_the_whole_path_stage_names_and_whole_words(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.support.browser import chromium, not_blank

    now = T0 + timedelta(hours=5)
    shown, trace = part_trace(now)
    path = trace["criticalPath"]
    assert len(path) > 12 and path[-1] == "review-0 create callback id"
    monkeypatch.setattr(page, "trace_of", lambda model, doc, version: (shown, trace, ""))
    html = page.page(Model(), DOC)
    shots = SHOTS or tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        for width, size in ((1280, "desktop"), (390, "phone")):
            tab = browser.new_page(viewport={"width": width, "height": 900})
            tab.set_content(html)
            shot = tab.screenshot(full_page=True)
            assert not_blank(shot)
            (shots / f"document-page-{size}.png").write_bytes(shot)
            # The part by its packet's file and pages, not its own PDF's name.
            assert tab.locator("section.wide h2").first.inner_text() == "post.pdf, pages 5\u20136"
            # The whole critical path, to its last step.
            row = tab.locator("table.kv tr", has_text="critical path")
            assert row.locator("th").inner_text() == f"critical path ({len(path)} steps)"
            assert row.locator("td").inner_text().split(" \u2192 ") == path
            # The history names the review stage as `show` does.
            stages = (
                tab.locator("#history table").first.locator("td:nth-child(3)").all_inner_texts()
            )
            assert stages == ["intake", "classify", "legal"]
            # Beside the timeline, or alone on a phone, the history fits its box.
            box = tab.locator("#history .scroll").first
            assert box.evaluate("b => b.scrollWidth <= b.clientWidth"), size
            # The summary shows every value whole, the run id too: nothing behind a scroll.
            box = tab.locator("section.wide .scroll").first
            assert box.evaluate("b => b.scrollWidth <= b.clientWidth"), size
            assert tab.evaluate(LABELS) == [], size
            assert tab.evaluate(BROKEN_WORDS) == [], size
            # Nothing wider than the screen but a table's own scrolling box.
            assert tab.evaluate("document.documentElement.scrollWidth") <= width
            tab.close()
