"""What one OpenTelemetry trace per run costs the orchestrator: the same document through the
real handler on the testing runner (moto behind it), untraced and traced (the SDK's plugin and
the local JSON Lines exporter), alternating, several times each.

    python bench/otel_overhead.py            a 200-page text-layer document, 5 runs each way
    python bench/otel_overhead.py --smoke    a 20-page document, 2 runs each way

Prints the median run time each way, the spans a traced run wrote (by name kind) and the span
file's bytes per operation, as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import _common
from aws_durable_execution_sdk_python import durable_execution
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.ids import DocumentRef
from docflow.intake import execution_input
from docflow.local.resources import LocalNames
from docflow.telemetry import files, spans
from docflow.telemetry.context import for_run
from docflow.telemetry.plugin import orchestrator_plugins
from orchestrator.app import run_document
from tests.kit.pdfgen import make_pdf
from tests.kit.sandbox import moto_sandbox

# A report: finalized with no review stage, so a run needs no callback.
REPORT = "QUARTERLY REPORT\nRevenue grew in the north region.\nSummary of the quarter."


def one_run(handler: Any, doc: DocumentRef) -> tuple[float, int]:
    began = time.perf_counter()
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.05) as runner:
        result = runner.run(input=execution_input(doc), execution_timeout=900)
    out = json.loads(result.result or "{}")
    if out.get("status") != "finalized":
        raise SystemExit(f"the run ended {out.get('status')}: {out.get('reason')}")
    return (time.perf_counter() - began) * 1000, len(result.get_all_operations())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--pages", type=int)
    parser.add_argument("--repeat", type=int)
    args = parser.parse_args()
    pages = args.pages or (20 if args.smoke else 200)
    repeat = args.repeat or (2 if args.smoke else 5)
    _common.quiet()
    env = {"DOCFLOW_OCR_ENGINE": "textlayer"}
    with tempfile.TemporaryDirectory() as folder, moto_sandbox(LocalNames("otel"), env) as names:
        bucket = names("DocumentBucket")
        body = make_pdf([REPORT] * pages)
        plain = durable_execution(run_document)
        os.environ[spans.MODE_ENV], os.environ[files.DIR_ENV] = spans.FILE, folder
        traced = durable_execution(run_document, plugins=orchestrator_plugins())
        del os.environ[spans.MODE_ENV]  # the plain handler's steps hand on no context
        times: dict[str, list[float]] = {"untraced": [], "traced": []}
        operations, last = 0, None
        # One untimed run first: imports, moto's first calls and the runner's threads warm up.
        warm = aws.client("s3").put_object(Bucket=bucket, Key="warm.pdf", Body=body)
        one_run(plain, DocumentRef(bucket, "warm.pdf", warm["VersionId"], "01"))
        for n in range(repeat):
            for way, handler in (("untraced", plain), ("traced", traced)):
                key = f"{way}-{n}.pdf"  # each run its own document: no older run to supersede
                put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=body)
                doc = DocumentRef(bucket, key, put["VersionId"], "01", event_time_ms=1)
                if way == "traced":
                    os.environ[spans.MODE_ENV] = spans.FILE
                ms, operations = one_run(handler, doc)
                os.environ.pop(spans.MODE_ENV, None)
                times[way].append(ms)
                last = doc if way == "traced" else last
        assert last is not None
        trace_hex = for_run(last.run_id, last.run_order).trace_hex
        written = files.read_spans(Path(folder), trace_hex)
        size = files.trace_file(Path(folder), trace_hex).stat().st_size
    kinds: dict[str, int] = {}
    for s in written:
        name = str(s["name"])
        kind = "attempt" if " attempt " in name else name if name[0].isupper() else "operation"
        kinds[kind] = kinds.get(kind, 0) + 1
    untraced, traced_ms = statistics.median(times["untraced"]), statistics.median(times["traced"])
    _common.emit(
        {
            "pages": pages,
            "repeat": repeat,
            "operations": operations,
            "untraced_ms_median": round(untraced, 1),
            "traced_ms_median": round(traced_ms, 1),
            "overhead_pct": round(100 * (traced_ms - untraced) / untraced, 1),
            "spans": len(written),
            "spans_by_kind": kinds,
            "span_file_bytes": size,
            "span_bytes_per_operation": round(size / max(operations, 1)),
        }
    )


if __name__ == "__main__":
    main()
