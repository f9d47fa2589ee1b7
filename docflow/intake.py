"""Turning an S3 "Object Created" event into exactly one durable execution per version.

In AWS, Lambda de-duplicates starts by DurableExecutionName (same name and payload: the
existing execution), so the starter just invokes. The local durable runner does not, so the
local starter claims the name with a conditional write first, and on taking over a stale
claim asks the runner whether the run already exists. Only a claim marked "started" (or a run
the runner has) makes a start a duplicate: one left "starting" is waited out, never trusted.
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.request
from datetime import datetime
from typing import Protocol

from botocore.exceptions import ClientError

from docflow import aws
from docflow.dynamo import ConditionFailed, Table
from docflow.executions import LambdaExecutionStatuses
from docflow.ids import DocumentRef
from docflow.settings import Settings, SettingsError
from docflow.telemetry import context as telemetry_context

CLAIM_TIMEOUT_S = 60
CLAIM_POLL_S = 1.0


class BadIntakeMessage(ValueError):
    """The queue message is not an S3 Object Created event we can start from."""


def document_from_message(body: str) -> DocumentRef:
    """The EventBridge event in an SQS message body -> the run it asks for."""
    try:
        event = json.loads(body)
    except ValueError as exc:
        raise BadIntakeMessage("the message body is not JSON") from exc
    if not isinstance(event, dict) or event.get("detail-type") != "Object Created":
        raise BadIntakeMessage("the message is not an S3 Object Created event")
    detail = event.get("detail")
    if not isinstance(detail, dict):
        raise BadIntakeMessage("the event has no detail")
    bucket = (detail.get("bucket") or {}).get("name")
    obj = detail.get("object") or {}
    key = obj.get("key")
    if not isinstance(bucket, str) or not bucket or not isinstance(key, str) or not key:
        raise BadIntakeMessage("the event names no bucket and key")
    sequencer = str(obj.get("sequencer") or "")
    if not all(c in "0123456789abcdefABCDEF" for c in sequencer):
        raise BadIntakeMessage("the event's sequencer is not hexadecimal")
    return DocumentRef(
        bucket=bucket,
        key=key,
        version_id=str(obj.get("version-id") or "null"),
        sequencer=sequencer,
        content_tag=str(obj.get("eTag") or obj.get("etag") or "").strip('"'),
        event_time_ms=_event_time_ms(event.get("time")),
    )


def _event_time_ms(value: object) -> int:
    """EventBridge gives an ISO time; moto gives epoch seconds. Either orders tied events."""
    if isinstance(value, int | float):
        return max(0, int(value * 1000))
    if isinstance(value, str) and value:
        try:
            return max(0, int(float(value) * 1000))
        except ValueError:
            pass
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return 0
        return max(0, int(parsed.timestamp() * 1000))
    return 0


def execution_input(doc: DocumentRef) -> str:
    """The orchestrator's input: the document, and the run's root span (the starter's) so the
    run's invocations join its trace. Both are functions of the run: a redelivered event sends
    the same input, which Lambda answers with the existing execution."""
    root = telemetry_context.for_run(doc.run_id, doc.run_order)
    return json.dumps(
        {**doc.to_event(), telemetry_context.INPUT_KEY: root.header()}, sort_keys=True
    )


class Starter(Protocol):
    def start(self, doc: DocumentRef) -> bool:
        """Start the run; False when it had already been started (a duplicate)."""
        ...

    def start_named(self, name: str, payload: str) -> bool:
        """Start the execution `name` with this (deterministic) input; False if it exists."""
        ...


def build_starter(function: str, settings: Settings) -> Starter:
    """The one place that picks how executions of `function` start: the local runner's when
    the settings name one (the local stack sets it), else Lambda's invoke."""
    if not settings.local_runner_url:
        return LambdaStarter(function)
    if not settings.start_claims_table:
        raise SettingsError("DOCFLOW_START_CLAIMS_TABLE is needed with DOCFLOW_LOCAL_RUNNER_URL")
    return LocalRunnerStarter(
        settings.local_runner_url,
        function,
        settings.start_claims_table,
        settings.execution_timeout_s,
    )


class LambdaStarter:
    """AWS: an asynchronous invoke of the orchestrator's alias, named for the document version."""

    def __init__(self, function: str) -> None:
        self.function = function

    def start(self, doc: DocumentRef) -> bool:
        return self.start_named(doc.execution_name, execution_input(doc))

    def start_named(self, name: str, payload: str) -> bool:
        """Start the execution `name` with this (deterministic) input; False if it exists."""
        try:
            aws.invoke_client().invoke(
                FunctionName=self.function,
                InvocationType="Event",
                DurableExecutionName=name,
                Payload=payload.encode("utf-8"),
            )
        except ClientError as exc:
            if aws.error_code(exc) == "DurableExecutionAlreadyStartedException":
                return False
            raise
        return True


class LocalRunnerStarter:
    """The local stack: claim the name in DynamoDB, then ask the local runner to start it."""

    def __init__(
        self, runner_url: str, function: str, claims_table: str, execution_timeout_s: int
    ) -> None:
        self.runner_url = runner_url.rstrip("/")
        self.function = function
        self.executions = LambdaExecutionStatuses(function)
        self.claims_table = claims_table
        self.timeout = execution_timeout_s

    def start(self, doc: DocumentRef) -> bool:
        return self.start_named(doc.execution_name, execution_input(doc))

    def start_named(self, name: str, payload: str) -> bool:
        """Start the execution `name` with this (deterministic) input; False if it exists.

        Only a claim marked "started", or a run the runner has, is a duplicate. A claim still
        "starting" may belong to a starter that died between claiming and starting (its
        message comes back, its step is retried, and would find the claim): this call waits
        for that claim to be marked or go stale, then takes it over, so a document is never
        dropped as a duplicate of a start that never happened."""
        claims = Table(self.claims_table)
        # Ours alone: a claim write whose answer was lost is retried by botocore and then
        # fails its condition on the very item it wrote.
        owner = secrets.token_hex(8)
        while True:
            now = int(time.time())
            item = {"pk": f"START#{name}", "state": "starting", "claimedAt": now, "owner": owner}
            try:
                # A claim left "starting" by a starter that died is taken over after a while.
                stale = claims.put(
                    item,
                    condition="attribute_not_exists(pk) OR (#s = :starting AND claimedAt < :stale)",
                    names={"#s": "state"},
                    values={":starting": "starting", ":stale": now - CLAIM_TIMEOUT_S},
                )
                break
            except ConditionFailed as failed:
                held = failed.item
                if held.get("owner") == owner:
                    # Our own write, landed before its retry: whether it took over a stale
                    # claim is unknown, so the runner is asked as after a takeover.
                    stale, item = held, held
                    break
                if held.get("state") == "started" or self.executions.status(name) is not None:
                    return False
                # Another start is under way, or died before starting the run: wait it out.
                time.sleep(CLAIM_POLL_S)
        # The starter whose stale claim this took over may have died after starting the run
        # and before marking the claim: then the runner has it (the runner's list is the truth).
        started = not (stale is not None and self.executions.status(name) is not None)
        if started:
            self._start(name, payload)
        claims.put({**item, "state": "started"})
        return started

    def _start(self, name: str, payload: str) -> None:
        body = {
            "AccountId": "123456789012",
            "FunctionName": self.function,
            "FunctionQualifier": "live",
            "ExecutionName": name,
            "ExecutionTimeoutSeconds": self.timeout,
            "ExecutionRetentionPeriodDays": 7,
            "Input": payload,
        }
        if not self.runner_url.startswith(("http://127.", "http://localhost")):
            raise ValueError("the local runner must be on this machine")
        request = urllib.request.Request(  # noqa: S310 - checked above: http on loopback
            f"{self.runner_url}/start-durable-execution",
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310
            answer.read()
