"""The `docflow` command: run the local stack, put documents through it, ask the read model.

    docflow up | down | status           start, stop, inspect the local stack (status: how
                                         to point your own AWS client at it)
    docflow deploy [--source DIR]        publish a checkout as the next version; live -> it
    docflow versions [prune]             versions and the open executions each holds
    docflow submit PATH... [--key K]     start the stack if needed, upload, return at once
    docflow run PATH...                  start the stack if needed, submit, wait, print a table
    docflow backfill PATH...             the same under the pile prefix (Bedrock batch jobs)
    docflow jobs                         the batch inference jobs the batcher started
    docflow pending | stuck --older-than 15m | failed | show DOC
    docflow reprocess DOC
    docflow trace DOC [--version V]      the run's durable operations as a timeline
                                         (--otel: its OpenTelemetry spans)
    docflow mail                         review e-mails sent through the local SES
    docflow inbox ADDRESS                a reviewer's inbox link (local stack)
    docflow reviewers revoke ADDRESS     that reviewer's links answer 403 from now on
    docflow reviewers revoke-link URL    that one inbox link answers 403; nothing else changes
    docflow suppliers import FILE.csv | list | show ID | remove ID   the supplier registry
    docflow suppliers proposals | approve ID | reject ID   suppliers reviewers proposed
    docflow audit                        what finalized unreviewed on learned profiles, what
                                         the audit samples found, the share of wrong values
    docflow orders show PO [--supplier S]  a purchase order: its lines, receipts, the invoices
                                         billed against it, what is left, who waits for it
    docflow dashboard                    the local operators' page's URL
    docflow events [--follow]            the domain events a downstream system received

DOC is a document id (d-...), an S3 key (incoming/invoice.pdf) or an S3 URI
(s3://docflow-documents/incoming/invoice.pdf).

Every reporting command takes --json; `docflow CMD --help` shows the shape it prints and the
command's exit statuses.
Against AWS instead of the local stack, set DOCFLOW_TABLE_NAME (and credentials) and use the
query commands (pending, stuck, failed, show, reprocess, jobs).
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from typing import Any

from docflow.cli import (
    documents,
    piles,
    queries,
    stack,
    trace,
    versions,
)
from docflow.cli.control_commands import add_control_commands
from docflow.cli.exits import (
    DOCUMENT_FAILED,
    INTERRUPTED,
    NOT_FOUND,
    NOT_RUNNING,
    NOT_STARTED,
    STOPPED,
    TIMED_OUT,
    USAGE,
    DocumentNotFound,
    StackDidNotStart,
    StackNotRunning,
    exit_codes_help,
)
from docflow.cli.output import stdout_closed
from docflow.cli.shapes import JSON_SHAPES

ENVIRONMENT = """environment:
  DOCFLOW_LOCAL_PORT_BASE  the local stack's first port (default 8780): it listens on that
                           port and the next 10 (moto +0, runner +1, function host +2,
                           Bedrock +5 and +6, review links +10). Read when a state folder is
                           new; `docflow up --port-base N` moves an existing folder's ports
  DOCFLOW_STATE            the state folder when --state is not given (default .docflow)
  DOCFLOW_RULES_PATH       a rules file for the local stack's functions, read by `docflow up`
                           and kept until another is named (empty: the shipped rules)
  DOCFLOW_EXTRACT_ENGINE   fields: rules (default), textract-expense, textract or bedrock; and
  DOCFLOW_ENRICH_ENGINE    summary and risk: rules (default) or bedrock; both read by
                           `docflow up` (the local stack emulates Textract and Bedrock)
  DOCFLOW_PILE_PREFIX      the key prefix `backfill` uploads under (default backfill/)
  DOCFLOW_TABLE_NAME       with AWS credentials and no local stack running: the read model
                           the query commands ask (pending, stuck, failed, show, jobs)
  DOCFLOW_ORCHESTRATOR_FUNCTION  the function `reprocess` invokes in AWS
