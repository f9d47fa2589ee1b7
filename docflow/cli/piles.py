"""`docflow backfill | jobs`: a pile through the local stack, and the batch jobs it made.

`backfill` submits its files as one pile of known size: a new folder under the pile prefix,
its manifest (`{"expected": N}`, docflow.piles.manifest) first, then the N documents, so the
pool knows how many records to expect and the batcher starts the job when they are all in.
"""

from __future__ import annotations

import argparse
import io
import json
import secrets
from collections import Counter
from collections.abc import Mapping
from contextlib import redirect_stdout
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from docflow.cli.output import print_json, table
from docflow.cli.shapes import JobRow, PileCost, PileJob, PileSummary, RunRow
from docflow.cli.stack import maybe_local
from docflow.cost import CostEstimate
from docflow.readmodel.items import DocumentState, EnrichmentNote

if TYPE_CHECKING:
    from docflow.settings import Settings

# What a user reads for each on-demand reason (docflow.piles.outcomes, flows.enrich).
WHY = {
    "below-batch-minimum": "the pile is smaller than a batch job's minimum ({minimum} records)",
    "pool-timeout": "the pool's maximum wait ({wait} s) passed with too few records for a job",
    "record-error": "the batch job answered the record with an error",
    "invalid-answer": "the batch answer did not match the enrichment's schema",
    "job-expired": "the batch job expired before it ran",
    "job-failed": "the batch job failed",
    "job-stopped": "the batch job was stopped",
    "batch-wait-ended": "the wait for the batch job ended without an answer",
}


def new_pile() -> str:
    """A fresh folder per submission: a pile is submitted once (its manifest counts it)."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"pile-{stamp}-{secrets.token_hex(3)}"


def cmd_backfill(args: argparse.Namespace) -> int:
    from docflow import aws
    from docflow.cli.documents import files, run_paths
    from docflow.cli.stack import stack
    from docflow.local.resources import LocalNames
    from docflow.piles.manifest import PileManifest
    from docflow.settings import load_settings
    from docflow.storage import pile_manifest_key

    paths = files(args.paths)  # ValueError (status 2) when there are none
    twice = sorted(n for n, k in Counter(p.name for p in paths).items() if k > 1)
    if twice:
        # One key per file name in the pile's folder: a second one would replace the first.
        # Refused input is status 2 (status 1 is `--timeout ran out` for backfill).
        raise ValueError(
            f"backfill: file names given twice: {', '.join(twice)} (a pile is one folder: "
            "one file per name)"
        )
    config = stack(args, start=True)
    settings = load_settings()
    pile = new_pile()
    manifest = PileManifest(pile, len(paths))
    # The manifest before the documents: each document's enrich step reads it.
    aws.client("s3").put_object(
        Bucket=LocalNames(prefix="docflow")("DocumentBucket"),
        Key=pile_manifest_key(settings.pile_prefix, pile),
        Body=manifest.to_json(),
        ContentType="application/json",
    )
    folder = f"{settings.pile_prefix}{pile}/"
    if not args.json:
        print(f"pile {folder}: {len(paths)} documents", flush=True)
        # The terms the stack's functions were started with (its own configuration), which
        # this shell's environment need not repeat.
        terms = _pile_terms(settings, config.extra_env)
        return int(run_paths(args, folder, after_table=lambda rows: print_pile(rows, terms)))
    # `run`'s JSON rows, captured to be this command's "documents".
    captured = io.StringIO()
    with redirect_stdout(captured):
        code = int(run_paths(args, folder))
    rows = json.loads(captured.getvalue() or "[]")
    summary = pile_summary(rows)
    print_json({"pile": folder, "expected": manifest.expected, "documents": rows, **summary})
    return code


def pile_summary(rows: list[RunRow]) -> PileSummary:
    """The jobs that hold the pile's documents, and why the others went on-demand."""
    from docflow.cli.stack import model
    from docflow.piles.pool import Pool

    pool = Pool()
    states = model().states(r["documentId"] for r in rows)
    in_job: Counter[str] = Counter()
    why: Counter[str] = Counter()
    costs: dict[tuple[str, str], PileCost] = {}
    for r in rows:
        state = states.get(r["documentId"]) or DocumentState()
        # The pool's record of this run: which job it was sent in (none: it never was).
        record = pool.record(str(state["runId"])) if state.get("runId") else None
        if record and record.get("jobArn"):
            in_job[str(record["jobName"])] += 1
        how = state.get("enrichment") or EnrichmentNote()
        add_cost(costs, how, state.get("cost"))
        if how.get("mode") == "on-demand":
            why[str(how.get("onDemandReason") or "unknown")] += 1
    jobs = [
        PileJob(**job_row(pool.job(name) or {"jobName": name}), documents=n)
        for name, n in sorted(in_job.items())
    ]
    return {
        "jobs": jobs,
        "onDemand": dict(sorted(why.items())),
        "cost": [costs[k] for k in sorted(costs)],
    }


