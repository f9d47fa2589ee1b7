"""Poison documents: each bad file ends `failed` with its own reason code within a bounded
time; odd keys process normally; queue messages the starter cannot parse reach the DLQ."""

from __future__ import annotations

import json
import time
from typing import Any

from _reliability.corpus import invoice
from _reliability.harness import TERMINAL, Stack
from docflow.ids import DocumentRef
from tests.kit.pdfgen import (
    encrypted_pdf,
    huge_page_pdf,
    truncated_pdf,
    unloadable_page_pdf,
    zero_page_pdf,
)

MAX_PAGES = 20
MAX_BYTES = 2_000_000
BOUND_S = 120  # every poison document is terminal within this


def padded(data: bytes, size: int) -> bytes:
    """A valid PDF made bigger with comment lines after its end: over the byte limit."""
    line = b"% padding to exceed the byte limit\n"
    return data + line * (size // len(line) + 1)


CASES: list[tuple[str, Any, str]] = [
    ("poison/not-a-pdf.pdf", lambda: b"Hello, this is a plain text file.\n" * 20, "not-a-pdf"),
    ("poison/empty.pdf", lambda: b"", "empty-file"),
    ("poison/truncated.pdf", truncated_pdf, "corrupt"),
    ("poison/encrypted.pdf", encrypted_pdf, "encrypted"),
    ("poison/zero-pages.pdf", zero_page_pdf, "zero-pages"),
    ("poison/too-many-pages.pdf", lambda: invoice(1, pages=MAX_PAGES + 1), "too-many-pages"),
    ("poison/too-large.pdf", lambda: padded(invoice(2), MAX_BYTES + 1), "too-large"),
    ("poison/giant-page.pdf", huge_page_pdf, "page-dimensions"),
    ("poison/broken-page.pdf", unloadable_page_pdf, "unrenderable-page"),
]
ODD_KEYS = [
    "poison/Überweisung März – copy (2) 請求書.pdf",
    "poison/  spaces + plus %20 & semicolons; ?query#hash .pdf",
    "poison/" + "long-key-" * 110 + ".pdf",  # ~1,000 bytes: no execution name is that long
]
UNPARSEABLE = ["{not json", "[]", json.dumps({"detail-type": "Object Created", "detail": {}})]


def run(smoke: bool) -> dict[str, Any]:
    env = {"DOCFLOW_MAX_PAGES": str(MAX_PAGES), "DOCFLOW_MAX_BYTES": str(MAX_BYTES)}
    with Stack.running(extra_env=env) as stack:
        began = time.monotonic()
        bad = {key: stack.upload(key, make()) for key, make, _ in CASES}
        odd = [stack.upload(key, invoice(n + 10)) for n, key in enumerate(ODD_KEYS)]
        # An event for an object that is not there (deleted before the run could read it).
        missing = DocumentRef(stack.bucket, "poison/deleted.pdf", "3HL4kqtJlcpXroDTDmJ.rmSpXd3d")
        stack.redeliver(missing)
        for body in UNPARSEABLE:
            stack.send_raw(body)

        everything = [*bad.values(), *odd, missing]
        seconds: dict[str, float] = {}

        def note_times() -> None:
            for doc in everything:
                if doc.run_id not in seconds and stack.state(doc).get("status") in TERMINAL:
                    seconds[doc.run_id] = round(time.monotonic() - began, 1)

        states = stack.wait_settled(everything, BOUND_S, TERMINAL, on_tick=note_times)
        note_times()
        deadline = time.monotonic() + 90  # five receives, five-second visibility each
        # A read hides what it saw for 30 s: gather across reads, for the later ones arrive
        # while the earlier ones are hidden.
        dead = set(stack.dead_letters())
        while not dead >= set(UNPARSEABLE) and time.monotonic() < deadline:
            time.sleep(2)
            dead |= set(stack.dead_letters())

    reasons = {
        key: {
            "expected": expected,
            "status": states[bad[key].run_id].get("status"),
            "reason": states[bad[key].run_id].get("reason"),
            "seconds": seconds.get(bad[key].run_id),
        }
        for key, _, expected in CASES
    }
    odd_outcomes = [states[d.run_id].get("status") for d in odd]
    missing_state = states[missing.run_id]
    non_terminal = sum(1 for d in everything if states[d.run_id].get("status") not in TERMINAL)
    report = {
        "documents": len(everything),
        "failed_with_expected_reason": sum(
            1 for r in reasons.values() if (r["status"], r["reason"]) == ("failed", r["expected"])
        ),
        "poison_documents": len(CASES),
        "reasons": {key.split("/", 1)[1]: r["reason"] for key, r in reasons.items()},
        "odd_keys_finalized": odd_outcomes.count("finalized"),
        "odd_keys": len(ODD_KEYS),
        "missing_object": missing_state.get("reason"),
        "non_terminal": non_terminal,
        "max_seconds_to_terminal": max(seconds.values(), default=None),
        "bound_seconds": BOUND_S,
        "unparseable_messages": len(UNPARSEABLE),
        "in_dead_letter_queue": sum(1 for body in UNPARSEABLE if body in dead),
    }
    report["passed"] = (
        report["failed_with_expected_reason"] == len(CASES)
        and report["odd_keys_finalized"] == len(ODD_KEYS)
        and report["missing_object"] == "source-missing"
        and non_terminal == 0
        and report["in_dead_letter_queue"] == len(UNPARSEABLE)
    )
    if not report["passed"]:
        report["detail"] = reasons
    return report
