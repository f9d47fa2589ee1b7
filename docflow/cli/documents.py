"""`docflow submit | run`: put documents through the local stack.

Commands import boto3 clients, the local stack and the settings inside their functions: `docflow
--help` and a command's --help then start in a fraction of the time (start-up time is the only
reason; nothing here imports upward).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from docflow.cli.output import Progress, bar, print_json, table
from docflow.cli.stack import model, stack
from docflow.cost import format_cost
from docflow.readmodel.transitions import PENDING_REVIEW, TERMINAL

SETTLED = {*TERMINAL, PENDING_REVIEW}


def files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += sorted(
                p
                for p in path.iterdir()
                if p.is_file() and not p.name.startswith((".", "_")) and p.suffix != ".py"
            )
        elif path.is_file():
            found.append(path)
        else:
            raise SystemExit(f"docflow: {raw}: no such file or directory")
    return found


def upload(paths: list[Path], key: str | None, prefix: str = "incoming/") -> list[dict[str, Any]]:
    from docflow import aws
    from docflow.ids import DocumentRef
    from docflow.local.resources import LocalNames

    bucket = LocalNames(prefix="docflow")("DocumentBucket")
    if key and len(paths) != 1:
        raise SystemExit("docflow: --key names one document; give one path")
    submitted = []
    for path in paths:
        object_key = key or f"{prefix}{path.name}"
        answer = aws.client("s3").put_object(Bucket=bucket, Key=object_key, Body=path.read_bytes())
        doc = DocumentRef(
            bucket,
            object_key,
            answer.get("VersionId") or "null",
            content_tag=str(answer.get("ETag", "")).strip('"'),
        )
        submitted.append(
            {
                "documentId": doc.document_id,
                "version": doc.version,
                "runId": doc.run_id,
                "path": str(path),
                "key": object_key,
                "bucket": bucket,
                "prefix": f"docs/{doc.document_id}/{doc.version_tag}",
            }
        )
    return submitted


def cmd_submit(args: argparse.Namespace) -> int:
    stack(args, start=True)
    submitted = upload(files(args.paths), args.key)
    if args.json:
        print_json(submitted)
    else:
        for s in submitted:
            print(f"{s['documentId']}  {s['path']} -> s3://{s['bucket']}/{s['key']}")
    return 0


def pages_read(prefix: str) -> int:
    from docflow import aws
    from docflow.settings import load_settings

    answer = aws.client("s3").list_objects_v2(
        Bucket=load_settings().artifact_bucket, Prefix=f"{prefix}/pages/"
    )
    return int(answer.get("KeyCount", 0))


def cmd_run(args: argparse.Namespace) -> int:
    return run_paths(args, "incoming/")


def run_paths(args: argparse.Namespace, prefix: str, after_table: Any = None) -> int:
    """Upload under `prefix`, wait until each document settles, print the table (or --json);
    `after_table(submitted)` prints more below the table."""
    config = stack(args, start=True)
    submitted = upload(files(args.paths), None, prefix)
    read_model = model()
    deadline = time.monotonic() + args.timeout
    states: dict[str, dict[str, Any]] = {}
    progress = Progress(enabled=not args.quiet)
    while True:
        # Only the documents not yet settled, a hundred to a request: the polling must not
        # load the stack that is doing the work.
        waiting = [
            s for s in submitted if states.get(s["documentId"], {}).get("status") not in SETTLED
        ]
        now = read_model.states(s["documentId"] for s in waiting)
        for s in waiting:
            state = now.get(s["documentId"]) or {}
            if state.get("runId") == s["runId"]:
                states[s["documentId"]] = state
        settled = sum(states.get(s["documentId"], {}).get("status") in SETTLED for s in submitted)
        lines = []
        for s in submitted:
            state = states.get(s["documentId"], {})
            status = state.get("status", "queued")
            shown = bar(pages_read(s["prefix"]), state.get("pages")) if progress.tty else ""
            lines.append((Path(s["path"]).name, shown, status))
        progress.update(lines, settled, len(submitted))
        if settled == len(submitted) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    results = [result_row(s, states.get(s["documentId"], {})) for s in submitted]
    if args.json:
        print_json(results)
    else:
        rows = [
            [
                Path(r["path"]).name,
                r["pages"] or "-",
                ",".join(r["engines"]) or "-",
                r["docType"] or "-",
                sensitive(r["sensitive"]),
                r["status"],
                f"${r['cost']['usd']:.6f}" if r["cost"] else "-",
                r["reason"] or "",
            ]
            for r in results
        ]
        headers = ["document", "pages", "engines", "type", "sensitive", "status", "cost", "reason"]
        print(table(rows, headers))
        if after_table is not None:
            after_table(submitted)
        print_review_links(config, results, submitted)
    return 0 if all(r["status"] in SETTLED for r in results) else 1


def print_review_links(
    config: Any, results: list[dict[str, Any]], submitted: list[dict[str, Any]]
) -> None:
    """For convenience, the open stage's links as the local SES delivered them: the read model
    holds link ids only, the links themselves live in the reviewers' mailboxes."""
    from docflow.local.tools.mailbox import links_in, stack_mail

    pairs = list(zip(results, submitted, strict=True))
    waiting = {s["runId"] for r, s in pairs if r["status"] == PENDING_REVIEW}
    deadline = time.monotonic() + 10  # the stack writes its mailbox out every few seconds
    mailed = links_in(stack_mail(config.state))
    while waiting - {m.run_id for m in mailed} and time.monotonic() < deadline:
        time.sleep(0.5)
        mailed = links_in(stack_mail(config.state))
    for r, s in pairs:
        if r["status"] != PENDING_REVIEW:
            continue
        mine = [m for m in mailed if m.run_id == s["runId"]]
        stage = max((m.stage_index for m in mine), default=-1)
        for m in mine:
            if m.stage_index == stage:
                print(f"review {Path(r['path']).name} ({m.reviewer}): {m.url}")


def sensitive(found: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(found.items())) or "-"


def result_row(submitted: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    return {
        "documentId": submitted["documentId"],
        "version": submitted["version"],
        "path": submitted["path"],
        "status": state.get("status", "queued"),
        "pages": state.get("pages"),
        "engines": sorted((state.get("engines") or {}).keys()),
        "docType": state.get("docType"),
        "sensitive": state.get("sensitive") or {},
        "stage": state.get("stageName"),
        "reviewLinks": state.get("reviewLinks") or [],
        "reason": state.get("reason"),
        "cost": state.get("cost"),
    }


def cost_line(state: dict[str, Any]) -> str | None:
    cost = state.get("cost")
    return format_cost(cost) if isinstance(cost, dict) else None
