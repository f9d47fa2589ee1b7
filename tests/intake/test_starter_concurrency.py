"""The starter run side by side, as the local function host runs invocations (threads of one
process): each invocation starts exactly its own batch, and reports failures from it only."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from docflow.ids import DocumentRef
from docflow.local.tools.uploads import object_created_event
from starter import app

BATCHES, PER_BATCH = 8, 5


class RecordingStarter:
    """Stands in for the durable runner (named as such): records each start it is asked for."""

    def __init__(self) -> None:
        self.keys: Counter[str] = Counter()
        self._lock = threading.Lock()

    def start(self, doc: DocumentRef) -> bool:
        time.sleep(0.001)  # gives the other invocations a turn mid-batch, as a real start does
        with self._lock:
            self.keys[doc.key] += 1
        return True


@pytest.fixture
def recording() -> Iterator[RecordingStarter]:
    starter = RecordingStarter()
    app.use_starter(starter)
    yield starter
    app.use_starter(None)


def _batch(n: int) -> dict[str, Any]:
    records = []
    for i in range(PER_BATCH):
        doc = DocumentRef("bucket", f"in/{n}-{i}.pdf", "v1", content_tag=f"tag{n}{i}")
        body = json.dumps(object_created_event(doc))
        if i == PER_BATCH - 1:
            body = "{not json"  # one bad record per batch, reported by its own invocation
        records.append(
            {
                "messageId": f"{n}-{i}",
                "receiptHandle": f"r{n}-{i}",
                "body": body,
                "attributes": {},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:docflow-intake",
                "awsRegion": "us-east-1",
            }
        )
    return {"Records": records}


def test_invocations_side_by_side_each_start_their_own_batch(recording: RecordingStarter) -> None:
    answers: dict[int, dict[str, Any]] = {}
    together = threading.Barrier(BATCHES)

    def invoke(n: int) -> None:
        event = _batch(n)
        together.wait()
        answers[n] = app.handler(event, None)

    threads = [threading.Thread(target=invoke, args=(n,)) for n in range(BATCHES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    started = {f"in/{n}-{i}.pdf" for n in range(BATCHES) for i in range(PER_BATCH - 1)}
    assert set(recording.keys) == started
    assert all(count == 1 for count in recording.keys.values())
    for n, answer in answers.items():
        failed = [f["itemIdentifier"] for f in answer["batchItemFailures"]]
        assert failed == [f"{n}-{PER_BATCH - 1}"]
