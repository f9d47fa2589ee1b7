"""`bench/pile.py --burst`: documents on-demand at once against a tokens-per-minute budget.

Every document is uploaded at the same moment and runs the real orchestrator with the
`bedrock` enrich engine against the Converse emulator, admitted by the shared budget
(docflow.enrich.budget, DynamoDB on moto). So that 400 documents finish in minutes, the
budget's minute is compressed to `WINDOW_S` seconds (the module's window length, patched in
this process; the budget per window stays 20,000 tokens) and the testing runner runs its
durable waits on the real clock (skip-time off): a document the budget defers really waits.

Measured at the model (the emulator timestamps each call it answers with its tokens), per
compressed minute: the peak must stay within the budget. Also: the budget's own ledger per
window (reservations settled to actual use), the durable waits the executions took, failures.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from typing import Any

from aws_durable_execution_sdk_python.serdes import deserialize
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.enrich import budget as budget_module
from docflow.ids import DocumentRef
from docflow.local.emulators.bedrock import BedrockEmulator
from docflow.local.resources import LocalNames
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.kit.sandbox import moto_sandbox

BUDGET = 20_000
WINDOW_S = 15  # one compressed "minute"
SPREAD_S = 10  # the budget spreads deferred calls over the window's first seconds (40 of 60)
_NUMBER = re.compile(r"QUARTERLY REPORT (\d+)")


class MeteredConverse(BedrockEmulator):
    """The Converse emulator, noting when each answered call arrived, for which document (its
    number is in the prompt) and what it spent."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[float, int, int]] = []

    def answer(self, path: str, body: bytes) -> tuple[int, str, dict[str, Any]]:
        status, error, answer = super().answer(path, body)
        if status == 200:
            usage = answer["usage"]
            found = _NUMBER.search(body.decode("utf-8", "replace"))
            number = int(found[1]) if found else -1
            with self._lock:
                spent = usage["inputTokens"] + usage["outputTokens"]
                self.calls.append((time.time(), number, spent))
        return status, error, answer


def document(i: int) -> bytes:
    return pdfs.text_pdf(
        f"QUARTERLY REPORT {i}",
        f"Summary of the findings and analysis for the quarter, prepared for Client {i} LLC "
        "on 2026-01-15.\nRevenue grew in the north region; the appendix lists the figures.",
    )


def run_burst(documents: int) -> dict[str, Any]:
    from orchestrator.app import handler

    budget_module.WINDOW_S, budget_module.SPREAD_S = WINDOW_S, SPREAD_S
    converse = MeteredConverse().start()
    env = {
        "DOCFLOW_ENRICH_ENGINE": "bedrock",
        "DOCFLOW_ENRICH_TOKENS_PER_MINUTE": str(BUDGET),
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": converse.url,
        "DOCFLOW_PAGE_CONCURRENCY": "1",
    }
    began = time.monotonic()
    with (
        moto_sandbox(LocalNames(prefix="burst"), env) as names,
        DurableFunctionTestRunner(handler, poll_interval=0.2, skip_time=False) as runner,
    ):
        bucket = names("DocumentBucket")
        docs = []
        for i in range(documents):
            key = f"incoming/report-{i:05d}.pdf"
            put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=document(i))
            docs.append(DocumentRef(bucket, key, put["VersionId"], sequencer=f"{i + 1:08X}"))
        arns = [
            runner.run_async(input=json.dumps(d.to_event()), execution_timeout=3600) for d in docs
        ]
        statuses: Counter[str] = Counter()
        waits = 0
        windows: dict[int, int] = {}  # document number -> the window its call was admitted to
        for number, arn in enumerate(arns):
            done = runner.wait_for_result(arn, timeout=1800)
            statuses[json.loads(done.result or "{}").get("status", "lost")] += 1
            ops = done.get_all_operations()
            waits += sum(1 for op in ops if (op.name or "").startswith("enrich budget wait"))
            for op in ops:
                if (op.name or "").startswith("enrich admit") and op.result:
                    admitted = deserialize(None, op.result, "op", arn)
                    if admitted.get("admitted"):
                        windows[number] = int(admitted["window"])
        ledger = budget_ledger(load_settings())
    wall = time.monotonic() - began
    converse.stop()
    at_model: Counter[int] = Counter()
    late = []
    for at, number, tokens in converse.calls:
        at_model[int(at // WINDOW_S)] += tokens
        window = windows.get(number)
        if window is not None and at >= window + WINDOW_S:
            late.append(at - window - WINDOW_S)
    return {
        "documents": documents,
        "failed": statuses.get("failed", 0),
        "statuses": dict(statuses),
        "budget_tokens_per_minute": BUDGET,
        "peak_tokens_per_minute": max(at_model.values(), default=0),
        "peak_ledger_tokens_per_minute": max(ledger.values(), default=0),
        "minutes_used": len(at_model),
        "durable_waits": waits,
        # Calls that reached the model after the window the budget admitted them to had ended
        # (a durable wait that resumed late): the budget cannot count those where they land.
        "calls_after_their_window": len(late),
        "latest_by_s": round(max(late, default=0.0), 1),
        "model_calls": len(converse.calls),
        "throttled": converse.stats.throttled,
        "minute_is_seconds": WINDOW_S,
        "wall_s": round(wall, 1),
    }


def budget_ledger(settings: Any) -> dict[int, int]:
    """Window start -> tokens the budget counted in it (its items in the lease table)."""
    table = settings.reader_lease_table
    ddb = aws.client("dynamodb")
    found: dict[int, int] = {}
    for page in ddb.get_paginator("scan").paginate(TableName=table):
        for item in page.get("Items", []):
            pk = item["pk"]["S"]
            if pk.startswith("enrich-tokens#") and "used" in item:
                found[int(pk.rsplit("#", 1)[1])] = int(item["used"]["N"])
    return found
