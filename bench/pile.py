"""A pile through the path for piles, and a burst through the on-demand budget.

    python bench/pile.py            1,000 generated reports under the pile prefix
    python bench/pile.py --smoke    60 (jobs of 20: the same three jobs, one expired)
    python bench/pile.py --burst    400 documents on-demand against 20,000 tokens per minute

Pile: the real orchestrator (one execution per document) and the real batcher run on the
durable testing runner in this process, on moto, with the Bedrock batch-inference emulator
over HTTP: 2% of records fail in the emulator and one job expires, so both fall back to
on-demand. Jobs take at most a quarter of the pile (so there are several) and at least the
service's default minimum of 100 records (20 for --smoke's smaller pile). Prints
{"documents", "settled", "lost", "failed", "batch_jobs", "records_per_job_max",
"on_demand_fallbacks", "ops_per_document_max", "wall_s", "usd_per_1000_docs_on_demand",
"usd_per_1000_docs_batch", "batch_to_on_demand", "usd_per_1000_docs_this_run",
"documents_in_two_jobs", "job_outcomes"}. The dollar figures are the model share only, priced
from the tokens the emulators counted (characters / 4): on-demand is the fallbacks' Converse
calls (the forced tool's schema counts as input), batch the records a job answered (the schema
is in the prompt) at half price; "this run" mixes both as they happened.

Burst: see `_pile_burst.py` beside this file. Timings are from whatever machine runs it.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from typing import Any

import _common

from docflow import aws
from docflow.cost import PRICES
from docflow.ids import DocumentRef
from docflow.local.emulators.bedrock import BedrockEmulator
from docflow.local.emulators.bedrock_batch import WALK, BedrockBatchEmulator
from docflow.local.resources import LocalNames
from docflow.local.tools.pile_run import pile_env, pile_running
from docflow.piles.pool import Pool
from docflow.settings import load_settings
from docflow.storage import records_key
from tests.kit import pdfgen as pdfs
from tests.kit.sandbox import moto_sandbox

TERMINAL = {"finalized", "archived", "failed"}
BATCH_DISCOUNT = 0.5  # batch inference is priced at half of on-demand for models that offer it


def report(i: int) -> bytes:
    """A generated report: its type has no review stage, so every run ends without a person
    (a contract would wait for legal review); the enrichment is the same either way."""
    return pdfs.text_pdf(
        f"QUARTERLY REPORT {i}",
        f"Summary of the findings and analysis for the quarter, prepared for Client {i} LLC "
        "on 2026-01-15.\nRevenue grew in the north region; the appendix lists the figures.",
    )


def model_usd(tokens_in: int, tokens_out: int) -> float:
    return (
        tokens_in * PRICES["bedrock_usd_per_million_input_tokens"]
        + tokens_out * PRICES["bedrock_usd_per_million_output_tokens"]
    ) / 1e6


def run_pile(documents: int, smoke: bool) -> dict[str, Any]:
    from batcher.app import handler as batcher
    from orchestrator.app import handler as orchestrator

    minimum = 20 if smoke else 100
    per_job = max(minimum, documents // 4 + 1)
    converse = BedrockEmulator().start()  # the on-demand path the fallbacks take
    env = pile_env(
        DOCFLOW_PILE_MIN_RECORDS=str(minimum),
        DOCFLOW_PILE_MAX_RECORDS=str(per_job),
        DOCFLOW_PAGE_CONCURRENCY="1",
        DOCFLOW_ENRICH_ENGINE="bedrock",
        # The budget is the burst's subject; here fallbacks call at once (skip-time runner).
        DOCFLOW_ENRICH_TOKENS_PER_MINUTE="0",
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME=converse.url,
    )
    emulator = BedrockBatchEmulator(
        delays=dict.fromkeys(WALK, 0.2), fail_rate=0.02, expire_jobs={2}, min_records=minimum
    )
    began = time.monotonic()
    with (
        moto_sandbox(LocalNames(prefix="bench"), env) as names,
        pile_running(names, orchestrator, batcher, emulator) as pile,
    ):
        bucket = names("DocumentBucket")
        started = []
        for i in range(documents):
            key = f"{load_settings().pile_prefix}report-{i:05d}.pdf"
            put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=report(i))
            doc = DocumentRef(bucket, key, put["VersionId"], sequencer=f"{i + 1:08X}")
            event = json.dumps(doc.to_event())
            started.append(pile.documents.run_async(input=event, execution_timeout=3600))
        pile.wait_registered(documents, timeout_s=120 if smoke else 900)
        ran = pile.run_batcher("bench-pile", timeout_s=1800)
        results, ops = [], []
        for arn in started:
            try:
                done = pile.documents.wait_for_result(arn, timeout=600)
            except TimeoutError:
                results.append({"status": "lost"})
                continue
            results.append(json.loads(done.result or "{}"))
            ops.append(len(done.get_all_operations()))
        jobs = ran["result"].get("jobs", [])
        owners: Counter[str] = Counter()
        for job in jobs:
            body = (
                aws.client("s3")
                .get_object(Bucket=load_settings().artifact_bucket, Key=records_key(job["job"]))[
                    "Body"
                ]
                .read()
            )
            owners.update(r["runId"] for r in json.loads(body))
        pool_left = sum(Pool().count(s) for s in ("pending", "claimed", "sent"))
    wall = time.monotonic() - began

    converse.stop()
    statuses = Counter(r.get("status") for r in results)
    modes = Counter((r.get("enrichment") or {}).get("mode") for r in results)
    # The model share per 1,000 documents, from the tokens each emulator counted: on-demand
    # (Converse with the forced tool; the fallbacks' calls) at list price, batch (prompted
    # JSON; the records a job answered) at half price, and what this run spent, both mixed.
    ask, batch = converse.stats, emulator.stats
    on_demand_usd = 1000 * model_usd(ask.input_tokens, ask.output_tokens) / max(1, ask.answered)
    batch_usd = (1000 * BATCH_DISCOUNT * model_usd(batch.input_tokens, batch.output_tokens)) / max(
        1, batch.answered
    )
    spent = model_usd(ask.input_tokens, ask.output_tokens) + BATCH_DISCOUNT * model_usd(
        batch.input_tokens, batch.output_tokens
    )
    return {
        "documents": documents,
        "settled": sum(n for s, n in statuses.items() if s in TERMINAL),
        "lost": statuses.get("lost", 0) + pool_left,
        "failed": statuses.get("failed", 0),
        "batch_jobs": len(jobs),
        "records_per_job_max": max((j["records"] for j in jobs), default=0),
        "on_demand_fallbacks": modes.get("on-demand", 0),
        "ops_per_document_max": max(ops, default=0),
        "wall_s": round(wall, 1),
        "usd_per_1000_docs_on_demand": round(on_demand_usd, 4),
        "usd_per_1000_docs_batch": round(batch_usd, 4),
        "batch_to_on_demand": round(batch_usd / on_demand_usd, 3) if on_demand_usd else None,
        "usd_per_1000_docs_this_run": round(1000 * spent / max(1, documents), 4),
        "documents_in_two_jobs": sum(1 for n in owners.values() if n > 1),
        "job_outcomes": [{"status": j["status"], **j["outcomes"]} for j in jobs],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--burst", action="store_true")
    args = parser.parse_args()
    _common.quiet()
    if args.burst:
        from _pile_burst import run_burst

        _common.emit(run_burst(documents=100 if args.smoke else 400))
        return
    _common.emit(run_pile(60 if args.smoke else 1000, args.smoke))


if __name__ == "__main__":
    main()
