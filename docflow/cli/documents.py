"""`docflow submit | run`: put documents through the local stack.

Commands import boto3 clients, the local stack and the settings inside their functions: `docflow
--help` and a command's --help then start in a fraction of the time (start-up time is the only
reason; nothing here imports upward).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docflow.cli.exits import DOCUMENT_FAILED, OK, TIMED_OUT
from docflow.cli.output import SETTLED, Progress, print_json, table
from docflow.cli.packets import (
    PACKET_PREFIX,
    child_submitted,
    pages_label,
)
from docflow.cli.shapes import RunRow, Submitted
from docflow.cli.stack import model, stack
from docflow.readmodel.items import ChildItem, DocumentState
from docflow.readmodel.transitions import FAILED, PENDING_REVIEW

if TYPE_CHECKING:
    from docflow.readmodel.queries import ReadModel


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
            raise ValueError(f"{raw}: no such file or directory")
    if not found:
        raise ValueError(f"no documents in {', '.join(paths)}")
    return found


def object_keys(paths: list[Path], prefix: str) -> tuple[list[tuple[Path, str]], list[str]]:
    """Pure: each file once (the same file named twice is uploaded once), with its S3 key:
    `prefix` + its name, or, where two different files share a name, `prefix` + its path from
    the folder the two have in common, so neither replaces the other. Also the notes that say
    so, for stderr."""
    unique: dict[Path, Path] = {}
    notes: list[str] = []
    for path in paths:
        real = path.resolve()
        if real in unique:
            notes.append(f"{path} is named more than once: uploaded once")
        else:
            unique[real] = path
    by_name: dict[str, list[Path]] = {}
    for real in unique:
        by_name.setdefault(real.name, []).append(real)
    keys: dict[Path, str] = {}
    for name, same in by_name.items():
        if len(same) == 1:
            keys[same[0]] = f"{prefix}{name}"
            continue
        common = Path(os.path.commonpath([p.parent for p in same]))
        for real in same:
            keys[real] = f"{prefix}{real.relative_to(common).as_posix()}"
        shown = ", ".join(f"{unique[r]} -> {keys[r]}" for r in same)
        notes.append(f"{len(same)} files are named {name}; each gets its own key: {shown}")
    return [(unique[r], keys[r]) for r in unique], notes


def upload(paths: list[Path], key: str | None, prefix: str = "incoming/") -> list[Submitted]:
    from docflow import aws
    from docflow.ids import DocumentRef
    from docflow.local.resources import LocalNames

    bucket = LocalNames(prefix="docflow")("DocumentBucket")
    if key and len({p.resolve() for p in paths}) != 1:
        raise ValueError("--key names one document; give one path")
    keyed, notes = object_keys(paths, prefix)
    if key:
        keyed = [(keyed[0][0], key)]
    for note in notes:
        print(f"docflow: {note}", file=sys.stderr)
    submitted: list[Submitted] = []
    for path, object_key in keyed:
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


def cmd_run(args: argparse.Namespace) -> int:
    return run_paths(args, PACKET_PREFIX if getattr(args, "packets", False) else "incoming/")


def run_paths(args: argparse.Namespace, prefix: str, after_table: Any = None) -> int:
    """Upload under `prefix`, wait until each document settles, print the table (or --json);
    `after_table(submitted)` prints more below the table."""
    from docflow.cli.watch import Watch

    config = stack(args, start=True)
    submitted = upload(files(args.paths), None, prefix)
    read_model = model()
    deadline = time.monotonic() + args.timeout
    watch = Watch(read_model, submitted, prefix, Progress(enabled=not args.quiet))
    while not watch.poll() and time.monotonic() <= deadline:
        time.sleep(0.5)
    results = [result_row(s, watch.states.get(s["documentId"], DocumentState())) for s in submitted]
    # Each row with what was submitted for it (a part: as its packet's run started it).
    pairs = list(zip(results, submitted, strict=True))
    for s, r in zip(submitted, results, strict=True):
        if s["documentId"] in watch.children:
            parts = watch.children[s["documentId"]]
            r["children"] = part_rows(read_model, s, parts)
            pairs += zip(r["children"], [child_submitted(s, p) for p in parts], strict=True)
    every = [row for r in results for row in (r, *r.get("children", []))]
    if args.json:
        print_json(results)
    else:
        print(run_table(every))
        if after_table is not None:
            after_table(submitted)
        print_review_links(config, pairs)
    return run_status(every, args.timeout, getattr(config, "state", None))


def run_table(rows: list[RunRow]) -> str:
    """`run`'s table: a row a document, a packet's parts indented under it."""
    cells = [
        [
            r["documentId"],
            f"  ↳ {pages_label(r['parentPages'])}" if "parentPages" in r else r["key"],
            pages_cell(r),
            ",".join(r["engines"]) or "-",
            r["docType"] or "-",
            sensitive(r["sensitive"]),
            r["status"],
            f"${r['cost']['usd']:.6f}" if r["cost"] else "-",
            r["reason"] or "",
        ]
        for r in rows
    ]
    headers = ["document", "key", "pages", "engines", "type", "sensitive", "status", "cost"]
    return table(cells, [*headers, "reason"])


def part_rows(read_model: ReadModel, packet: Submitted, parts: list[ChildItem]) -> list[RunRow]:
    """A packet's parts as `run` rows (from their current states), with their pages."""
    states = read_model.states(c["documentId"] for c in parts)
    rows = []
    for part in parts:
        submitted = child_submitted(packet, part)
        row = result_row(submitted, states.get(part["documentId"]) or DocumentState(**part))
        row["parentPages"] = part.get("parentPages")
        rows.append(row)
    return rows


