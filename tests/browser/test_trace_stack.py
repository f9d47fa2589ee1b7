"""`docflow trace` and the dashboard's document page on the real local stack: a reviewed
document's review callback, a Textract call throttled past its in-step retries (the step's
attempts and their errors), a 30-page document's map batches, a run whose reading failed, and
the page in Chromium. One stack for all of them."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docflow.local.config import StackConfig
from docflow.local.emulators.textract import TextractEmulator
from tests.kit.pdfgen import fresh_invoice, make_pdf
from tests.support import screenshots
from tests.support.live_stack import (
    LEGAL_ONLY,
    free_base,
    http,
    review_url,
    running_stack,
    upload_doc,
    wait_for,
)
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.slow(seconds=120), pytest.mark.browser]  # a live stack and Chromium
# build/screenshots/, or docs/screenshots/ under `make screenshots` (tests/support/screenshots.py).
SHOTS = screenshots.folder()
COMMENT = "fine by me SECRET-COMMENT-7731"
AXIS_LABELS_TOP = """(() => {
  const svg = document.querySelector('svg.timeline');
  const tops = [...svg.querySelectorAll('text')].slice(0, 2)
    .map(t => t.getBoundingClientRect().top - svg.getBoundingClientRect().top);
  return Math.min(...tops);
})()"""


class RefusingTextract(TextractEmulator):
    """The local Textract emulator whose seeded fault is a count: the next `refuse` calls are
    throttled, the rest answered (so a test knows which attempts fail)."""

    def __init__(self) -> None:
        super().__init__()
        self.refuse = 0
        self._count_lock = threading.Lock()

    def draw_throttle(self) -> bool:
        with self._count_lock:
            if self.refuse > 0:
                self.refuse -= 1
                return True
            return False


@pytest.fixture(scope="module")
def textract() -> Iterator[RefusingTextract]:
    emulator = RefusingTextract().start()
    yield emulator
    emulator.stop()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, textract: RefusingTextract) -> Iterator[Any]:
    state = tmp_path_factory.mktemp("trace-stack")
    # Not `live_stack`: the stack's environment names this module's Textract emulator.
    config = StackConfig(
        state=state,
        port_base=free_base(),
        extra_env={
            "DOCFLOW_OCR_FALLBACK": "textract",
            "AWS_ENDPOINT_URL_TEXTRACT": textract.url,
            # A throttle fails the step's attempt at once, so the durable retry shows it.
            "DOCFLOW_THROTTLE_MAX_ATTEMPTS": "1",
        },
    )
    with running_stack(config) as running:
        yield running


def trace(stack: StackConfig, document_id: str, *more: str) -> Any:
    command = [sys.executable, "-m", "docflow.cli", "--state", str(stack.state), "trace"]
    done = subprocess.run(
        [*command, document_id, *more], check=False, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if "--json" in more else done.stdout


def ops(trace_json: dict) -> list[dict]:
    out: list[dict] = []

    def walk(level: list[dict]) -> None:
        for op in level:
            out.append(op)
            walk(op["children"])

    walk(trace_json["operations"])
    return out


def named(trace_json: dict, name: str) -> dict:
    found = [o for o in ops(trace_json) if o["name"] == name]
    assert found, f"no operation {name}: {[o['name'] for o in ops(trace_json)]}"
    return found[0]


def test_traces_and_the_document_page(
    stack: StackConfig, textract: RefusingTextract, tmp_path: Path
) -> None:
    legal = upload_doc(stack, "incoming/legal.pdf", make_pdf([LEGAL_ONLY]))
    long = upload_doc(stack, "incoming/thirty.pdf", make_pdf([fresh_invoice()] * 30))
    # Reading fails: every call of every attempt of the one batch is throttled.
    textract.refuse = 10_000
    broken = upload_doc(stack, "incoming/broken-scan.pdf", make_pdf([("scan", fresh_invoice())]))
    wait_for(broken.document_id, {"failed"}, broken.run_id, timeout=300)

    # Throttled until the first attempt has failed; then Textract answers again.
    throttled = upload_doc(
        stack, "incoming/throttled-scan.pdf", make_pdf([("scan", fresh_invoice())])
    )

    def first_attempt_failed() -> bool:
        try:
            batch = named(trace(stack, throttled.document_id, "--json"), "batch-0")
        except AssertionError:
            return False
        return bool(batch["attempts"] and batch["attempts"][0]["error"])

    wait_until(first_attempt_failed, timeout=120, interval=1, what="a throttled first attempt")
    textract.refuse = 0
    wait_for(legal.document_id, {"pending-review"}, legal.run_id)

    # The open review, in words, while it waits.
    waiting = trace(stack, legal.document_id, "--json")
    assert any(s.startswith("waiting on legal@example.com (legal) for ") for s in waiting["open"])
    assert "times out in 2 d" in " ".join(waiting["open"])

    url = review_url(stack, legal.run_id)
    assert http("GET", url)[0] == 200
    assert http("POST", url, {"decision": "approve", "comment": COMMENT})[0] == 200
    wait_for(legal.document_id, {"finalized"}, legal.run_id)
    reviewed = trace(stack, legal.document_id, "--json")
    review = named(reviewed, "review-0")
    assert review["kind"] == "wait-for-callback" and review["critical"]
    meaning = review["review"]
    assert meaning["stageName"] == "legal" and meaning["reviewers"] == ["legal@example.com"]
    assert meaning["decision"] == "approved" and meaning["decidedBy"] == "legal@example.com"
    assert meaning["waitedSeconds"] > 0 and meaning["linkSentAt"]
    assert named(reviewed, "review-0 create callback id")["kind"] == "callback"
    assert reviewed["execution"]["status"] == "succeeded" and reviewed["open"] == []
    assert reviewed["cost"]["operations"] >= 10 and reviewed["costLine"].startswith("$")
    # No callback id, link, comment or token reaches the trace.
    text_out = json.dumps(reviewed) + trace(stack, legal.document_id)
    assert COMMENT not in text_out and "CallbackId" not in text_out
    assert url.rsplit("/", 1)[-1] not in text_out
    assert "approved by legal@example.com" in trace(stack, legal.document_id)

    wait_for(long.document_id, {"finalized"}, long.run_id)
    thirty = trace(stack, long.document_id, "--json")
    read = named(thirty, "read pages")
    assert read["kind"] == "map"
    # In the order they started (history order): batches run side by side, so any order.
    assert sorted(c["name"] for c in read["children"]) == ["batch-0", "batch-1", "batch-2"]
    assert any(c["critical"] for c in read["children"])

    failed = trace(stack, broken.document_id, "--json")
    batch = named(failed, "batch-0")
    assert batch["status"] == "failed" and len(batch["attempts"]) == 4
    errors = [a["error"] for a in batch["attempts"]]
    assert all(e and "ThrottledError" in e["type"] for e in errors), errors
    assert "still throttled" in batch["error"]["message"]

    wait_for(throttled.document_id, {"classified", "pending-review", "finalized"}, throttled.run_id)
    retried = named(trace(stack, throttled.document_id, "--json"), "batch-0")
    assert retried["status"] == "succeeded" and len(retried["attempts"]) == 2
    assert "ThrottledError" in retried["attempts"][0]["error"]["type"], retried["attempts"]
    assert retried["attempts"][1]["error"] is None
    timeline = trace(stack, throttled.document_id)
    lines = [line.strip() for line in timeline.splitlines()]
    assert any("batch-0" in line and line.endswith("x2") for line in lines), timeline
    assert any(line.startswith("attempt 1: ") and "ThrottledError" in line for line in lines), (
        timeline
    )

    browse(stack, legal.document_id, broken.document_id, long.document_id, tmp_path)


def browse(stack: StackConfig, legal: str, broken: str, long: str, tmp_path: Path) -> None:
    from tests.support.browser import chromium, not_blank

    base = stack.review_url
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        # The failed list links to the document's page.
        page.goto(base + "/dashboard")
        page.locator(f'#failed a[href="/dashboard/doc/{broken}"]').click()
        assert page.url.endswith(f"/dashboard/doc/{broken}")
        assert "ThrottledError" in page.locator("#attempts").inner_text()
        assert page.locator("svg.timeline rect").count() >= 6
        assert page.locator('svg.timeline rect[fill="#d91515"]').count() >= 1  # the failed batch
        for doc, name in ((legal, "reviewed"), (broken, "failed"), (long, "thirty")):
            for width, size in ((1280, "desktop"), (390, "phone")):
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(f"{base}/dashboard/doc/{doc}")
                shot = page.screenshot(full_page=True)
                assert not_blank(shot)
                (SHOTS or tmp_path).joinpath(f"trace-{name}-{size}.png").write_bytes(shot)
                # Nothing wider than the phone's screen but the timeline's own box.
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                # The scale's labels ("0", the run's length) inside the drawing, not cut off
                # at its top by the phone's larger type.
                assert page.evaluate(AXIS_LABELS_TOP) >= 0
        page.goto(f"{base}/dashboard/doc/{legal}")
        assert "approved" in page.locator("#history").inner_text()
        assert "review-0" in page.locator("#timeline").inner_text()
        said = page.locator("ul.reviews").inner_text()
        assert "legal: legal@example.com" in said and "approved by legal@example.com" in said
        assert COMMENT not in page.content()
