"""A pile through the pipeline in one process: the tests and the pile benchmark share it.

moto (in-process) plays S3, DynamoDB, EventBridge and SQS; the Bedrock batch emulator plays
batch inference on loopback; two durable testing runners play Lambda's durable executions,
one hosting the orchestrator (one execution per document) and one the batcher. The batcher
answers documents through `RunnerCallbacks` on the orchestrator's runner, and the job's
state-change events reach the batch jobs function through the template's rule, a queue, and
`EventPump` (the rule's Lambda target, played).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, TypedDict

from aws_durable_execution_sdk_python.lambda_service import ErrorObject
from aws_durable_execution_sdk_python_testing.exceptions import AwsApiException
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.local.fidelity.callback_fidelity import close_callbacks_of_ended_executions
from docflow.local.resources import LocalNames
from docflow.local.tools.queued import BusEvent, deliver_queued
from docflow.piles import outcomes
from docflow.piles.pool import PENDING, Pool
from docflow.piles.shapes import BatcherResult, StateChange
from docflow.review.stage.callbacks import CallbackGone
from docflow.settings import load_settings

ROLE_ARN = "arn:aws:iam::123456789012:role/docflow-batch-inference"


@dataclass
class RunnerCallbacks:
    """SendDurableExecutionCallback* delivered to a testing runner, as the service answers:
    a callback that is over (completed, timed out, its execution ended) is `CallbackGone`."""

    runner: DurableFunctionTestRunner
    sent: list[str] = field(default_factory=list)
    gone: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        close_callbacks_of_ended_executions(self.runner._executor)

    def success(self, callback_id: str, result: bytes) -> None:
        try:
            self.runner.send_callback_success(callback_id, result)
        except AwsApiException as exc:
            with self.lock:
                self.gone += 1
            raise CallbackGone(type(exc).__name__) from exc
        with self.lock:
            self.sent.append(callback_id)

    def failure(self, callback_id: str, error_type: str, message: str) -> None:
        error = ErrorObject(message=message, type=error_type, data=error_type, stack_trace=None)
        try:
            self.runner.send_callback_failure(callback_id, error)
        except AwsApiException:
            return

    def heartbeat(self, callback_id: str) -> None:
        try:
            self.runner.send_callback_heartbeat(callback_id)
        except AwsApiException as exc:
            raise CallbackGone(type(exc).__name__) from exc


class EventPump:
    """The rule's Lambda target: each queued state-change event to the batch jobs function
    (`duplicate`: every event delivered twice, as EventBridge may)."""

    def __init__(self, queue: str, duplicate: bool = False, every_s: float = 0.2) -> None:
        self.queue, self.duplicate, self.every_s = queue, duplicate, every_s
        self.answers: list[StateChange] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> EventPump:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _deliver(self, event: BusEvent) -> None:
        from batcher.job_events import handler

        for _ in range(2 if self.duplicate else 1):
            self.answers.append(handler(event, None))

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                deliver_queued(self.queue, self._deliver)
            except Exception as exc:  # keep delivering; a test sees what was not answered
                print(f"event pump: {exc!r}", flush=True)


class BatcherRun(TypedDict):
    """A batcher's execution: its status as the runner says it, and its result."""

    status: str
    result: BatcherResult


@dataclass
class Pile:
    names: LocalNames
    emulator: Any  # the batch emulator the caller started (tools import no emulator)
    documents: DurableFunctionTestRunner
    batcher: DurableFunctionTestRunner
    to_documents: RunnerCallbacks
    to_batcher: RunnerCallbacks
    pump: EventPump

    def wait_registered(self, n: int, timeout_s: float = 300) -> None:
        """Until `n` documents wait in the pool (their runs reached the enrich batch wait)."""
        deadline = time.monotonic() + timeout_s
        while Pool().count(PENDING) < n:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{Pool().count(PENDING)} of {n} documents registered")
            time.sleep(0.2)

    def run_batcher(self, name: str, timeout_s: int = 600) -> BatcherRun:
        result = self.batcher.run(input=json.dumps({"name": name}), execution_timeout=timeout_s)
        return {"status": str(result.status), "result": json.loads(result.result or "{}")}


def pile_env(**overrides: str) -> dict[str, str]:
    """The settings a pile runs under here: the emulator's role, seconds instead of hours."""
    return {
        "DOCFLOW_PILE_ROLE_ARN": ROLE_ARN,
        "DOCFLOW_PILE_POLL_SECONDS": "30",
        "DOCFLOW_PILE_POLL_ROUNDS": "10",
        "DOCFLOW_PILE_MAX_WAIT_SECONDS": "2",
        **overrides,
    }


@contextmanager
def pile_running(
    names: LocalNames,
    orchestrator: Any,
    batcher: Any,
    emulator: Any,
    duplicate_events: bool = False,
) -> Iterator[Pile]:
    """Inside a moto sandbox whose env came from `pile_env`: the emulator, the two runners,
    the callbacks between them, and the event pump, torn down in reverse."""
    with ExitStack() as stack:
        emulator.start()
        stack.callback(emulator.stop)
        saved = os.environ.get("AWS_ENDPOINT_URL_BEDROCK")
        os.environ["AWS_ENDPOINT_URL_BEDROCK"] = emulator.url
        aws.reset_clients()
        load_settings.cache_clear()

        def restore() -> None:
            if saved is None:
                os.environ.pop("AWS_ENDPOINT_URL_BEDROCK", None)
            else:
                os.environ["AWS_ENDPOINT_URL_BEDROCK"] = saved
            aws.reset_clients()

        stack.callback(restore)
        documents = stack.enter_context(DurableFunctionTestRunner(orchestrator, poll_interval=0.1))
        batching = stack.enter_context(DurableFunctionTestRunner(batcher, poll_interval=0.1))
        to_documents, to_batcher = RunnerCallbacks(documents), RunnerCallbacks(batching)
        outcomes.use_callbacks(to_documents, to_batcher)
        stack.callback(outcomes.use_callbacks, None)
        pump = EventPump(names("BatchJobEventsQueue"), duplicate=duplicate_events).start()
        stack.callback(pump.stop)
        yield Pile(names, emulator, documents, batching, to_documents, to_batcher, pump)
