"""Throttling: scanned pages read through Textract (the production reader, against a local
Textract that refuses 30% of calls with a throttling error), with a cap on concurrent Textract
calls across every execution far below what the executions would ask for.

Expect zero documents failed, and the peak of concurrent calls as the service itself counted
them never above the cap.
"""

from __future__ import annotations

from typing import Any

from _reliability.harness import SETTLED, Stack, statuses_of
from docflow.local.emulators.textract import TextractEmulator
from tests.kit.pdfgen import make_pdf

THROTTLE_RATE = 0.3
CAP = 2
SEED = 30


def run(smoke: bool) -> dict[str, Any]:
    count, pages = (3, 4) if smoke else (12, 6)
    capped = _one_run(count, pages, cap=CAP, smoke=smoke)
    # The control: the same documents with no cap, to show the cap is what held the peak.
    uncapped = _one_run(count, pages, cap=0, smoke=smoke)
    report = {
        "documents": count,
        "pages": count * pages,
        "throttle_rate": THROTTLE_RATE,
        "cap": CAP,
        **capped,
        "peak_concurrent_calls_without_cap": uncapped["peak_concurrent_calls"],
        "failed_without_cap": uncapped["failed"],
    }
    report["passed"] = (
        capped["failed"] == 0
        and capped["settled"] == count
        and capped["textract"]["answered"] >= count * pages
        and capped["textract"]["throttled"] > 0
        and capped["peak_concurrent_calls"] <= CAP
        and uncapped["peak_concurrent_calls"] > CAP
    )
    return report


def _one_run(count: int, pages: int, cap: int, smoke: bool) -> dict[str, Any]:
    emulator = TextractEmulator(throttle_rate=THROTTLE_RATE, seed=SEED).start()
    env = {
        "AWS_ENDPOINT_URL_TEXTRACT": emulator.url,
        "DOCFLOW_OCR_FALLBACK": "textract",
        "DOCFLOW_READER_CONCURRENCY_CAP": str(cap),
        # A page per batch and four batches at once per document: each execution alone would
        # ask for more Textract calls at a time than the cap allows.
        "DOCFLOW_PAGE_BATCH_SIZE": "1",
        "DOCFLOW_THROTTLE_BASE_DELAY_S": "0.2",
    }
    try:
        with Stack.running(page_concurrency=4, extra_env=env) as stack:
            # Every page a scan: every page is a Textract call.
            docs = stack.upload_all(
                [(f"throttle/doc-{n:03d}.pdf", _scanned(n, pages)) for n in range(count)]
            )
            states = stack.wait_settled(docs, timeout_s=300 if smoke else 900)
    finally:
        emulator.stop()
    outcome = statuses_of(states, docs)
    stats = emulator.stats.to_dict()
    return {
        "textract": stats,
        "outcomes": dict(outcome),
        "settled": sum(outcome[s] for s in SETTLED),
        "failed": outcome.get("failed", 0),
        "read_by": states[docs[0].run_id].get("engines"),
        "peak_concurrent_calls": stats["peak_in_flight"],
    }


def _scanned(n: int, pages: int) -> bytes:
    return make_pdf(
        [
            (
                "scan",
                f"INVOICE INV-{20000 + n}\nBill to: Customer {n}\nAmount due: {n}.00 USD\n"
                f"Payment terms: net 30\nPage {p + 1}",
            )
            for p in range(pages)
        ]
    )
