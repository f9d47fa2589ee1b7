"""How a run waits on reviewers, records what happened, and ends: the calls every branch of
the pipeline (`app.py`, `packet_run.py`) shares. Control flow and named steps only; every side
effect is a step of `docflow.pipeline`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from aws_durable_execution_sdk_python import DurableContext

from docflow.document import DocumentSummary
from docflow.flows.enrich import leave_pile_on_failure
from docflow.flows.matching import release_order_billing
from docflow.flows.review import wait_for_decision
from docflow.ids import DocumentRef
from docflow.pipeline.duplicates import Replaces, release_duplicates
from docflow.pipeline.finalize import WRITE_STEP, archive_document
from docflow.pipeline.meter import run_meter
from docflow.pipeline.record import record_status
from docflow.pipeline.results import Reading
from docflow.pipeline.review_rounds import Reviewed, decision_record
from docflow.readmodel.transitions import ARCHIVED, FAILED
from docflow.review.stage.for_review import ForReview
from docflow.rules.routed import RoutedStage


class FoundBefore(TypedDict):
    """What a run found before it failed, for the read model: a blank document's pages by
    engine."""

    engines: dict[str, int]


@dataclass(frozen=True)
class RunEnded:
    """How the run ended, which the execution returns (`to_json`: small, JSON-native, enough
    for `docflow run` to print): its status, what it knew of its document (None: it stopped
    before it knew anything), why it failed or was archived, and the finalized version it
    replaces, if any."""

    doc: DocumentRef
    status: str
    summary: DocumentSummary | None = None
    reason: str | None = None
    message: str | None = None
    replaces: Replaces = field(default_factory=Replaces)

    def to_json(self) -> dict[str, Any]:
        # The summary is the document's record, open to keys of other releases: any JSON.
        said = (("reason", self.reason), ("message", self.message))
        return {
            "documentId": self.doc.document_id,
            "version": self.doc.version,
            "runId": self.doc.run_id,
            "status": self.status,
            **(self.summary.to_json() if self.summary is not None else {}),
            **{k: v for k, v in said if v is not None},
            **self.replaces,
        }


def await_review(
    context: DurableContext,
    doc: DocumentRef,
    index: int,
    stage: RoutedStage,
    seen: ForReview,
) -> Reviewed:
    """Wait, with no compute billed, for this stage's decision; record what came back.

    The waiting, in rounds when the stage reminds or escalates, is `wait_for_decision`.
    """
    ended = wait_for_decision(context, doc, index, stage, seen)
    name = stage.name
    if ended.status == ARCHIVED:
        return Reviewed(ARCHIVED, ended.reason, name)
    payload = decision_record(index, stage, ended, seen)
    record(context, doc, ended.status, f"review-{index}", payload, stage_index=index)
    return Reviewed(ended.status, ended.reason, name, ended.decision, payload)


def archive(
    context: DurableContext,
    doc: DocumentRef,
    summary: DocumentSummary | None,
    reason: str,
    batches: Reading | None = None,
    usage: Mapping[str, int] | None = None,
    ended: Mapping[str, str] | None = None,
) -> RunEnded:
    """Archive the document (an upsert keyed by version), priced like a finalize, and say why;
    `summary`: None for a run that stopped before it knew anything of its document; `ended`:
    the stage that was not approved and how it ended."""
    results = batches.results if batches else ()
    if summary is not None and summary.duplicate_keys:  # what this version claimed goes back
        keys = list(summary.duplicate_keys)
        context.step(release_duplicates(doc, keys), name="release duplicate keys")
    if summary is not None:
        release_order_billing(context, doc, summary)  # its share of its order goes back
    meter = run_meter(context, results, summary.doc_type if summary else None, usage)
    archived = archive_document(doc, summary, {**(ended or {}), "reason": reason}, meter)
    done = context.step(archived, "archive", WRITE_STEP)
    payload = {"archiveKey": done.key, "reason": reason, "cost": done.cost}
    record(context, doc, ARCHIVED, "archive", payload)
    return RunEnded(doc, ARCHIVED, summary, reason=reason)


def record(
    context: DurableContext,
    doc: DocumentRef,
    status: str,
    stage: str,
    payload: Mapping[str, Any] | None = None,
    stage_index: int | None = None,
) -> None:
    suffix = f" {stage}" if stage_index is not None else ""
    context.step(
        record_status(doc, status, stage, payload, stage_index), name=f"record {status}{suffix}"
    )


def fail(
    context: DurableContext,
    doc: DocumentRef,
    reason: str,
    message: str,
    found_before: FoundBefore | None = None,
) -> RunEnded:
    """Record the failure; `found_before`: what the run found before it (a blank document's
    pages by engine), for the read model."""
    payload = {**(found_before or {}), "reason": reason, "message": message[:500]}
    leave_pile_on_failure(context, doc)  # a pile of known size need not wait for it
    record(context, doc, FAILED, "failed", payload)
    return RunEnded(doc, FAILED, reason=reason, message=message[:500])
