"""A burst of documents enriched on-demand against a tokens-per-minute budget.

    python bench/enrich_burst.py                 400 documents, 20,000 tokens per minute
    python bench/enrich_burst.py --smoke         40 documents, 4,000 tokens per minute
    python bench/enrich_burst.py --documents N --tokens-per-minute T

Prints one JSON object: {"documents", "finalized", "failed", "incomplete", "calls",
"peak_tokens_per_minute", "tokens_per_minute", "durable_waits", "minutes",
"ops_per_document_max", "wall_s"}.

Each document (a one-page invoice) runs the real orchestrator on the durable testing runner,
with the `bedrock` enrich engine against the local Converse emulator and the real
`TokenBudget` on moto. Time is the runner's skipping clock: a durable wait jumps it forward
instead of sleeping, and the budget reads the same clock, so an hour of minute windows passes
in seconds. `peak_tokens_per_minute` is the most tokens any minute window held after every
call was settled with what it really spent (the budget's own items, read back at the end);
`durable_waits` counts the executions' `enrich budget wait` operations; a document whose
enrichment stayed incomplete would wait on review and time out (counted as failed).

`run_burst(documents, tokens_per_minute)` is the function `bench/pile.py`'s burst mode calls.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import date, timedelta
from typing import Any

import _common
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.enrich.budget import Admission, TokenBudget
from docflow.ids import DocumentRef
from docflow.local.emulators.bedrock import BedrockEmulator
from docflow.local.resources import LocalNames
from docflow.runtime import build_runtime, use_runtime
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen
from tests.kit.sandbox import moto_sandbox

MODEL = "bench.enrich-model-v1"


class WindowsSeen(TokenBudget):
    """The production budget, remembering which minute windows it reserved in."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.windows: set[int] = set()

    def admit(self, tokens: int) -> Admission:
        admission = super().admit(tokens)
        if admission.admitted:
            self.windows.add(admission.window)
        return admission


def run_burst(
    documents: int = 400, tokens_per_minute: int = 20_000, concurrency: int = 20
) -> dict[str, Any]:
    started = time.monotonic()
    env = {
        "DOCFLOW_OCR_ENGINE": "textlayer",
        "DOCFLOW_ENRICH_ENGINE": "bedrock",
        "DOCFLOW_ENRICH_MODEL_ID": MODEL,
        "DOCFLOW_ENRICH_TOKENS_PER_MINUTE": str(tokens_per_minute),
        "DOCFLOW_STAGE_TIMEOUT_S": "2",  # an incomplete enrichment's review times out
        "DOCFLOW_THROTTLE_BASE_DELAY_S": "0.01",
        "DOCFLOW_THROTTLE_MAX_DELAY_S": "0.1",
    }
    emulator = BedrockEmulator().start()
    names = LocalNames(prefix="burst")
    try:
        with moto_sandbox(names, env):
            # The sandbox clears endpoint variables on entry; the emulator's goes in after.
            os.environ["AWS_ENDPOINT_URL_BEDROCK_RUNTIME"] = emulator.url
            aws.reset_clients()
            load_settings.cache_clear()
            with DurableFunctionTestRunner(handler=handler, poll_interval=0.05) as runner:
                # The runner's skipping clock (a private attribute: the only handle on it).
                clock = runner._clock
                budget = WindowsSeen(
                    load_settings().reader_lease_table,
                    MODEL,
                    tokens_per_minute,
                    clock=lambda: clock.now().timestamp(),
                )
                use_runtime(build_runtime().with_(token_budget=budget))
                results = _run_all(runner, names, documents, concurrency)
                used = {w: budget.used(w) for w in sorted(budget.windows)}
    finally:
        emulator.stop()
        os.environ.pop("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", None)
        use_runtime(None)
        aws.reset_clients()
    outcomes = [json.loads(r.result) if r.result else {} for r in results]
    waits = sum(
        1
        for r in results
        for op in r.operations
        if op.name and op.name.startswith("enrich budget wait")
    )
    return {
        "documents": documents,
        "finalized": sum(1 for o in outcomes if o.get("status") == "finalized"),
        "failed": sum(1 for o in outcomes if o.get("status") != "finalized"),
        "incomplete": sum(
            1 for o in outcomes if (o.get("enrichment") or {}).get("status") != "complete"
        ),
        "calls": emulator.stats.answered,
        "peak_tokens_per_minute": max(used.values(), default=0),
        "tokens_per_minute": tokens_per_minute,
        "durable_waits": waits,
        "minutes": len(used),
        "ops_per_document_max": max((len(r.operations) for r in results), default=0),
        "wall_s": round(time.monotonic() - started, 1),
    }


def _run_all(
    runner: DurableFunctionTestRunner, names: LocalNames, documents: int, concurrency: int
) -> list[Any]:
    bucket = names("DocumentBucket")
    results: list[Any] = []
    for first in range(0, documents, concurrency):
        arns = []
        for n in range(first, min(documents, first + concurrency)):
            # Each its own bill: another number and a date more than a week from any other's,
            # or the duplicate check (the same supplier and total within a week: a possible
            # duplicate) holds all but the first at review.
            issued = date(2026, 1, 1) + timedelta(days=8 * n)
            text = (
                pdfgen.INVOICE_WITH_FIELDS.replace("INV-20931", f"INV-{n:05d}")
                .replace("2026-03-04", issued.isoformat())
                .replace("2026-04-03", (issued + timedelta(days=30)).isoformat())
            )
            key = f"burst/{n:05d}.pdf"
            put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=pdfgen.text_pdf(text))
            doc = DocumentRef(bucket, key, put["VersionId"], f"{n:08X}")
            arns.append(runner.run_async(input=json.dumps(doc.to_event()), execution_timeout=600))
        results.extend(runner.wait_for_result(arn, timeout=600) for arn in arns)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int)
    parser.add_argument("--tokens-per-minute", type=int)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    _common.quiet()
    documents = args.documents or (40 if args.smoke else 400)
    budget = args.tokens_per_minute or (4_000 if args.smoke else 20_000)
    _common.emit(run_burst(documents, budget))


if __name__ == "__main__":
    main()
