"""A cost model: 1,000 ten-page documents, durable pipeline against Step Functions Standard.

    python bench/cost_model.py [--smoke] [--ocr-fraction 0.5] [--reviewed-fraction 0.3]

Operation counts come from running real ten-page documents (one with no review, one with one
review stage) through the orchestrator on the testing runner; Lambda time is the measured
wall time of those runs. The Step Functions figure prices the same workflow as a Standard
state machine: one transition per state entered (a Task per step the pipeline runs, a Map
iteration and its Task per page batch, a Choice per decision, a task-token wait per review).
It is a model: list prices are parameters, sources named in the output.
"""

from __future__ import annotations

import argparse
import io
import json
import time
from typing import Any

import _common
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from reportlab.pdfgen import canvas

from docflow import aws
from docflow.cost import PRICES
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from orchestrator.app import handler
from tests.kit.sandbox import moto_sandbox

# The one price list, with its sources (docflow/cost.py).
ORCHESTRATOR_GB = 2.0  # the template's MemorySize for the orchestrator
RECORDER_GB = 0.5


def ten_pages(kind: str) -> bytes:
    lines = {
        "report": ["Quarterly report: findings and analysis.", "Summary of the quarter."],
        "contract": [
            "Services agreement between the parties.",
            "The parties hereby agree to the terms and conditions.",
        ],
    }[kind]
    out = io.BytesIO()
    c = canvas.Canvas(out)
    for n in range(10):
        c.drawString(72, 720, lines[n % 2])
        c.drawString(72, 700, f"Page {n + 1}")
        c.showPage()
    c.save()
    return out.getvalue()


def run_one(kind: str) -> dict[str, Any]:
    with moto_sandbox(
        LocalNames(prefix=f"cost-{kind}"), {"DOCFLOW_OCR_ENGINE": "textlayer"}
    ) as names:
        bucket = names("DocumentBucket")
        put = aws.client("s3").put_object(Bucket=bucket, Key=f"{kind}.pdf", Body=ten_pages(kind))
        doc = DocumentRef(bucket, f"{kind}.pdf", put["VersionId"], "01")
        began = time.perf_counter()
        with DurableFunctionTestRunner(handler=handler, poll_interval=0.05) as runner:
            arn = runner.run_async(input=json.dumps(doc.to_event()), execution_timeout=600)
            stages = 0
            if kind == "contract":
                cb = runner.wait_for_callback(arn, name="review-0 create callback id")
                runner.send_callback_success(cb, json.dumps({"approved": True}).encode())
                stages = 1
            result = runner.wait_for_result(arn, timeout=600)
        wall = time.perf_counter() - began
        ops = result.get_all_operations()
        batches = sum(1 for op in ops if (op.name or "").startswith("batch-"))
        records = sum(1 for op in ops if (op.name or "").startswith("record "))
        return {
            "operations": len(ops),
            "wall_s": wall,
            "batches": batches,
            "records": records,
            "stages": stages,
        }


def step_functions_transitions(run: dict[str, Any]) -> int:
    # split, classify, finalize-or-archive Tasks; one Task per status report; a Map state plus
    # an iteration start and a Task per batch; a Choice after split, after classify and after
    # each review; a Task (waitForTaskToken) per review stage; the Succeed state.
    tasks = 3 + run["records"]
    map_ = 1 + 2 * run["batches"]
    choices = 2 + run["stages"]
    return tasks + map_ + choices + run["stages"] + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument(
        "--ocr-fraction",
        type=float,
        default=0.5,
        help="share of pages with no text layer (sent to Textract)",
    )
    parser.add_argument(
        "--reviewed-fraction",
        type=float,
        default=0.3,
        help="share of documents that go through one review stage",
    )
    args = parser.parse_args()
    _common.quiet()
    plain, reviewed = run_one("report"), run_one("contract")
    docs, pages = 1000, 10
    mix = {"plain": 1 - args.reviewed_fraction, "reviewed": args.reviewed_fraction}
    runs = {"plain": plain, "reviewed": reviewed}

    def per_docs(fn: Any) -> float:
        return sum(docs * share * fn(runs[k]) for k, share in mix.items())

    operations = per_docs(lambda r: r["operations"])
    transitions = per_docs(step_functions_transitions)
    # Lambda compute is the same work either way: the orchestrator's run time (a durable
    # function is billed while it runs, not while it waits) and one recorder call per report.
    gb_s = per_docs(lambda r: r["wall_s"] * ORCHESTRATOR_GB + r["records"] * 0.05 * RECORDER_GB)
    requests = per_docs(lambda r: 2 + r["stages"] + r["records"])
    lambda_usd = (
        gb_s * PRICES["lambda_usd_per_gb_second_x86"]
        + requests / 1e6 * PRICES["lambda_usd_per_million_requests"]
    )
    ocr_usd = (
        docs * pages * args.ocr_fraction * PRICES["textract_detect_document_text_usd_per_page"]
    )
    durable = operations / 1e6 * PRICES["durable_usd_per_million_operations"] + lambda_usd
    sfn = transitions / 1e6 * PRICES["step_functions_standard_usd_per_million_transitions"] + (
        lambda_usd
    )
    _common.emit(
        {
            "model": "a cost model from measured operation counts, not a bill",
            "documents": docs,
            "pages_per_document": pages,
            "operations_per_document": {
                "plain": plain["operations"],
                "reviewed": reviewed["operations"],
            },
            "transitions_per_document": {
                "plain": step_functions_transitions(plain),
                "reviewed": step_functions_transitions(reviewed),
            },
            "orchestration_usd": {
                "durable": round(
                    operations / 1e6 * PRICES["durable_usd_per_million_operations"], 4
                ),
                "step_functions": round(
                    transitions
                    / 1e6
                    * PRICES["step_functions_standard_usd_per_million_transitions"],
                    4,
                ),
            },
            "lambda_usd": round(lambda_usd, 4),
            "page_reading_usd": {"textlayer": 0.0, "textract": round(ocr_usd, 4)},
            "durable_usd_per_1000_docs": round(durable + ocr_usd, 4),
            "step_functions_usd_per_1000_docs": round(sfn + ocr_usd, 4),
            "ratio": round((sfn + ocr_usd) / (durable + ocr_usd), 3),
            "prices": PRICES,
        }
    )


if __name__ == "__main__":
    main()
