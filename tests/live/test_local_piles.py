"""`docflow backfill` and `docflow jobs` on the real local stack: the pile's documents wait in
the pool, the batcher (started by the registration that filled it) runs a job on the batch
emulator, the job's state-change event comes back through the local EventBridge rule, and a
pile smaller than a job's minimum goes on-demand at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from docflow.local.config import StackConfig
from tests.kit.pdfgen import text_pdf

pytestmark = [
    pytest.mark.slow,
    pytest.mark.live_stack(
        fast=True,
        env={"DOCFLOW_PILE_MIN_RECORDS": "3"},
        batch_status_s=0.5,
        pile_max_wait_s=4,
        pile_poll_s=5,
        pile_schedule_s=3,
    ),
]


def docflow(live_stack: StackConfig, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(live_stack.state), *args, "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(done.stdout)


def reports(folder: Path, n: int, tag: str) -> Path:
    folder.mkdir()
    for i in range(n):
        (folder / f"{tag}-{i}.pdf").write_bytes(
            text_pdf(
                f"QUARTERLY REPORT {tag} {i}",
                "Summary of the findings and analysis for the quarter; the appendix lists them.",
            )
        )
    return folder


def test_a_pile_goes_through_a_batch_job_and_a_small_one_on_demand(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    rows = docflow(live_stack, "backfill", str(reports(tmp_path / "pile", 3, "pile")))["documents"]
    assert [r["status"] for r in rows] == ["finalized"] * 3
    states = [docflow(live_stack, "show", r["documentId"])["state"] for r in rows]
    assert {s["enrichment"]["mode"] for s in states} == {"batch"}
    (job,) = docflow(live_stack, "jobs")
    assert (job["status"], job["records"], job["succeeded"]) == ("Completed", 3, 3)
    assert {s["enrichment"]["jobId"] for s in states} == {job["jobId"]}

    alone_pile = str(reports(tmp_path / "alone", 1, "alone"))
    (alone,) = docflow(live_stack, "backfill", alone_pile)["documents"]
    assert alone["status"] == "finalized"
    state = docflow(live_stack, "show", alone["documentId"])["state"]
    assert state["enrichment"]["mode"] == "on-demand"
    assert state["enrichment"]["onDemandReason"] == "below-batch-minimum"
    assert len(docflow(live_stack, "jobs")) == 1  # no job for a pool below the minimum