def add_cost(
    costs: dict[tuple[str, str], PileCost], how: EnrichmentNote, cost: CostEstimate | None
) -> None:
    """The pile's cost by how its documents were enriched (mode and engine): a batch figure
    is compared with the same tokens on demand through Bedrock, not with the free `rules`."""
    from docflow.cost import bedrock_on_demand_usd

    mode, engine = str(how.get("mode") or "none"), str(how.get("engine") or "none")
    row = costs.setdefault(
        (mode, engine),
        PileCost(
            mode=mode,
            engine=engine,
            documents=0,
            usd=0.0,
            bedrockUsd=0.0,
            bedrockOnDemandUsd=0.0,
        ),
    )
    row["documents"] += 1
    if cost is None:  # not metered: a run that has not ended
        return
    row["usd"] = round(row["usd"] + float(cost.get("usd", 0)), 8)
    row["bedrockUsd"] = round(
        row["bedrockUsd"] + float((cost.get("usdBy") or {}).get("bedrock", 0)), 8
    )
    row["bedrockOnDemandUsd"] = round(row["bedrockOnDemandUsd"] + bedrock_on_demand_usd(cost), 8)


def cost_sentence(row: PileCost) -> str:
    """One line of the pile's cost, naming the engine its figure is for."""
    n = row["documents"]
    head = f"cost: {n} document{'s' if n != 1 else ''} ${row['usd']:.6f}"
    if row["engine"] == "bedrock" and row["mode"] == "batch":
        return (
            f"{head}, enriched by Bedrock batch inference (Bedrock ${row['bedrockUsd']:.6f}; "
            f"the same tokens on demand through Bedrock ${row['bedrockOnDemandUsd']:.6f})"
        )
    if row["engine"] == "bedrock":
        return f"{head}, enriched by Bedrock on demand (Bedrock ${row['bedrockUsd']:.6f})"
    if row["engine"] == "none":
        return f"{head}, not enriched"
    return f"{head}, enriched {row['mode']} by the local {row['engine']} engine (no model: free)"


def _pile_terms(settings: Settings, env: Mapping[str, str]) -> Settings:
    """`settings` with the pile's minimum and wait the stack's functions were started with."""
    minimum = env.get("DOCFLOW_PILE_MIN_RECORDS")
    wait = env.get("DOCFLOW_PILE_MAX_WAIT_SECONDS")
    return replace(
        settings,
        pile_min_records=int(minimum) if minimum else settings.pile_min_records,
        pile_max_wait_seconds=int(wait) if wait else settings.pile_max_wait_seconds,
    )


def print_pile(rows: list[RunRow], settings: Settings) -> None:
    summary = pile_summary(rows)
    for job in summary["jobs"]:
        answered = job["succeeded"] if job["succeeded"] is not None else "-"
        print(
            f"batch job {job['jobName']} ({job['jobId']}): {job['status']}, "
            f"{job['records']} records ({job['documents']} of this pile), {answered} answered"
        )
    if not summary["jobs"]:
        print("no batch job was made for this pile")
    for reason, n in summary["onDemand"].items():
        text = WHY.get(reason, reason).format(
            minimum=settings.pile_min_records, wait=settings.pile_max_wait_seconds
        )
        print(f"on-demand: {n} document{'s' if n != 1 else ''} ({reason}: {text})")
    for row in summary["cost"]:
        print(cost_sentence(row))


def job_row(j: Mapping[str, Any]) -> JobRow:
    return {
        "jobName": j.get("jobName"),
        "jobId": j.get("jobId"),
        "status": j.get("status"),
        "records": j.get("records", 0),
        "succeeded": j.get("successRecordCount"),
        "failed": j.get("errorRecordCount"),
        "createdAt": j.get("createdAt"),
        "modelId": j.get("modelId"),
    }


def job_rows(limit: int | None = None) -> list[JobRow]:
    from docflow.piles.pool import Pool

    return [job_row(j) for j in Pool().jobs(limit)]


def cmd_jobs(args: argparse.Namespace) -> int:
    maybe_local(args)
    rows = job_rows(args.limit)
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print("no batch jobs yet")
        return 0
    shown = [
        [
            r["jobName"] or "-",
            r["jobId"] or "-",
            r["status"] or "-",
            r["records"],
            r["succeeded"] if r["succeeded"] is not None else "-",
            r["failed"] if r["failed"] is not None else "-",
            r["createdAt"] or "-",
        ]
        for r in rows
    ]
    headers = ["job", "id", "status", "records", "succeeded", "failed", "created"]
    print(table(shown, headers))
    return 0


__all__ = ["cmd_backfill", "cmd_jobs"]
