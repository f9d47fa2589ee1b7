"""The starter: SQS intake messages in, one durable execution per document version out.

Fed by an event source mapping with partial batch failures: a message that cannot be parsed
or started is reported failed alone, retried by SQS, and lands in the DLQ after a few tries.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from docflow.intake import Starter, build_starter, document_from_message
from docflow.observability import logger
from docflow.piles.manifest import is_manifest
from docflow.settings import load_settings
from docflow.telemetry import spans
from docflow.telemetry.context import for_run

_starter: Starter | None = None
PART = "docflow.starter"


def starter() -> Starter:
    global _starter
    if _starter is None:
        settings = load_settings()
        _starter = build_starter(settings.orchestrator_function, settings)
    return _starter


def use_starter(value: Starter | None) -> None:
    global _starter
    _starter = value


def start_one(record: SQSRecord) -> None:
    doc = document_from_message(record)
    if is_manifest(doc.key, load_settings().pile_prefix):
        # A pile's size, read by its documents' enrich steps: not a document itself.
        logger.info("pile manifest: no execution", extra=doc.log_keys())
        return
    # The run's first span, with the ids its execution input names as the run's parent.
    attributes = {"docflow.document_id": doc.document_id, "docflow.run_id": doc.run_id}
    with spans.span(
        PART, "start document", None, attributes, root=for_run(doc.run_id, doc.run_order)
    ):
        started = starter().start(doc)
    logger.info("intake", extra={**doc.log_keys(), "started": started})


def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    # A processor per invocation: it holds the batch it is working on, and one shared by
    # invocations running side by side (the local function host runs them on threads of one
    # process) let one invocation work through another's batch while its own went unstarted
    # and, reported as not failed, was deleted from the queue.
    processor = BatchProcessor(event_type=EventType.SQS)
    try:
        return process_partial_response(
            event=event, record_handler=start_one, processor=processor, context=context
        )
    finally:
        spans.flush()
