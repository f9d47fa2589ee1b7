"""Steps: claim an invoice's duplicate keys before it can finalize, and give them back when it
is archived (docs/payment-controls.md, "Duplicates").

`claim duplicate keys` runs once the stages are known (after enrich) for a document with
fields; the rules' `[duplicates] stage` turns it on. Each key is a conditional write
(`docflow.suppliers.duplicates`), so of two copies racing through two executions exactly one
claims; the other gets the `duplicate` stage, with the earlier document's facts in the summary
(`duplicateOf`) for its review page, `docflow show` and the dashboard. The claim is keyed to
the run, so the step's own retry or replay claims again harmlessly, and a new version of the
same document is never its own duplicate. A reviewer's correction of a field a key is made of
(or a triage pick of a type with fields) claims again (`claim_again`), which may add the stage
then. An archived run's claims are released (`release_duplicates`); a claim whose holder failed
or was archived without releasing is taken over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext, durable_step

from docflow.dynamo import Table
from docflow.ids import DocumentRef
from docflow.pipeline.retries import degrading_step
from docflow.pipeline.run_state import RunState
from docflow.pipeline.serdes import RecordSerDes
from docflow.readmodel.schema import now_iso
from docflow.readmodel.table import STATE_SK, doc_pk
from docflow.readmodel.transitions import ARCHIVED, FAILED
from docflow.review.stage.decision import Decision
from docflow.rules.routed import RoutedStage, stages_from_json, stages_json
from docflow.runtime import runtime
from docflow.suppliers.duplicates import (
    KEY_FIELDS,
    Claimant,
    DuplicateStore,
    Facts,
    claim_pk,
    suppliers_of,
)

DUPLICATE = "duplicate"  # the stage's `because`
UNCHECKED = "duplicate-unchecked"  # the check could not run: a person looks instead
# A holder in one of these states will not finalize: its key is free to take.
_ENDED = (FAILED, ARCHIVED)


@dataclass(frozen=True)
class Duplicates:
    """The claim step: the claim items this run holds (`keys`), the other documents holding
    one of its keys (`earlier`: id, status, number, date, total, ...) and the stage to add."""

    keys: tuple[str, ...] = ()
    earlier: tuple[dict[str, Any], ...] = ()
    stages: tuple[RoutedStage, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "keys": list(self.keys),
            "earlier": [dict(e) for e in self.earlier],
            "stages": stages_json(self.stages),
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Duplicates:
        return cls(
            tuple(str(k) for k in raw.get("keys", [])),
            tuple(dict(e) for e in raw.get("earlier", [])),
            stages_from_json(raw.get("stages", [])),
        )


ATTEMPTS = 5
# DynamoDB out of reach gets a few tries; the last one sends the invoice to a person
# (`duplicate-unchecked`) instead of failing it, as extraction degrades.
CLAIM_STEP = degrading_step(ATTEMPTS, 2, 30, RecordSerDes(Duplicates))


def _claimant(doc: DocumentRef) -> Claimant:
    return Claimant(doc.document_id, doc.version, doc.run_id, doc.run_order, doc.key)


def _status(document_id: str) -> str:
    """The holder's status as the read model has it now ("" if it has none)."""
    state = Table(runtime().settings.table_name).get({"pk": doc_pk(document_id), "sk": STATE_SK})
    return str((state or {}).get("status") or "")


def _earlier(held: dict[str, Any], status: str) -> dict[str, Any]:
    """What the review page, `show` and the dashboard say of the earlier document."""
    kept = ("documentId", "version", "key", "number", "date", "total", "currency", "vendor")
    return {**{k: held[k] for k in kept if held.get(k)}, "status": status, "by": [held["kind"]]}


def duplicate_keys(summary: dict[str, Any]) -> tuple[Facts, dict[str, str]]:
    """The facts and keys `summary` claims under the rules: none when the control is off or
    the type has no invoice number (a purchase order)."""
    rt = runtime()
    spec = rt.rules.fields.for_type(str(summary.get("docType") or ""))
    facts = Facts.of(summary)
    if not rt.rules.controls.duplicate_stage or spec is None:
        return facts, {}
    if "invoice_number" not in spec.names:
        return facts, {}
    return facts, facts.keys(suppliers_of(summary))


