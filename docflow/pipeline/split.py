"""Step: validate the upload, count its pages and plan the page batches.

An unreadable document is an answer, not an exception: the step returns its reason code so
the orchestrator records a terminal failure without burning retries on bad input.
"""

from __future__ import annotations

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig

from docflow.errors import IntakeError
from docflow.ids import DocumentRef
from docflow.pdf import IntakeLimits, inspect_pdf
from docflow.pipeline.plan import plan_batches
from docflow.pipeline.results import Split
from docflow.pipeline.serdes import RecordSerDes
from docflow.runtime import runtime

SPLIT_STEP = StepConfig(serdes=RecordSerDes(Split))


@durable_step
def split_document(step: StepContext, doc: DocumentRef) -> Split:
    rt = runtime()
    s = rt.settings
    try:
        data = rt.store.source_bytes(doc, s.max_bytes)
        info = inspect_pdf(data, IntakeLimits(s.max_pages, s.max_bytes, s.max_page_points))
    except IntakeError as exc:
        step.logger.warning("document refused", extra={"reason": exc.reason})
        return Split.refused(exc.reason, exc.message)
    batches = plan_batches(info.pages, s.page_batch_size, s.page_concurrency, s.max_batches)
    step.logger.info("document split", extra={"pages": info.pages, "batches": len(batches)})
    return Split(True, info.pages, info.bytes, tuple((a, b) for a, b in batches))
