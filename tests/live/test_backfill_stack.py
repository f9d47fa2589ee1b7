"""`docflow backfill` on the real local stack with its shipped pile settings but for the job's
minimum, 20 records here (the service's default is 100: the batch emulator enforces what the
stack is told, and tests/piles proves a pile of 100 in one job on the shipped settings): a
pile of 24 one-page documents is batched whole once all of them reach the pool, and a pile of
8 goes on-demand at once, saying why (in its JSON and in the text a person reads)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from docflow import aws
from docflow.local.config import StackConfig
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from docflow.storage import records_key
from tests.kit.pdfgen import text_pdf

# The shipped defaults for piles (maximum wait, schedule): what a user gets; a lower minimum, so
# a pile above it is two dozen documents, not six score.
MINIMUM = 20
pytestmark = [
    pytest.mark.slow(seconds=60),
    pytest.mark.live_stack(env={"DOCFLOW_PILE_MIN_RECORDS": str(MINIMUM)}),
]


def docflow(live_stack: StackConfig, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(live_stack.state), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def reports(folder: Path, n: int) -> Path:
    """One-page reports with a text layer: no OCR, no review stage, cheap to run."""
    folder.mkdir()
    for i in range(n):
        (folder / f"report-{i:03d}.pdf").write_bytes(
            text_pdf(f"QUARTERLY REPORT {folder.name} {i}\nSummary of the quarter's findings.")
        )
    return folder


def enrichments(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    states = ReadModel(load_settings().table_name).states(r["documentId"] for r in rows)
    return [(states[r["documentId"]] or {}).get("enrichment") or {} for r in rows]


def test_a_pile_below_the_minimum_goes_on_demand_at_once(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    answer = docflow(live_stack, "backfill", str(reports(tmp_path / "small", 8)))

    assert answer["expected"] == 8 and len(answer["documents"]) == 8
    assert {r["status"] for r in answer["documents"]} == {"finalized"}
    assert answer["jobs"] == [] and answer["onDemand"] == {"below-batch-minimum": 8}
    how = enrichments(answer["documents"])
    assert {(e.get("mode"), e.get("onDemandReason")) for e in how} == {
        ("on-demand", "below-batch-minimum")
    }
    assert docflow(live_stack, "jobs") == []  # no job was made, nor waited for

    # What a person reads: the documents' table, then that no job was made and why.
    few = str(reports(tmp_path / "few", 3))
    done = subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(live_stack.state), "backfill", few],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("pile backfill/") and lines[0].endswith(": 3 documents")
    assert sum("finalized" in line for line in lines) == 3
    assert lines[-3:-1] == [
        "no batch job was made for this pile",
        "on-demand: 3 documents (below-batch-minimum: the pile is smaller than a batch job's "
        f"minimum ({MINIMUM} records))",
    ]
    # The cost line names the engine its figure is for (here the free local rules engine).
    assert lines[-1].startswith("cost: 3 documents $") and "local rules engine" in lines[-1]


def test_a_pile_above_the_minimum_is_batched_whole(live_stack: StackConfig, tmp_path: Path) -> None:
    answer = docflow(live_stack, "backfill", str(reports(tmp_path / "pile", 24)))
    rows = answer["documents"]

    assert {r["status"] for r in rows} == {"finalized"}  # every document settled
    assert [j["documents"] for j in answer["jobs"]] == [24]  # one job, the whole pile
    listed = {j["jobName"]: j for j in docflow(live_stack, "jobs")}
    for job in answer["jobs"]:
        seen = listed[job["jobName"]]
        assert seen["status"] == "Completed"
        assert seen["succeeded"] == seen["records"] == job["records"]
    how = enrichments(rows)
    assert Counter(e.get("mode") for e in how) == {"batch": 24}
    # No document in two jobs: the jobs' own record lists, as their input was written.
    owners: Counter[str] = Counter()
    for name in listed:
        body = aws.client("s3").get_object(
            Bucket=load_settings().artifact_bucket, Key=records_key(name)
        )["Body"]
        owners.update(r["runId"] for r in json.loads(body.read()))
    assert owners and max(owners.values()) == 1
