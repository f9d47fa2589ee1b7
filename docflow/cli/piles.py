"""`docflow backfill | jobs`: a pile through the local stack, and the batch jobs it made."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from docflow.cli.documents import run_paths
from docflow.cli.output import print_json, table
from docflow.cli.stack import maybe_local


def cmd_backfill(args: argparse.Namespace) -> int:
    from docflow.settings import load_settings

    return run_paths(args, load_settings().pile_prefix, after_table=print_jobs_of)


def print_jobs_of(submitted: list[dict[str, Any]]) -> None:
    """Which batch job answered each document (none: it went on-demand)."""
    from docflow.piles.pool import Pool

    pool = Pool()
    jobs: Counter[str] = Counter()
    for s in submitted:
        record = pool.record(s["runId"]) or {}
        jobs[str(record.get("jobArn", "")).rsplit("/", 1)[-1] or "-"] += 1
    for job, n in sorted(jobs.items()):
        label = f"batch job {job}" if job != "-" else "not in a batch job"
        print(f"{label}: {n} document{'s' if n != 1 else ''}")


def job_rows(limit: int = 100) -> list[dict[str, Any]]:
    from docflow.piles.pool import Pool

    return [
        {
            "jobName": j.get("jobName"),
            "jobId": j.get("jobId"),
            "status": j.get("status"),
            "records": j.get("records", 0),
            "succeeded": j.get("successRecordCount"),
            "failed": j.get("errorRecordCount"),
            "createdAt": j.get("createdAt"),
            "modelId": j.get("modelId"),
        }
        for j in Pool().jobs(limit)
    ]


def cmd_jobs(args: argparse.Namespace) -> int:
    maybe_local(args)
    rows = job_rows(args.limit)
    if args.json:
        print_json(rows)
        return 0
    shown = [
        [
            r["jobId"] or "-",
            r["status"] or "-",
            r["records"],
            r["succeeded"] or "-",
            r["failed"] if r["failed"] is not None else "-",
            r["createdAt"] or "-",
        ]
        for r in rows
    ]
    print(table(shown, ["job", "status", "records", "succeeded", "failed", "created"]))
    return 0