"""


EXTRA_CODES = (
    f"{NOT_RUNNING} (for a command that needs it); {NOT_FOUND} no such document or supplier; "
    f"{DOCUMENT_FAILED} a document failed; {TIMED_OUT} --timeout ran out; {NOT_STARTED} the "
    "stack could not start"
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("docflow")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


DOC_HELP = "a document id (d-...), an S3 key (incoming/x.pdf) or an S3 URI (s3://bucket/key)"
PATHS_HELP = "PDF files, or folders (their files, not their subfolders)"
Add = Any  # add(name, fn, help, local=False) -> the command's parser


def build_parser() -> argparse.ArgumentParser:
    doc = (__doc__ or "").strip()
    parser = argparse.ArgumentParser(
        prog="docflow",
        description=doc.splitlines()[0],
        # The docstring's synopsis repeats the command list argparse prints: the help keeps
        # what follows it.
        epilog=doc.split("\n\n", 2)[2]
        + "\n\n"
        + ENVIRONMENT
        + "\n"
        + textwrap.fill(
            exit_codes_help("any") + f"; {EXTRA_CODES} (`docflow CMD --help` says which)", 92
        )
        + "\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"docflow {_version()}")
    parser.add_argument(
        "--state",
        default=os.environ.get("DOCFLOW_STATE", ".docflow"),
        help="the local stack's folder: its data, logs and ports (default: $DOCFLOW_STATE or "
        ".docflow)",
    )
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        help="one of these (`docflow COMMAND --help` for its options, output and statuses):",
    )

    def add(name: str, fn: Any, help_text: str, local: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name,
            help=help_text,
            description=textwrap.fill(help_text, 92),
            epilog=textwrap.fill(f"--json prints: {JSON_SHAPES[name]}", 92)
            + "\n\n"
            + textwrap.fill(exit_codes_help(name), 92),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.add_argument("--json", action="store_true", help="print JSON (shape below)")
        if local:  # only where the read model could also be AWS's
            p.add_argument(
                "--local",
                action="store_true",
                help="ask the local stack only, never AWS (it runs by default when up)",
            )
        p.set_defaults(fn=fn)
        return p

    _stack_commands(add)
    _document_commands(add)
    _query_commands(add)
    add_control_commands(add)
    return parser


def _age(text: str) -> str:
    from docflow.readmodel.queries import parse_age

    try:
        parse_age(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _timeout(p: argparse.ArgumentParser, seconds: int) -> None:
    p.add_argument(
        "--timeout",
        type=float,
        default=seconds,
        metavar="SECONDS",
        help=f"stop waiting after this many seconds (default {seconds}); the documents "
        "still processing go on",
    )


def _pages(p: argparse.ArgumentParser, default: int) -> None:
    p.add_argument(
        "--limit",
        type=int,
        default=default,
        metavar="N",
        help=f"at most N documents a page (default {default})",
    )
    p.add_argument(
        "--next-token", metavar="TOKEN", help="the next page: the token the previous page printed"
    )


def _stack_commands(add: Add) -> None:
    p = add("up", stack.cmd_up, "start the local stack (ports: DOCFLOW_LOCAL_PORT_BASE)")
    p.add_argument(
        "--port-base",
        type=int,
        metavar="PORT",
        help="move the stack to ports PORT to PORT+10 (kept in the state folder); the "
        "default is the folder's, or DOCFLOW_LOCAL_PORT_BASE for a new folder (8780)",
    )
    add("down", stack.cmd_down, "stop the local stack (its state is kept)")
    add(
        "status",
        stack.cmd_status,
        "is the local stack running, and how to point your own AWS client (aws, boto3) at it",
    )
    versions.add_commands(add)
    add("mail", stack.cmd_mail, "review e-mails sent through the local SES, as text, oldest first")
    add("dashboard", stack.cmd_dashboard, "print the local operators' dashboard URL")
    p = add(
        "events",
        stack.cmd_events,
        "domain events the local stack's example consumer received (one per transition)",
    )
    p.add_argument("--follow", action="store_true", help="keep printing new events")
    p.add_argument(
        "--type",
        choices=["finalized", "archived", "failed", "review-requested", "review-decided"],
        help="only events of this detail-type",
    )


def _document_commands(add: Add) -> None:
    p = add(
        "submit",
        documents.cmd_submit,
        "upload documents and return at once (a stopped local stack is started first)",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help=PATHS_HELP)
    p.add_argument(
        "--key",
        metavar="KEY",
        help="the S3 key to upload one document to (default incoming/<file name>)",
    )
    p = add(
        "run",
        documents.cmd_run,
        "upload documents under incoming/ (a stopped local stack is started first) and wait "
        "until each settles (progress on stderr: "
        "redrawn on a terminal, otherwise a line per change and one a minute while reading)",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help=PATHS_HELP)
    _timeout(p, 600)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument(
        "--packets",
        action="store_true",
        help="upload under incoming/packets/ instead, where the shipped rules read each file as "
        "a packet of documents; a packet's parts are shown under it, indented, and waited for "
        "(docs/packets.md)",
    )
    p = add(
        "backfill",
        piles.cmd_backfill,
        "upload a pile under the pile prefix (DOCFLOW_PILE_PREFIX, default backfill/) as one "
        'pile of known size (a new folder, its manifest first: {"expected": N}) and wait '
        "like `run`. A pile of at least a job's minimum (DOCFLOW_PILE_MIN_RECORDS, 100) goes "
        "into Bedrock batch inference jobs as soon as all its documents reach the pool (or "
        "DOCFLOW_PILE_MAX_WAIT_SECONDS after the first, if some never do); a smaller pile goes "
        "on-demand at once (reason below-batch-minimum). Prints the table, the jobs that hold "
        "the pile with their record counts, and why any document went on-demand",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help=PATHS_HELP)
    _timeout(p, 900)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p = add(
        "reprocess", queries.cmd_reprocess, "a new run of a document's latest version", local=True
    )
    p.add_argument("document", metavar="DOC", help=DOC_HELP)
    p = add(
        "trace",
        trace.cmd_trace,
        "a run's durable operations as a timeline (docs/trace.md)",
        local=True,
    )
    p.add_argument("document", metavar="DOC", help=DOC_HELP)
    p.add_argument(
        "--version",
        metavar="V",
        help="trace this S3 version's latest run (default: the document's current run)",
    )
    p.add_argument(
        "--otel",
        action="store_true",
        help="the run's OpenTelemetry spans (starter, orchestrator invocations and operations, "
        "callback API, recorder) from the local stack's span files instead of the timeline",
    )


def _query_commands(add: Add) -> None:
    p = add(
        "jobs",
        piles.cmd_jobs,
        "every Bedrock batch inference job the batcher started, with status and record counts",
        local=True,
    )
    p.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N jobs (default: all)"
    )
    for name, fn, text in (
        ("pending", queries.cmd_pending, "documents waiting on a reviewer, longest first"),
        ("failed", queries.cmd_failed, "failed documents, newest first"),
    ):
        _pages(add(name, fn, text, local=True), 50)
    p = add(
        "stuck",
        queries.cmd_stuck,
        "documents in progress with no report for a while, and the operation each is on "
        "(waiting on a reviewer before the stage's deadline is not stuck)",
        local=True,
    )
    p.add_argument(
        "--older-than",
        default="15m",
        metavar="AGE",
        type=_age,  # checked before the stack is asked for
        help="no report for at least this long: 90s, 15m, 2h or 3d (default 15m)",
    )
    _pages(p, 50)
    p = add(
        "show",
        queries.cmd_show,
        "a document's current state, why it is there, its cost and its history (an "
        "e-invoice: its lines and VAT breakdown too; a table field: its rows)",
        local=True,
    )
    p.add_argument("document", metavar="DOC", help=DOC_HELP)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = int(args.fn(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        return stdout_closed()
    except KeyboardInterrupt:
        return INTERRUPTED
    except StackNotRunning as exc:
        print(f"docflow: {exc}", file=sys.stderr)
        return STOPPED
    except StackDidNotStart as exc:
        print(f"docflow: {exc}", file=sys.stderr)
        return NOT_STARTED
    except DocumentNotFound as exc:
        print(f"docflow: {exc}", file=sys.stderr)
        return NOT_FOUND
    except (ValueError, RuntimeError) as exc:
        print(f"docflow: {exc}", file=sys.stderr)
        return USAGE
    except Exception as exc:
        # The stack stopped (or was never started) under a command that reached for it.
        if stack.is_unreachable(exc):
            print(f"docflow: {StackNotRunning()}", file=sys.stderr)
            return STOPPED
        raise


__all__ = ["JSON_SHAPES", "build_parser", "main"]
