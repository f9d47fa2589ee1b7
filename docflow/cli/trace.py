"""`docflow trace DOC [--version V] [--otel] [--json]`: the durable execution's own timeline,
or (`--otel`) the run's OpenTelemetry spans as the local stack wrote them.

Imports the read model, boto3 and the trace modules inside the command, as the other commands
do, so `docflow --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys

from docflow.cli.exits import NOT_FOUND, DocumentNotFound
from docflow.cli.output import print_json
from docflow.readmodel.items import DocumentView


def cmd_trace(args: argparse.Namespace) -> int:
    from docflow.cli.refs import document_id
    from docflow.cli.stack import maybe_local, model
    from docflow.cost import cost_line
    from docflow.trace import history, report, text

    maybe_local(args)
    shown = model().show(document_id(args.document))
    if not shown["state"]:
        raise DocumentNotFound(args.document)
    run_id = report.run_for(shown, args.version)
    if args.otel:
        return _otel(args, shown, run_id)
    try:
        fold = history.read(run_id)
    except history.NoExecution as exc:
        print(f"docflow: {exc} (past the execution's retention?)", file=sys.stderr)
        return NOT_FOUND
    trace = report.build(shown, run_id, args.version, fold, cost_line)
    if args.json:
        print_json(trace)
    else:
        print(text.render(trace))
    return 0


def _otel(args: argparse.Namespace, shown: DocumentView, run_id: str) -> int:
    """The run's spans from the stack's span files (`<state>/otel/<trace id>.jsonl`)."""
    from pathlib import Path

    from docflow.local.config import StackConfig
    from docflow.telemetry import files, tree
    from docflow.telemetry.context import for_run

    trace_hex = for_run(run_id, run_order(shown, run_id)).trace_hex
    folder = StackConfig.load(Path(args.state)).otel_dir
    found = tree.summary(trace_hex, run_id, files.read_spans(folder, trace_hex))
    if args.json:
        print_json(found)
    else:
        print(tree.render(found))
    return 0


def run_order(shown: DocumentView, run_id: str) -> str:
    """The run's order (its trace id's time part), from the state or the run's reports."""
    state = shown.get("state") or {}
    if state.get("runId") == run_id and state.get("runOrder"):
        return str(state["runOrder"])
    for item in shown.get("history") or []:
        if item.get("runId") == run_id and item.get("runOrder"):
            return str(item["runOrder"])
    return ""
