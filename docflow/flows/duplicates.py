"""The duplicate check's durable operations (docs/payment-controls.md, "Duplicates"):

    claim duplicate keys               once the stages are known (after enrich)
    claim duplicate keys review-<i>    after an approved stage that changed a key's values
    settle duplicate keys              right before finalize
    release duplicate keys             on archive (orchestrator/endings.py)

The step bodies are `docflow.pipeline.duplicates` and `duplicate_settle`."""

from __future__ import annotations

from dataclasses import replace

from aws_durable_execution_sdk_python import DurableContext

from docflow.ids import DocumentRef
from docflow.pipeline.duplicate_settle import SETTLE_STEP, settle_due, settle_duplicates
from docflow.pipeline.duplicates import (
    CLAIM_STEP,
    DUPLICATE,
    POSSIBLE,
    UNCHECKED,
    claim_due,
    claim_duplicates,
)
from docflow.pipeline.run_state import RunState
from docflow.review.stage.decision import Decision
from docflow.rules.routed import RoutedStage


def claim_keys(context: DurableContext, doc: DocumentRef, run: RunState) -> RunState:
    """Once the stages are known: claim the keys; a hit's `duplicate` stage joins them."""
    found = context.step(claim_duplicates(doc, run.summary), "claim duplicate keys", CLAIM_STEP)
    summary = run.summary.with_duplicates(found.keys, found.earlier)
    return replace(run, summary=summary, stages=(*run.stages, *found.stages))


def claim_again(
    context: DurableContext,
    doc: DocumentRef,
    run: RunState,
    index: int,
    stage: RoutedStage,
    decision: Decision,
) -> RunState:
    """After an approved stage at `index`: claim the corrected values' keys, so a corrected
    number cannot let a duplicate through; a hit adds the `duplicate` stage unless one is still
    to come."""
    if not claim_due(stage, decision):
        return run
    found = context.step(
        claim_duplicates(doc, run.summary), f"claim duplicate keys review-{index}", CLAIM_STEP
    )
    ahead = any(s.because in (DUPLICATE, POSSIBLE, UNCHECKED) for s in run.stages[index + 1 :])
    stages = run.stages if ahead else (*run.stages, *found.stages)
    summary = run.summary.with_duplicates(found.keys, found.earlier)
    return replace(run, summary=summary, stages=stages)


def settle_keys(context: DurableContext, doc: DocumentRef, run: RunState) -> bool:
    """Before finalize: settle the keys; False when a newer run of the document holds one
    (this run is superseded and must be archived, not finalized)."""
    if not settle_due(run.summary):
        return True
    step = settle_duplicates(doc, run.summary)
    return not context.step(step, "settle duplicate keys", SETTLE_STEP).superseded