@durable_step
def claim_duplicates(step: StepContext, doc: DocumentRef, summary: dict[str, Any]) -> Duplicates:
    facts, keys = duplicate_keys(summary)
    try:
        return _claim(step, doc, summary, facts, keys)
    except Exception as exc:
        stage = runtime().rules.controls.duplicate_stage
        if step.attempt < ATTEMPTS or not stage:
            raise
        step.logger.warning("duplicate check failed", extra={"error": type(exc).__name__})
        unchecked = RoutedStage.of(runtime().rules.stages[stage], UNCHECKED)
        # Every key it may hold, so an archive releases them (a release is conditional).
        held = {*(summary.get("duplicateKeys") or ()), *(claim_pk(k) for k in keys)}
        return Duplicates(tuple(sorted(held)), (), (unchecked,))


def _claim(
    step: StepContext,
    doc: DocumentRef,
    summary: dict[str, Any],
    facts: Facts,
    keys: dict[str, str],
) -> Duplicates:
    rt = runtime()
    table = rt.settings.duplicate_table
    if not keys and not summary.get("duplicateKeys"):
        return Duplicates()
    store, who, at = DuplicateStore(table), _claimant(doc), now_iso()
    held: list[str] = []
    earlier: dict[str, dict[str, Any]] = {}
    for readable, kind in keys.items():
        pk = claim_pk(readable)
        holder = store.claim(pk, who, facts, kind, at)
        if holder is None:
            held.append(pk)
            continue
        status = _status(str(holder["documentId"]))
        if status in _ENDED and store.take_over(pk, who, facts, kind, at, str(holder["runId"])):
            held.append(pk)
            continue
        seen = earlier.get(str(holder["documentId"]))
        if seen is None:
            earlier[str(holder["documentId"])] = _earlier(holder, status)
        elif holder["kind"] not in seen["by"]:
            seen["by"].append(holder["kind"])
    # A corrected value's old keys: no longer this invoice's, so no longer held.
    for stale in sorted(set(summary.get("duplicateKeys") or []) - set(held)):
        store.release(stale, doc.run_id)
    stage = rt.rules.controls.duplicate_stage
    stages = (RoutedStage.of(rt.rules.stages[stage], DUPLICATE),) if earlier and stage else ()
    step.logger.info(
        "duplicate keys claimed",
        extra={"claimed": len(held), "heldByOthers": len(keys) - len(held), "hits": len(earlier)},
    )
    return Duplicates(tuple(sorted(set(held))), tuple(earlier.values()), stages)


def with_duplicates(summary: dict[str, Any], found: Duplicates) -> dict[str, Any]:
    """Pure: the summary with the keys this run holds (what archive releases) and the earlier
    documents (`duplicateOf`) when there are any."""
    out = {k: v for k, v in summary.items() if k != "duplicateKeys"}
    if found.keys:
        out["duplicateKeys"] = list(found.keys)
    if found.earlier:
        out["duplicateOf"] = [dict(e) for e in found.earlier]
    return out


def claim_keys(context: DurableContext, doc: DocumentRef, run: RunState) -> RunState:
    """Once the stages are known: claim the keys; a hit's `duplicate` stage joins them."""
    found = context.step(claim_duplicates(doc, run.summary), "claim duplicate keys", CLAIM_STEP)
    summary = with_duplicates(run.summary, found)
    return replace(run, summary=summary, stages=[*run.stages, *found.stages])


def claim_due(stage: RoutedStage, decision: Decision) -> bool:
    """Pure, on checkpointed values: did this decision change what the keys are made of (a
    corrected number, date, total, currency or vendor; a triage pick, which reads fields)?"""
    return bool(stage.choices) or any(n in decision.corrections for n in KEY_FIELDS)


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
    ahead = any(s.because in (DUPLICATE, UNCHECKED) for s in run.stages[index + 1 :])
    stages = run.stages if ahead else [*run.stages, *found.stages]
    return replace(run, summary=with_duplicates(run.summary, found), stages=stages)


@durable_step
def release_duplicates(step: StepContext, doc: DocumentRef, keys: Sequence[str]) -> int:
    """Delete the claims this run holds (each on the condition that it still does): how many
    went. A repeat deletes nothing more."""
    store = DuplicateStore(runtime().settings.duplicate_table)
    released = sum(1 for pk in keys if store.release(str(pk), doc.run_id))
    step.logger.info("duplicate keys released", extra={"released": released})
    return released
