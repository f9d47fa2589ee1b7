"""A document through the orchestrator until it settles (finalized, waiting for a person, or
ended), on moto with the durable testing runner, and its read-model items as stored: what the
size and risk tests over whole sets of documents, and bench/readmodel_size.py, run."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.ids import DocumentRef
from docflow.readmodel.detail import INLINE_BYTES
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.table import doc_pk, from_ddb, to_ddb
from docflow.settings import load_settings
from orchestrator.app import handler

SETTLED = ("finalized", "pending-review", "archived", "failed", "awaiting-match")
# What an item holds besides its payloads: keys, run ids, times, index attributes.
ITEM_OVERHEAD = 1024
STEP_RESULT_BYTES = 262_144  # the durable service's limit on one step's result


@dataclass
class Settled:
    doc: DocumentRef
    items: list[dict[str, Any]]  # every item of the document's partition, as stored
    state: dict[str, Any]  # `show`'s state: what a report moved to S3 read back
    history: list[dict[str, Any]]  # `show`'s history, likewise
    step_results: list[tuple[str, int]]  # (step name, bytes of its checkpointed result)


def settle(bucket: str, key: str, data: bytes, timeout: float = 600) -> Settled:
    """`data` uploaded to `bucket` under `key` and run (in a moto sandbox, tests.kit.sandbox)."""
    answer = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=data)
    doc = DocumentRef(bucket=bucket, key=key, version_id=answer["VersionId"], sequencer="01")
    model = ReadModel(load_settings().table_name)

    def settled() -> bool:
        state = model.show(doc.document_id)["state"]
        return bool(state) and state["status"] in SETTLED

    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=json.dumps(doc.to_event()), execution_timeout=3600)
        deadline = time.monotonic() + timeout  # a bound, not a measure: nothing asserts speed
        while not settled():
            assert time.monotonic() < deadline, f"{key} did not settle"
            time.sleep(0.2)
        events = runner.get_execution_history(arn, include_execution_data=True).events
    steps = [
        (e.name or "", len(e.step_succeeded_details.result.payload or ""))
        for e in events
        if e.step_succeeded_details and e.step_succeeded_details.result
    ]
    answer = aws.client("dynamodb").query(
        TableName=load_settings().table_name,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues=to_ddb({":pk": doc_pk(doc.document_id)}),
    )
    shown = model.show(doc.document_id)
    return Settled(
        doc,
        [from_ddb(i) for i in answer["Items"]],
        dict(shown["state"] or {}),
        [dict(h) for h in shown["history"]],
        steps,
    )


def check_items(run: Settled) -> dict[str, Any]:
    """Every report's payload within the recorder's inline budget (the rest in S3), the state
    a few of them merged, the document settled and not failed; `show`'s whole state."""
    for item in run.items:
        payload = item.get("payload", {}) if item["sk"] != "STATE" else {}
        assert len(json.dumps(payload)) <= INLINE_BYTES, item["sk"]
        assert len(json.dumps(item, default=str)) <= 8 * (INLINE_BYTES + ITEM_OVERHEAD)
    # The service refuses a step result over 256 KiB (the local runner does not:
    # ../shared/PLATFORM-FACTS.md), so a document's size must not grow one past it.
    for name, size in run.step_results:
        assert size <= STEP_RESULT_BYTES, f"step {name!r}: {size} bytes checkpointed"
    state = run.state
    # Settled and not ended badly: finalized, waiting for a person, or (an invoice citing an
    # order docflow has not seen) waiting for its order (docs/matching.md).
    waiting = ("finalized", "pending-review", "awaiting-match")
    assert state["status"] in waiting, (state.get("reason"), state)
    return state
