"""`docflow trace --json` of a long document and its dashboard page, on the real local stack.

    python bench/trace.py            a 1,000-page document (text layer)
    python bench/trace.py --smoke    a 40-page document

Starts a stack in a temporary folder (ports from DOCFLOW_LOCAL_PORT_BASE), runs the document
to its end, then times the trace (`docflow trace --json` in a fresh process, which includes
the interpreter's start and imports; and the same work in this process: read model, history
pages, fold, JSON) and the document page (one GET), several times each, and prints the median
and the worst beside the history's event and operation counts. The run's OpenTelemetry spans
too: how many each part wrote, the span file's size, and `docflow trace --otel --json` timed
the same two ways. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from docflow.local.config import StackConfig
from docflow.local.stack import control
from docflow.local.tools.ports import free_port_base
from docflow.local.tools.uploads import put_document
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit.pdfgen import INVOICE, make_pdf


def settled(document_id: str, run_id: str, timeout: float) -> dict:
    """The document's state once its run has ended or waits on a reviewer."""
    model = ReadModel(load_settings().table_name)
    deadline = time.monotonic() + timeout
    state: dict = {}
    while time.monotonic() < deadline:
        state = model.show(document_id)["state"] or {}
        if state.get("runId") == run_id and state.get("status") in FINAL:
            return state
        time.sleep(0.5)
    raise SystemExit(f"{document_id} did not settle in {timeout} s: {state.get('status')}")


# Settled for a trace: ended, or waiting on a person (the timeline then ends in the open wait).
FINAL = {"finalized", "failed", "archived", "pending-review"}


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--pages", type=int)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    pages = args.pages or (40 if args.smoke else 1000)
    base = int(os.environ.get("DOCFLOW_LOCAL_PORT_BASE") or free_port_base(19500))
    with tempfile.TemporaryDirectory() as folder:
        config = StackConfig(state=Path(folder) / "stack", port_base=base)
        config.save()
        control.up(config.state)
        control.use_stack(config.state)
        try:
            doc = put_document(
                config.names("DocumentBucket"), "incoming/long.pdf", make_pdf([INVOICE] * pages)
            )
            settled(doc.document_id, doc.run_id, 1800 if pages > 100 else 300)
            command = [sys.executable, "-m", "docflow.cli", "--state", str(config.state)]
            trace: dict = {}

            def cli() -> None:
                nonlocal trace
                done = subprocess.run(
                    [*command, "trace", doc.document_id, "--json"],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                trace = json.loads(done.stdout)

            url = f"{config.review_url}/dashboard/doc/{doc.document_id}"

            def page() -> None:
                with urllib.request.urlopen(url, timeout=60) as answer:
                    answer.read()

            def in_process() -> None:
                from docflow.cost import cost_line
                from docflow.trace import history, report

                shown = ReadModel(load_settings().table_name).show(doc.document_id)
                run_id = report.run_for(shown, None)
                json.dumps(report.build(shown, run_id, None, history.read(run_id), cost_line))

            otel: dict = {}

            def otel_cli() -> None:
                nonlocal otel
                done = subprocess.run(
                    [*command, "trace", doc.document_id, "--otel", "--json"],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                otel = json.loads(done.stdout)

            def otel_in_process() -> None:
                from docflow.cli.trace import run_order
                from docflow.telemetry import files, tree
                from docflow.telemetry.context import for_run

                shown = ReadModel(load_settings().table_name).show(doc.document_id)
                run_id = str(shown["state"]["runId"])
                trace_hex = for_run(run_id, run_order(shown, run_id)).trace_hex
                found = files.read_spans(config.otel_dir, trace_hex)
                json.dumps(tree.summary(trace_hex, run_id, found))

            cli_ms, page_ms = timed(cli, args.repeat), timed(page, args.repeat)
            inproc_ms = timed(in_process, args.repeat)
            otel_cli_ms, otel_ms = timed(otel_cli, args.repeat), timed(otel_in_process, args.repeat)
            span_bytes = sum(f.stat().st_size for f in config.otel_dir.glob("*.jsonl"))
        finally:
            control.down(config.state)
    print(
        json.dumps(
            {
                "pages": pages,
                "historyEvents": trace["execution"]["events"],
                "operations": trace["execution"]["operations"],
                "trace_cli_ms_median": round(statistics.median(cli_ms), 1),
                "trace_cli_ms_max": round(max(cli_ms), 1),
                "trace_in_process_ms_median": round(statistics.median(inproc_ms), 1),
                "trace_in_process_ms_max": round(max(inproc_ms), 1),
                "page_ms_median": round(statistics.median(page_ms), 1),
                "page_ms_max": round(max(page_ms), 1),
                "otel_trace_ids": len(otel["traceIds"]),
                "otel_spans": len(otel["spans"]),
                "otel_spans_by_part": otel["parts"],
                "otel_file_bytes": span_bytes,
                "otel_cli_ms_median": round(statistics.median(otel_cli_ms), 1),
                "otel_in_process_ms_median": round(statistics.median(otel_ms), 1),
                "otel_in_process_ms_max": round(max(otel_ms), 1),
                "repeat": args.repeat,
            }
        )
    )


if __name__ == "__main__":
    main()
