"""Steps: the two ends of a document. Both are upserts keyed by document id and version.

Each prices the run as its last act (`meter`, docflow.pipeline.meter), writes the cost into
the record, and returns it with the record's key for the status report. An e-invoice's record
carries its lines and VAT breakdown, read from its einvoice.json: the summary (the checkpoint,
the read model) carries only their count and sums (docs/einvoice.md). A finalized record of a
new version that replaces a finalized one says which (`replaces`, docs/payment-controls.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig

from docflow.cost import CostEstimate
from docflow.document import DocumentSummary
from docflow.ids import DocumentRef
from docflow.pipeline.duplicates import replaces_of
from docflow.pipeline.results import Written
from docflow.pipeline.serdes import RecordSerDes
from docflow.readmodel.schema import now_iso
from docflow.runtime import runtime
from docflow.storage import archive_key, artifact_prefix, result_key

Meter = Callable[[], CostEstimate]
WRITE_STEP = StepConfig(serdes=RecordSerDes(Written))


def _record(
    doc: DocumentRef,
    disposition: str,
    summary: DocumentSummary | None,
    cost: CostEstimate | None,
    reason: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "documentId": doc.document_id,
        "version": doc.version,
        "runId": doc.run_id,
        "source": {"bucket": doc.bucket, "key": doc.key, "versionId": doc.version},
        "disposition": disposition,
        "artifacts": artifact_prefix(doc),
        "summary": {**(summary.to_json() if summary else {}), **(reason or {})},
        # A new version approved at `duplicate` names the finalized version it replaces.
        **(replaces_of(doc, summary) if summary and disposition == "finalized" else {}),
        **(_einvoice_rows(summary) if summary else {}),
        "cost": cost,
        "writtenAt": now_iso(),
    }


def _einvoice_rows(summary: DocumentSummary) -> dict[str, Any]:
    """An e-invoice's `lines` and `vat` as its data states them; nothing for other documents."""
    if summary.einvoice_key is None:
        return {}
    invoice = runtime().store.get_json(summary.einvoice_key)["invoice"]
    return {"lines": invoice["lines"], "vat": invoice["vat"]}


@durable_step
def finalize_document(
    step: StepContext, doc: DocumentRef, summary: DocumentSummary, meter: Meter | None = None
) -> Written:
    key = result_key(doc)
    cost = meter() if meter else None
    runtime().store.put_json(key, _record(doc, "finalized", summary, cost))
    step.logger.info("document finalized", extra={"resultKey": key})
    return Written(key, cost)


@durable_step
def archive_document(
    step: StepContext,
    doc: DocumentRef,
    summary: DocumentSummary | None,
    ended: Mapping[str, Any],
    meter: Meter | None = None,
) -> Written:
    """`ended`: why (`reason`) and, for a stage that was not approved, which and how."""
    key = archive_key(doc)
    cost = meter() if meter else None
    runtime().store.put_json(key, _record(doc, "archived", summary, cost, ended))
    step.logger.info("document archived", extra={"archiveKey": key, "reason": ended["reason"]})
    return Written(key, cost)
