"""Reading the document: its e-invoice data (`read e-invoice`, one step, for a split that found
one), then every page: a map over page batches, each batch one step, and what the map returns.

The map is FLAT (one operation per batch instead of two), which keeps documents of thousands
of pages within the execution's operation budget; every batch runs (no fail-fast), and a
batch that failed fails the document afterwards, with the reason its step gave.
"""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import DurableContext
from aws_durable_execution_sdk_python.concurrency.models import BatchResult
from aws_durable_execution_sdk_python.config import (
    CompletionConfig,
    Duration,
    MapConfig,
    NestingType,
    StepConfig,
)
from aws_durable_execution_sdk_python.retries import RetryStrategyConfig, create_retry_strategy
from aws_durable_execution_sdk_python.serdes import JsonSerDes

from docflow.ids import DocumentRef
from docflow.pipeline.einvoice_read import EINVOICE_STEP, EInvoiceRead, read_einvoice
from docflow.pipeline.read_batch import read_page_batch
from docflow.pipeline.result_json import BatchJson, BatchRefusedJson
from docflow.pipeline.results import BatchSummary, Failure, Reading, Split
from docflow.pipeline.serdes import BatchResultJson
from docflow.runtime import runtime

# A page batch retries a few times with backoff; throttles are already absorbed inside it.
# Its summary is checkpointed as plain JSON: the typed envelope would double its size, and a
# 5,000-page document has 100 of them in the map's own checkpoint.
BATCH_STEP = StepConfig(
    serdes=JsonSerDes(),
    retry_strategy=create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=4,
            initial_delay=Duration.from_seconds(2),
            max_delay=Duration.from_seconds(60),
        )
    ),
)


def einvoice_of(context: DurableContext, doc: DocumentRef, split: Split) -> EInvoiceRead | None:
    """The `read e-invoice` step for a split that found one (xml or hybrid), else None."""
    if not split.einvoice:
        return None
    step = read_einvoice(doc, split.einvoice)
    return context.step(step, name="read e-invoice", config=EINVOICE_STEP)


def read_pages(
    context: DurableContext, doc: DocumentRef, plan: list[list[int]], xml: bool = False
) -> Reading:
    """Every batch's summary in page order, or the first failure. `xml`: an XML-only
    e-invoice, whose one page is its invoice as text."""
    done: BatchResult[BatchJson | BatchRefusedJson] = context.map(
        plan,
        lambda ctx, batch, index, _: ctx.step(
            read_page_batch(doc, index, batch[0], batch[1], xml),
            name=f"batch-{index}",
            config=BATCH_STEP,
        ),
        name="read pages",
        config=MapConfig(
            max_concurrency=runtime().settings.page_concurrency,
            completion_config=CompletionConfig.all_completed(),
            nesting_type=NestingType.FLAT,
            serdes=BatchResultJson(),
            item_serdes=JsonSerDes(),
        ),
    )
    return pages_or_error(done)


def pages_or_error(done: BatchResult[Any]) -> Reading:
    """The batches' summaries by index, or the first failure (a step error or a reported one)."""
    results: list[BatchSummary] = []
    for item in sorted(done.all, key=lambda i: i.index):
        if item.error is not None or item.result is None:
            message = item.error.message if item.error else "no result"
            failed = Failure("page-read-failed", f"batch {item.index}: {message}")
            return Reading(error=failed)
        if "error" in item.result:  # a batch's reported failure (a page it could not read)
            reported = item.result["error"]
            return Reading(error=Failure(str(reported["reason"]), str(reported["message"])))
        results.append(BatchSummary.from_json(item.result))
    return Reading(results=tuple(results))
