"""Durable operations and checkpoint bytes against document size, through the real orchestrator.

    python bench/ops_budget.py --pages 2000     one JSON object
    python bench/ops_budget.py --pages 5000 --review-stages 3
    python bench/ops_budget.py                  a JSON list for 1, 10, 100, 1000 and 5000 pages,
                                                then 5000 pages through three review stages
    python bench/ops_budget.py --smoke          a JSON list for 1, 10 and 100 pages, then 1 page
                                                through three review stages

Each document is generated (text-layer pages), uploaded to moto and run on the durable testing
runner; the figures are read from the runner's recorded operations. With review stages, each
stage has the policy shape of docs/reviewers.md at a second's scale (2 of 3, three reminders,
then an escalation: five rounds) and is decided only in its last round, the most operations a
stage of that policy can take; the row adds `reviewStages` and `roundsPerStage`.
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
import time
from pathlib import Path

import _common
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from reportlab.pdfgen import canvas

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.fidelity.durable_stats import checkpoint_stats
from docflow.local.resources import LocalNames
from docflow.pipeline.review_rounds import review_rounds
from docflow.review.stage.records import StageStore, stage_pk
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit.sandbox import moto_sandbox

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


STAGE_POLICY = """
reviewers = ["a@example.com", "b@example.com", "c@example.com"]
quorum = 2
timeout_seconds = 60
remind_after_seconds = 1
max_reminders = 3
escalate_after_seconds = 4
escalate_to = ["boss@example.com"]
"""


def policy_rules(stages: int) -> str:
    names = [f"s{i}" for i in range(stages)]
    head = f"""[[document_types]]
name = "report"
keywords = ["report", "summary", "findings", "quarter", "analysis"]
min_hits = 2
stages = {json.dumps(names)}
"""
    return head + "".join(f"\n[stages.{n}]{STAGE_POLICY}" for n in names)


def decide_in_last_rounds(runner: DurableFunctionTestRunner, doc: DocumentRef, stages: int) -> None:
    """Approve each stage only once its last round waits (the callback the desk would wake)."""
    store = StageStore(load_settings().links_table)
    last = len(review_rounds(RoutedStage(Stage("policy", ("x",), 60, 0, 0, 1, 3, 4, ("x",))))) - 1
    for index in range(stages):
        deadline = time.monotonic() + 600
        while True:
            item = store.get(stage_pk(doc.run_id, index)) or {}
            if int(item.get("round", -1)) == last:
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"stage {index} never reached its last round")
            time.sleep(0.05)
        runner.send_callback_success(
            str(item["callbackId"]), json.dumps({"approved": True}).encode()
        )


def measure(pages: int, review_stages: int = 0) -> dict[str, int]:
    names = LocalNames(prefix="bench")
    env = {"DOCFLOW_OCR_ENGINE": "textlayer", "DOCFLOW_MAX_PAGES": "100000"}
    with tempfile.TemporaryDirectory() as tmp:
        if review_stages:
            rules = Path(tmp) / "rules.toml"
            rules.write_text(policy_rules(review_stages))
            env["DOCFLOW_RULES_PATH"] = str(rules)
        with moto_sandbox(names, env):
            key = f"bench/{pages}.pdf"
            put = aws.client("s3").put_object(
                Bucket=names("DocumentBucket"), Key=key, Body=generated_pdf(pages)
            )
            doc = DocumentRef(names("DocumentBucket"), key, put["VersionId"], "01")
            event = json.dumps(doc.to_event())
            with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
                if review_stages:
                    arn = runner.run_async(input=event, execution_timeout=3600)
                    decide_in_last_rounds(runner, doc, review_stages)
                    result = runner.wait_for_result(arn, timeout=3600)
                else:
                    result = runner.run(input=event, execution_timeout=3600)
            summary = json.loads(result.result)
            if summary.get("pages") != pages or summary.get("status") != "finalized":
                raise SystemExit(f"run did not finalize {pages} pages: {summary}")
            row = {"pages": pages, **checkpoint_stats(result)}
            if review_stages:
                row.update({"reviewStages": review_stages, "roundsPerStage": 5})
            return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int)
    parser.add_argument("--review-stages", type=int, default=0)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    _common.quiet()
    if args.pages:
        _common.emit(measure(args.pages, args.review_stages))
    else:
        rows = [measure(n) for n in (SMOKE_SIZES if args.smoke else FULL_SIZES)]
        rows.append(measure(1 if args.smoke else 5000, 3))
        _common.emit(rows)


if __name__ == "__main__":
    main()
