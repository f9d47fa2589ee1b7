"""Turning an S3 "Object Created" event into exactly one durable execution per version.

In AWS, Lambda de-duplicates starts by DurableExecutionName (same name and payload: the
existing execution), so the starter just invokes. The local durable runner does not: the local
stack's starter (`docflow/local/services/starter.py`, which claims the name first) is handed in
by the local functions' host (`use_local_starters`), so no Lambda package carries it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from string import hexdigits
from typing import Protocol

from aws_lambda_powertools.utilities.data_classes.s3_event import S3EventBridgeNotificationEvent
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from botocore.exceptions import ClientError

from docflow import aws
from docflow.ids import DocumentRef
from docflow.settings import Settings, SettingsError
from docflow.telemetry import context as telemetry_context


class BadIntakeMessage(ValueError):
    """The queue message is not an S3 Object Created event we can start from; the message
    says why."""


def document_from_message(record: SQSRecord) -> DocumentRef:
    """The S3 "Object Created" event in an SQS message's body (EventBridge's event, as the
    intake rule queues it) -> the run it asks for. Anything else raises BadIntakeMessage with
    its reason, whatever the body holds: the message then fails alone and reaches the DLQ."""
    try:
        body = record.json_body
    except ValueError as exc:
        raise BadIntakeMessage("the message body is not JSON") from exc
    if not isinstance(body, dict) or body.get("detail-type") != "Object Created":
        raise BadIntakeMessage("the message is not an S3 Object Created event")
    event = S3EventBridgeNotificationEvent(body)
    if not isinstance(event.get("detail"), dict):
        raise BadIntakeMessage("the event has no detail")
    try:
        bucket, obj = event.detail.bucket.name, event.detail.object
        # The key as the event carries it: S3's EventBridge events name the object as stored
        # (moto's too), and Powertools' `key` URL-decodes it, as S3's own notifications need;
        # decoded, a key holding `+` or `%` would name another object.
        key = obj["key"]
    except (KeyError, TypeError):  # a part missing, or not an object
        raise BadIntakeMessage("the event names no bucket and key") from None
    if not isinstance(bucket, str) or not bucket or not isinstance(key, str) or not key:
        raise BadIntakeMessage("the event names no bucket and key")
    sequencer = str(obj.get("sequencer") or "")
    if not all(c in hexdigits for c in sequencer):
        raise BadIntakeMessage("the event's sequencer is not hexadecimal")
    return DocumentRef(
        bucket=bucket,
        key=key,
        version_id=str(obj.get("version-id") or "null"),
        sequencer=sequencer,
        content_tag=str(obj.etag).strip('"'),
        event_time_ms=_event_time_ms(event.get("time")),
    )


def _event_time_ms(value: object) -> int:
    """EventBridge's ISO time (`2026-03-04T10:00:00Z`), which orders two events whose
    sequencers tie; 0 when it does not read."""
    if not isinstance(value, str) or not value:
        return 0
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return 0
    return max(0, int(parsed.timestamp() * 1000))


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


# Builds the starter of one function's executions from the settings.
StarterFactory = Callable[[str, Settings], Starter]
_local_starters: StarterFactory | None = None


def use_local_starters(factory: StarterFactory | None) -> None:
    """How runs start on a local runner: the local functions' host hands its starter in before
    it loads a function (None takes it back)."""
    global _local_starters
    _local_starters = factory


def build_starter(function: str, settings: Settings) -> Starter:
    """The one place that picks how executions of `function` start: Lambda's invoke, or, when
    the settings name a local runner (the local stack sets it), the starter the local host
    handed in. A runner named with no starter handed in is refused: a start must never go to
    Lambda's invoke on a stack whose runner does not de-duplicate by name."""
    if not settings.local_runner_url:
        return LambdaStarter(function)
    if _local_starters is None:
        raise SettingsError(
            "DOCFLOW_LOCAL_RUNNER_URL names a local runner, but no local starter was handed "
            "in: only the local stack's functions host (docflow/local/services/host.py) starts "
            "runs there"
        )
    return _local_starters(function, settings)


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
