"""The read model's payloads for the sample run, byte for byte (issue 58): every shipped sample
through the orchestrator on the durable testing runner (moto, the shipped rules), each review it
waits at approved as `make run`'s walkthrough does (the smudged invoice's total typed in), and
every report the read model took compared with the ones recorded in
`tests/data/golden/sample_payloads.json`.

What varies from run to run is replaced before the comparison: the S3 version ids and what is
made of them (run ids, keys, link ids), times, and the run's measured cost. Everything else
(each key, its order, each value) must be what it was when the file was recorded: a change to
how the document's record is built or written that changes a payload fails here.

`RECORD_GOLDEN=1 pytest tests/pipeline/test_sample_payloads.py` writes the file anew:
only when a payload is meant to change, with the reason in the commit.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.table import doc_pk, from_ddb, to_ddb
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit.sandbox import moto_sandbox
from tests.support.aws import TEST_ENV, Stack

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden" / "sample_payloads.json"
# The walkthrough's correction (README): the smudged invoice's unreadable total.
CORRECTIONS = {"invoice-smudged.pdf": {"total_amount": "1100.00"}}
# Keys whose values are times or measured, never the same twice.
VOLATILE = frozenset(
    {"at", "updatedAt", "firstSeenAt", "correctedAt", "decidedAt", "claimedAt", "writtenAt"}
    | {"sentAt", "deadline", "expiresAt", "requestedAt", "cost", "seq", "eventId"}
    | {"reviewDeadline", "linkId"}
)


def _samples() -> dict[str, bytes]:
    sys.path.insert(0, str(ROOT / "samples"))
    try:
        from make_samples import write_samples
    finally:
        sys.path.remove(str(ROOT / "samples"))
    with tempfile.TemporaryDirectory() as folder:
        return {
            p.name: p.read_bytes()
            for p in sorted(write_samples(Path(folder)))
            if p.suffix in (".pdf", ".xml", ".txt")
        }


def _decision(name: str) -> bytes:
    decision: dict[str, Any] = {"approved": True, "reviewer": "reviewer@example.com"}
    if name in CORRECTIONS:
        decision["corrections"] = CORRECTIONS[name]
    return json.dumps(decision).encode()


def _run(bucket: str, name: str, data: bytes) -> DocumentRef:
    """The sample through the handler, every review approved; its document."""
    answer = aws.client("s3").put_object(Bucket=bucket, Key=f"incoming/{name}", Body=data)
    doc = DocumentRef(bucket, f"incoming/{name}", answer["VersionId"], sequencer="01")
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=json.dumps(doc.to_event()), execution_timeout=600)
        for index in range(6):
            if _settle(doc, index) != "pending-review":
                break
            callback = runner.wait_for_callback(
                arn, name=f"review-{index} create callback id", timeout=120
            )
            runner.send_callback_success(callback, _decision(name))
        runner.wait_for_result(arn, timeout=120)
    return doc


def _settle(doc: DocumentRef, index: int) -> str:
    """The document's status once it ended or waits at its `index`-th review."""
    model = ReadModel(load_settings().table_name)
    deadline = time.monotonic() + 300  # a bound, not a measure: nothing asserts speed
    while time.monotonic() < deadline:
        state = model.show(doc.document_id)["state"] or {}
        status = str(state.get("status") or "")
        waiting = status == "pending-review" and len(state.get("stages") or []) > index
        if status in ("finalized", "failed", "archived") or waiting:
            return status
        time.sleep(0.1)
    raise AssertionError(f"{doc.key} did not settle")


def _payloads(doc: DocumentRef) -> list[dict[str, Any]]:
    """Every history item's report, in the order the read model sorts them."""
    answer = aws.client("dynamodb").query(
        TableName=load_settings().table_name,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues=to_ddb({":pk": doc_pk(doc.document_id)}),
        ConsistentRead=True,
    )
    items = [from_ddb(i) for i in answer["Items"]]
    history = sorted((i for i in items if i["sk"] != "STATE"), key=lambda i: str(i["sk"]))
    return [
        {"stage": i.get("stage"), "status": i.get("status"), "payload": i.get("payload")}
        for i in history
    ]


def _steady(value: Any, doc: DocumentRef) -> Any:
    """`value` with what varies between runs put in words: version, run and link ids, times."""
    if isinstance(value, dict):
        return {k: "<varies>" if k in VOLATILE else _steady(v, doc) for k, v in value.items()}
    if isinstance(value, list):
        return [_steady(v, doc) for v in value]
    if isinstance(value, str):
        text = value.replace(doc.version, "<version>").replace(doc.run_id, "<run>")
        text = re.sub(r"\bv-[0-9a-f]{16}\b", "v-<version>", text)
        return re.sub(r"\b[0-9a-f]{24,64}\b", "<digest>", text)
    if isinstance(value, float):
        return round(value, 6)
    return value


@pytest.fixture(scope="module")
def recorded() -> Iterator[dict[str, Any]]:
    env = {**TEST_ENV, "DOCFLOW_RULES_PATH": str(DEFAULT_RULES), "DOCFLOW_STAGE_TIMEOUT_S": "600"}
    with moto_sandbox(LocalNames(prefix="golden"), env) as names:
        bucket = Stack(names).bucket
        out = {}
        for name, data in _samples().items():
            doc = _run(bucket, name, data)
            out[name] = _steady(_payloads(doc), doc)
        yield out


def test_the_sample_runs_payloads_are_the_recorded_ones(recorded: dict[str, Any]) -> None:
    text = json.dumps(recorded, indent=1, ensure_ascii=False) + "\n"
    if os.environ.get("RECORD_GOLDEN") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert sorted(recorded) == sorted(golden)
    for name in sorted(golden):
        assert json.dumps(recorded[name], ensure_ascii=False) == json.dumps(
            golden[name], ensure_ascii=False
        ), name
