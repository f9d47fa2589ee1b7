"""Burst: hundreds of documents uploaded at once.

Expect every one finalized or pending review, none lost and none run twice, the starter's
concurrency within the event source mapping's cap, and each document's page batches within
its page concurrency. Reports the time to drain and the intake queue's peak depth.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Any

from _reliability.corpus import contract, invoice
from _reliability.harness import SETTLED, Stack, history_counts, statuses_of

INTAKE_CAP = 4
PAGE_CAP = 2


def corpus(count: int) -> list[tuple[str, bytes]]:
    """Mostly one-page invoices; one in ten six pages with scans (page concurrency matters);
    one in twenty a contract that waits for review."""
    files = []
    for n in range(count):
        if n % 20 == 7:
            data = contract(n)
        elif n % 10 == 3:
            data = invoice(n, pages=6, scanned=True)
        else:
            data = invoice(n)
        files.append((f"burst/doc-{n:04d}.pdf", data))
    return files


def run(smoke: bool, durability: str = "journal") -> dict[str, Any]:
    count = 40 if smoke else 500
    env = {"DOCFLOW_PAGE_BATCH_SIZE": "1"}
    with Stack.running(
        intake_max_concurrency=INTAKE_CAP,
        page_concurrency=PAGE_CAP,
        extra_env=env,
        moto_durability=durability,
    ) as stack:
        files = corpus(count)
        depth = DepthSampler(stack)
        depth.start()
        began = time.monotonic()
        docs = stack.upload_all(files, workers=16)
        uploaded_s = time.monotonic() - began
        states = stack.wait_settled(docs, timeout_s=600 if smoke else 3600)
        drained_s = time.monotonic() - began
        depth.stop()
        executions = stack.executions()
        runs = {d.execution_name for d in docs}
        received = history_counts(stack, docs, "received")
        page_peak = max((batch_overlap(e) for e in stack.execution_data()), default=0)
        intake = stack.stats()

    outcome = statuses_of(states, docs)
    settled = sum(outcome[s] for s in SETTLED)
    report = {
        "documents": count,
        "pages": sum(6 if n % 10 == 3 and n % 20 != 7 else 1 for n in range(count)),
        "upload_seconds": round(uploaded_s, 1),
        "drain_seconds": round(drained_s, 1),
        "docs_per_s": round(count / drained_s, 2),
        "outcomes": dict(outcome),
        "settled": settled,
        "lost": count - settled,
        "executions": len(executions),
        "documents_without_execution": len(runs - set(executions)),
        "runs_received_more_than_once": sum(n for k, n in received.items() if k > 1),
        "peak_queue_depth": depth.peak,
        "intake_peak_concurrency": intake.get("intakeInFlightPeak"),
        "intake_cap": INTAKE_CAP,
        "page_batches_peak_concurrency": page_peak,
        "page_cap": PAGE_CAP,
    }
    if durability == "journal":
        report["journal_fsyncs"] = intake.get("journalFsyncs")
        report["journal_records"] = intake.get("journalRecords")
    report["passed"] = (
        settled == count
        and report["executions"] == count
        and report["documents_without_execution"] == 0
        and report["runs_received_more_than_once"] == 0
        and 0 < (report["intake_peak_concurrency"] or 0) <= INTAKE_CAP
        and 0 < page_peak <= PAGE_CAP
    )
    return report


def compare(smoke: bool) -> dict[str, Any]:
    """The same burst with moto's journal (every write on disk before its answer) and with the
    pickle every two seconds it replaced, one after the other in one run."""
    durable = run(smoke, "journal")
    snapshot = run(smoke, "snapshot")
    return {
        "journal": durable,
        "snapshot": snapshot,
        "journal_drain_seconds": durable["drain_seconds"],
        "snapshot_drain_seconds": snapshot["drain_seconds"],
        "journal_slower_by": round(durable["drain_seconds"] / snapshot["drain_seconds"] - 1, 3),
        "passed": durable["passed"] and snapshot["passed"],
    }


class DepthSampler:
    """Samples the intake queue's depth (visible + in flight) twice a second."""

    def __init__(self, stack: Stack) -> None:
        self.stack, self.peak = stack, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self.peak = max(self.peak, self.stack.queue_depth())
            except Exception:  # a missed sample is not a result
                continue


def batch_overlap(execution: dict[str, Any]) -> int:
    """The most page-batch steps of one execution that were running at the same moment, from
    the start and end times the durable runner recorded for them."""
    edges: list[tuple[datetime, int]] = []
    for op in execution.get("Operations", []):
        name = op.get("Name") or ""
        start, end = op.get("StartTimestamp"), op.get("EndTimestamp")
        if name.startswith("batch-") and start and end:
            edges += [(_time(start), 1), (_time(end), -1)]
    running = peak = 0
    for _, step in sorted(edges, key=lambda e: (e[0], e[1])):  # ends before starts on ties
        running += step
        peak = max(peak, running)
    return peak


def _time(value: Any) -> datetime:
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / 1000 if value > 1e11 else value)
    return datetime.fromisoformat(str(value))