def run_status(results: list[RunRow], timeout_s: float, state: Path | None = None) -> int:
    """The exit status of `run`: a failed document first, then a timeout; said on stderr."""
    open_ = [r for r in results if r["status"] not in SETTLED]
    failed = [r for r in results if r["status"] == FAILED]
    if open_:
        print(
            f"docflow: timed out after {timeout_s:g} s with {len(open_)} document"
            f"{'s' if len(open_) != 1 else ''} still processing; processing goes on "
            "(`docflow show DOC` follows one, `docflow stuck` lists slow ones)",
            file=sys.stderr,
        )
        if state is not None and all(r["status"] == "queued" for r in open_):
            # Not one run reported a step: the stack is not running documents at all.
            print(
                f"docflow: none of them started; the stack's logs say why: "
                f"{state / 'stackd.log'} and {state / 'host.log'}",
                file=sys.stderr,
            )
    if failed:
        print(
            f"docflow: {len(failed)} document{'s' if len(failed) != 1 else ''} failed "
            "(`docflow show DOC` says why)",
            file=sys.stderr,
        )
        return DOCUMENT_FAILED
    return TIMED_OUT if open_ else OK


def pages_cell(row: RunRow) -> str:
    if not row["pages"]:
        return "-"
    blank = row.get("blankPages") or 0
    return f"{row['pages']} ({blank} blank)" if blank else str(row["pages"])


def print_review_links(config: Any, pairs: list[tuple[RunRow, Submitted]]) -> None:
    """For convenience, the open stage's links as the local SES delivered them: the read model
    holds link ids only, the links themselves live in the reviewers' mailboxes. `pairs`: each
    row with what was submitted for it, a packet's parts included."""
    from docflow.local.tools.mailbox import links_in, stack_mail

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
                print(f"review {review_name(s)} ({m.reviewer}): {m.url}")


def review_name(submitted: Submitted) -> str:
    """An uploaded document by its key; a part by its packet's key and pages."""
    from docflow.ids import display_name

    pages = submitted.get("parentPages")
    if not pages:
        return str(submitted["key"])
    return display_name(submitted["key"], submitted.get("packetKey", ""), pages)


def sensitive(found: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(found.items())) or "-"


def result_row(submitted: Submitted, state: DocumentState) -> RunRow:
    return {
        "documentId": submitted["documentId"],
        "version": submitted["version"],
        "path": submitted["path"],
        "key": submitted["key"],
        "bucket": submitted["bucket"],
        "status": state.get("status", "queued"),
        "pages": state.get("pages"),
        "blankPages": int((state.get("engines") or {}).get("blank", 0)),
        "engines": sorted((state.get("engines") or {}).keys()),
        "docType": state.get("docType"),
        "sensitive": state.get("sensitive") or {},
        "stage": state.get("stageName"),
        "reviewLinks": state.get("reviewLinks") or [],
        "reason": state.get("reason"),
        "cost": state.get("cost"),
    }
