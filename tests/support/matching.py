"""What the matching tests share: a rules file with matching on (`tests.kit.orders.
matching_rules_text`), and the orchestrator on the durable testing runner with the runtime's
callbacks delivered to it, so that an order's run wakes the invoices waiting for it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.ids import DocumentRef
from docflow.matching.keys import OrderKey, key_for
from docflow.matching.records import OrderFile
from docflow.matching.store import OrderStore
from docflow.readmodel.queries import ReadModel
from docflow.runtime import build_runtime, use_runtime
from docflow.settings import load_settings
from docflow.storage import DocumentStore, match_key, result_key
from orchestrator.app import handler
from tests.kit.orders import matching_rules_text
from tests.support.aws import Stack, result_json
from tests.support.review_desk import RunnerCallbacks
from tests.support.waiting import wait_until

# Long enough for every review path of the shipped rules plus the wait (rules/model.py).
EXECUTION_TIMEOUT_S = str(40 * 24 * 3600)


def use_matching_rules(folder: Path, timeout_s: int = 120, three_way: bool = False) -> Path:
    """Write the rules and point this process's settings at them (the caller's monkeypatch
    or environment restores the variables)."""
    path = folder / f"matching-{timeout_s}-{three_way}.toml"
    path.write_text(matching_rules_text(timeout_s, three_way), encoding="utf-8")
    os.environ["DOCFLOW_RULES_PATH"] = str(path)
    os.environ["DOCFLOW_EXECUTION_TIMEOUT_S"] = EXECUTION_TIMEOUT_S
    os.environ.pop("DOCFLOW_STAGE_TIMEOUT_S", None)
    load_settings.cache_clear()
    use_runtime(None)
    return path


class Runs:
    """Documents started on one testing runner; the runtime's callbacks go to it."""

    def __init__(self, stack: Stack, runner: DurableFunctionTestRunner) -> None:
        self.stack, self.runner = stack, runner
        self.callbacks = RunnerCallbacks(runner)
        self._ended: dict[str, Any] = {}  # the runner answers an execution's end once
        self.docs: dict[str, DocumentRef] = {}  # the newest upload under each key

    def start(self, key: str, data: bytes, timeout: int = 600) -> tuple[DocumentRef, str]:
        doc = self.stack.upload(key, data)
        self.docs[key] = doc
        return doc, self.runner.run_async(input=self.stack.event(doc), execution_timeout=timeout)

    def ended(self, arn: str, timeout: int = 120) -> Any:
        """The runner's result of the execution (its operations, its output)."""
        if arn not in self._ended:
            self._ended[arn] = self.runner.wait_for_result(arn, timeout=timeout)
        return self._ended[arn]

    def result(self, arn: str, timeout: int = 120) -> dict[str, Any]:
        return result_json(self.ended(arn, timeout))

    def operations(self, arn: str) -> list[str]:
        """The names of the execution's top-level operations, in the order they ran."""
        return [op.name or "" for op in self.ended(arn).operations]

    def finish(self, key: str, data: bytes) -> dict[str, Any]:
        """Run a document to its end (one that waits for a person would not end)."""
        _doc, arn = self.start(key, data)
        return self.result(arn)

    def status(self, doc: DocumentRef) -> str:
        state = ReadModel(load_settings().table_name).show(doc.document_id)["state"] or {}
        return str(state.get("status", ""))

    def state(self, doc: DocumentRef) -> dict[str, Any]:
        return dict(ReadModel(load_settings().table_name).show(doc.document_id)["state"] or {})

    def doc_of(self, key: str) -> DocumentRef:
        return self.docs[key]

    def match_detail(self, doc: DocumentRef) -> dict[str, Any]:
        """The match step's match.json (what the match stage's page shows)."""
        return dict(DocumentStore(load_settings().artifact_bucket).get_json(match_key(doc)))

    def final_record(self, doc: DocumentRef) -> dict[str, Any]:
        return dict(DocumentStore(load_settings().artifact_bucket).get_json(result_key(doc)))

    def finalized_event(self, doc: DocumentRef) -> dict[str, Any]:
        """The `finalized` domain event's detail, from the template's example rule's queue."""
        sqs = aws.client("sqs")
        url = sqs.get_queue_url(QueueName=self.stack.names("DomainEventsQueue"))["QueueUrl"]
        found: dict[str, Any] = {}
        while got := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
            for message in got:
                event = json.loads(message["Body"])
                detail = event.get("detail") or {}
                if (
                    event.get("detail-type") == "finalized"
                    and detail.get("documentId") == doc.document_id
                ):
                    found = detail
        return found

    def history(self, doc: DocumentRef) -> list[dict[str, Any]]:
        return [
            dict(h) for h in ReadModel(load_settings().table_name).show(doc.document_id)["history"]
        ]

    def wait_status(self, doc: DocumentRef, *statuses: str, timeout: float = 120) -> str:
        wait_until(lambda: self.status(doc) in statuses, timeout=timeout, what=str(statuses))
        return self.status(doc)

    def decide(self, arn: str, index: int, decision: dict[str, Any]) -> None:
        callback = self.runner.wait_for_callback(
            arn, name=f"review-{index} create callback id", timeout=120
        )
        self.runner.send_callback_success(callback, json.dumps(decision).encode())


@contextmanager
def matching_runs(stack: Stack) -> Iterator[Runs]:
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        runs = Runs(stack, runner)
        use_runtime(build_runtime().with_(callbacks=runs.callbacks))
        try:
            yield runs
        finally:
            use_runtime(None)


def order_file(supplier: str, number: str) -> OrderFile:
    key = key_for(supplier, number)
    assert key is not None
    return OrderStore(load_settings().order_table).read(key)


def key_of(supplier: str, number: str) -> OrderKey:
    key = key_for(supplier, number)
    assert key is not None
    return key
