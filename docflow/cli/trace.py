"""`docflow trace DOC [--version V] [--json]`: the durable execution's own timeline.

Imports the read model, boto3 and the trace modules inside the command, as the other commands
do, so `docflow --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys

from docflow.cli.exits import NOT_FOUND, DocumentNotFound
from docflow.cli.output import print_json


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
