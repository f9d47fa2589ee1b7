"""Steps: the two ends of a document. Both are upserts keyed by document id and version."""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow.ids import DocumentRef
from docflow.readmodel.schema import now_iso
from docflow.runtime import runtime
from docflow.storage import archive_key, artifact_prefix, result_key


def _record(doc: DocumentRef, outcome: str, summary: dict[str, Any]) -> dict[str, Any]:
    return {
        "documentId": doc.document_id,
        "version": doc.version,
        "runId": doc.run_id,
        "source": {"bucket": doc.bucket, "key": doc.key, "versionId": doc.version},
        "outcome": outcome,
        "artifacts": artifact_prefix(doc),
        "summary": summary,
        "writtenAt": now_iso(),
    }


@durable_step
def finalize_document(step: StepContext, doc: DocumentRef, summary: dict[str, Any]) -> str:
    key = result_key(doc)
    runtime().store.put_json(key, _record(doc, "finalized", summary))
    step.logger.info("document finalized", extra={"resultKey": key})
    return key


@durable_step
def archive_document(step: StepContext, doc: DocumentRef, summary: dict[str, Any]) -> str:
    key = archive_key(doc)
    runtime().store.put_json(key, _record(doc, "archived", summary))
    step.logger.info(
        "document archived", extra={"archiveKey": key, "reason": summary.get("reason")}
    )
    return key
