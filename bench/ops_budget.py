"""Durable operations and checkpoint bytes against document size, through the real orchestrator.

    python bench/ops_budget.py --pages 2000     one JSON object
    python bench/ops_budget.py                  a JSON list for 1, 10, 100, 1000 and 5000 pages
    python bench/ops_budget.py --smoke          a JSON list for 1, 10 and 100 pages

Each document is generated (text-layer pages), uploaded to moto and run on the durable testing
runner; the figures are read from the runner's recorded operations.
"""

from __future__ import annotations

import argparse
import io
import json

import _common
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from reportlab.pdfgen import canvas

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.durable_stats import checkpoint_stats
from docflow.local.resources import LocalNames
from docflow.local.sandbox import moto_sandbox
from orchestrator.app import handler

FULL_SIZES = [1, 10, 100, 1000, 5000]
SMOKE_SIZES = [1, 10, 100]


def generated_pdf(pages: int) -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out)
    for n in range(pages):
        c.drawString(72, 720, f"Quarterly report, page {n + 1}: findings and analysis")
        c.drawString(72, 700, "Revenue, costs and the summary of the quarter follow.")
        c.showPage()
    c.save()
    return out.getvalue()


def measure(pages: int) -> dict[str, int]:
    names = LocalNames(prefix="bench")
    env = {"DOCFLOW_OCR_ENGINE": "textlayer", "DOCFLOW_MAX_PAGES": "100000"}
    with moto_sandbox(names, env):
        key = f"bench/{pages}.pdf"
        put = aws.client("s3").put_object(
            Bucket=names("DocumentBucket"), Key=key, Body=generated_pdf(pages)
        )
        doc = DocumentRef(names("DocumentBucket"), key, put["VersionId"], "01")
        with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
            result = runner.run(input=json.dumps(doc.to_event()), execution_timeout=3600)
        summary = json.loads(result.result)
        if summary.get("pages") != pages:
            raise SystemExit(f"run did not read {pages} pages: {summary}")
        return {"pages": pages, **checkpoint_stats(result)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    _common.quiet()
    if args.pages:
        _common.emit(measure(args.pages))
    else:
        _common.emit([measure(n) for n in (SMOKE_SIZES if args.smoke else FULL_SIZES)])


if __name__ == "__main__":
    main()
