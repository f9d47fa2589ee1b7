"""The `docflow` command: run the local stack, put documents through it, ask the read model.

    docflow up | down | status
    docflow submit PATH... [--key K]
    docflow run PATH...                  start the stack if needed, submit, wait, print a table
    docflow pending | stuck --older-than 15m | failed | show DOC
    docflow reprocess DOC
    docflow mail                         review e-mails sent through the local SES

Every reporting command takes --json. Against AWS instead of the local stack, set
DOCFLOW_TABLE_NAME (and credentials) and use the query commands.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from docflow.readmodel.queries import ReadModel, parse_age
from docflow.readmodel.transitions import PENDING_REVIEW, TERMINAL

SETTLED = {*TERMINAL, PENDING_REVIEW}


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, sort_keys=True, default=str))


def _table(rows: list[list[str]], headers: list[str]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=False)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=False))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows]
    return "\n".join(out)


def _stack(args: argparse.Namespace, start: bool = False) -> Any:
    from docflow.local import control

    state = Path(args.state)
    if start:
        control.up(state)
    return control.use_stack(state)


def _model() -> ReadModel:
    from docflow.settings import load_settings

    return ReadModel(load_settings().table_name)


# ------------------------------------------------------------------ stack
def cmd_up(args: argparse.Namespace) -> int:
    from docflow.local import control, recovery

    starting = control.running_pid(Path(args.state)) is None
    config = control.up(Path(args.state))
    info = control.status(Path(args.state))
    # After an unclean stop (a kill), what the start brought back; {} when nothing to say.
    found = control.recovered(Path(args.state)) if starting else {}
    found = found if found.get("uncleanStop") else {}
    if args.json:
        _print_json({**info, "recovery": found})
        return 0
    if found:
        print(recovery.summary(found))
    print(f"local stack up; review links served at {config.review_url}")
    return 0


def cmd_down(args: argparse.Namespace) -> int:
    from docflow.local import control

    stopped = control.down(Path(args.state))
    _print_json({"stopped": stopped}) if args.json else print(
        "local stack stopped" if stopped else "local stack was not running"
    )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from docflow.local import control

    info = control.status(Path(args.state))
    if args.json:
        _print_json(info)
    else:
        print("running" if info["running"] else "stopped")
        for key in ("moto", "runner", "host", "review", "state"):
            print(f"  {key:7} {info[key]}")
    return 0 if info["running"] else 3


# ------------------------------------------------------------------ documents
def _files(paths: list[str]) -> list[Path]:
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


def _upload(paths: list[Path], key: str | None) -> list[dict[str, Any]]:
    from docflow import aws
    from docflow.ids import DocumentRef
    from docflow.local.resources import LocalNames

    bucket = LocalNames(prefix="docflow")("DocumentBucket")
    if key and len(paths) != 1:
        raise SystemExit("docflow: --key names one document; give one path")
    submitted = []
    for path in paths:
        object_key = key or f"incoming/{path.name}"
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
    _stack(args, start=True)
    submitted = _upload(_files(args.paths), args.key)
    if args.json:
        _print_json(submitted)
    else:
        for s in submitted:
            print(f"{s['documentId']}  {s['path']} -> s3://{s['bucket']}/{s['key']}")
    return 0


def _pages_read(prefix: str) -> int:
    from docflow import aws
    from docflow.settings import load_settings

    answer = aws.client("s3").list_objects_v2(
        Bucket=load_settings().artifact_bucket, Prefix=f"{prefix}/pages/"
    )
    return int(answer.get("KeyCount", 0))


def _bar(done: int, total: int | None, width: int = 20) -> str:
    if not total:
        return "[" + "." * width + "]"
    filled = int(width * min(done, total) / total)
    return "[" + "#" * filled + "." * (width - filled) + f"] {done}/{total}"


def cmd_run(args: argparse.Namespace) -> int:
    _stack(args, start=True)
    submitted = _upload(_files(args.paths), None)
    model = _model()
    deadline = time.monotonic() + args.timeout
    states: dict[str, dict[str, Any]] = {}
    tty = sys.stderr.isatty() and not args.json
    drawn = 0
    while True:
        for s in submitted:
            state = model.show(s["documentId"])["state"] or {}
            if state.get("runId") == s["runId"]:
                states[s["documentId"]] = state
        lines = []
        for s in submitted:
            state = states.get(s["documentId"], {})
            status = state.get("status", "queued")
            lines.append(
                f"{Path(s['path']).name[:32]:32} "
                f"{_bar(_pages_read(s['prefix']), state.get('pages'))} {status}"
            )
        if tty:
            sys.stderr.write(("\x1b[F" * drawn) + "\n".join(lines) + "\n")
            drawn = len(lines)
        done = all(states.get(s["documentId"], {}).get("status") in SETTLED for s in submitted)
        if done or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    results = [_result_row(s, states.get(s["documentId"], {})) for s in submitted]
    if args.json:
        _print_json(results)
    else:
        rows = [
            [
                Path(r["path"]).name,
                r["pages"] or "-",
                ",".join(r["engines"]) or "-",
                r["docType"] or "-",
                _sensitive(r["sensitive"]),
                r["status"],
                r["reason"] or "",
            ]
            for r in results
        ]
        print(
            _table(rows, ["document", "pages", "engines", "type", "sensitive", "status", "reason"])
        )
        for r in results:
            for url in r["reviewUrls"]:
                print(f"review {Path(r['path']).name}: {url}")
    return 0 if all(r["status"] in SETTLED for r in results) else 1


def _sensitive(found: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(found.items())) or "-"


def _result_row(submitted: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
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
        "reviewUrls": state.get("reviewUrls") or [],
        "reason": state.get("reason"),
    }


# ------------------------------------------------------------------ read model
def _listing(args: argparse.Namespace, page: Any, kind: str) -> int:
    items = [
        {
            "documentId": i.get("documentId"),
            "version": i.get("version"),
            "key": i.get("key"),
            "status": i.get("status"),
            "stage": i.get("stageName"),
            "pendingSince": i.get("pendingSince"),
            "updatedAt": i.get("updatedAt"),
            "reviewUrls": i.get("reviewUrls", []),
            "reason": i.get("reason"),
            "failedAt": i.get("failedAt"),
        }
        for i in page.items
    ]
    if args.json:
        _print_json(
            items if not page.next_token else {"items": items, "nextToken": page.next_token}
        )
        return 0
    if not items:
        print(f"no {kind} documents")
    else:
        when = {"pending": "pendingSince", "stuck": "updatedAt", "failed": "failedAt"}[kind]
        extra = {"pending": "stage", "stuck": "status", "failed": "reason"}[kind]
        print(
            _table(
                [[i["documentId"], i["key"] or "", i[extra] or "", i[when] or ""] for i in items],
                ["document", "key", extra, when],
            )
        )
    if page.next_token:
        print(f"more: --next-token {page.next_token}")
    return 0


def cmd_pending(args: argparse.Namespace) -> int:
    _maybe_local(args)
    return _listing(args, _model().pending(args.limit, args.next_token), "pending")


def cmd_stuck(args: argparse.Namespace) -> int:
    _maybe_local(args)
    page = _model().stuck(parse_age(args.older_than), args.limit, args.next_token)
    return _listing(args, page, "stuck")


def cmd_failed(args: argparse.Namespace) -> int:
    _maybe_local(args)
    return _listing(args, _model().failed(args.limit, args.next_token), "failed")


def cmd_show(args: argparse.Namespace) -> int:
    _maybe_local(args)
    shown = _model().show(args.document)
    if args.json:
        _print_json(shown)
        return 0 if shown["state"] else 4
    if not shown["state"]:
        print(f"no document {args.document}")
        return 4
    state = shown["state"]
    for key in (
        "documentId",
        "key",
        "version",
        "status",
        "docType",
        "pages",
        "reason",
        "updatedAt",
    ):
        if state.get(key) is not None:
            print(f"{key:11} {state[key]}")
    print()
    print(
        _table(
            [
                [h["at"], h["status"], h["stage"], h["cause"], h["runId"][-10:]]
                for h in shown["history"]
            ],
            ["at", "status", "stage", "cause", "run"],
        )
    )
    return 0


def cmd_reprocess(args: argparse.Namespace) -> int:
    from docflow.ids import DocumentRef

    config = _maybe_local(args)
    state = _model().show(args.document)["state"]
    if not state or not state.get("bucket") or not state.get("key"):
        raise SystemExit(f"docflow: no document {args.document} to reprocess")
    sequencer, event_ms, generation = state["runOrder"].split(":")
    doc = DocumentRef(
        state["bucket"],
        state["key"],
        state["version"],
        sequencer.lstrip("0"),
        int(generation) + 1,
        state.get("etag", ""),
        int(event_ms),
    )
    started = _starter(config).start(doc)
    result = {
        "documentId": doc.document_id,
        "runId": doc.run_id,
        "started": started,
        "generation": doc.generation,
    }
    _print_json(result) if args.json else print(
        f"reprocessing {doc.document_id} as run {doc.run_id}"
    )
    return 0


def _starter(config: Any) -> Any:
    from docflow.intake import LambdaStarter, LocalRunnerStarter
    from docflow.settings import load_settings

    if config is None:
        import os

        return LambdaStarter(
            os.environ.get("DOCFLOW_ORCHESTRATOR_FUNCTION", "docflow-orchestrator")
        )
    return LocalRunnerStarter(
        config.runner_url,
        "docflow-orchestrator",
        config.claims_table,
        load_settings().execution_timeout_s,
    )


def cmd_mail(args: argparse.Namespace) -> int:
    config = _stack(args)
    path = config.state / "mail.json"
    mail = json.loads(path.read_text()) if path.exists() else []
    if args.json:
        _print_json(mail)
        return 0
    if not mail:
        print("no mail yet")
    for m in mail:
        print(f"To: {', '.join(m['to'])}\nSubject: {m['subject']}\n\n{m['body']}\n{'-' * 60}")
    return 0


def _maybe_local(args: argparse.Namespace) -> Any:
    """Query the local stack when it runs (or --local), otherwise the configured AWS."""
    from docflow.local import control

    if args.local or control.running_pid(Path(args.state)):
        return _stack(args)
    return None


# ------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="docflow", description=__doc__.splitlines()[0])
    parser.add_argument("--state", default=".docflow", help="local stack folder")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, fn: Any, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("--local", action="store_true", help="query the local stack")
        p.set_defaults(fn=fn)
        return p

    p = add("up", cmd_up, "start the local stack")
    p.description = (
        "Start the local stack. After an unclean stop (a kill) it says so and prints what it "
        'recovered. --json: the `status` object plus "recovery": {} after a clean stop, else '
        "{uncleanStop, at, journalRecordsReplayed, journalRecordsRefused, tornRecordDropped, "
        "snapshotGeneration, executionsResumed, callbacksRearmed, startClaimsReleased, "
        "messagesToRedeliver, "
        "messagesQueued}."
    )
    add("down", cmd_down, "stop the local stack (its state is kept)")
    add("status", cmd_status, "is the local stack running")
    p = add("submit", cmd_submit, "upload documents and return at once")
    p.add_argument("paths", nargs="+")
    p.add_argument("--key")
    p = add("run", cmd_run, "upload documents and wait until each settles")
    p.add_argument("paths", nargs="+")
    p.add_argument("--timeout", type=float, default=600)
    for name, fn, text in (
        ("pending", cmd_pending, "documents waiting on a reviewer"),
        ("failed", cmd_failed, "failed documents"),
    ):
        p = add(name, fn, text)
        p.add_argument("--limit", type=int, default=50)
        p.add_argument("--next-token")
    p = add("stuck", cmd_stuck, "non-terminal documents not updated for a while")
    p.add_argument("--older-than", default="15m")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--next-token")
    p = add("show", cmd_show, "a document's current state and history")
    p.add_argument("document")
    p = add("reprocess", cmd_reprocess, "a new run of a document's latest version")
    p.add_argument("document")
    add("mail", cmd_mail, "review e-mails sent through the local SES")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.fn(args) or 0)
    except (ValueError, RuntimeError) as exc:
        print(f"docflow: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
