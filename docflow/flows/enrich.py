"""The enrich stage's durable operations: a summary and a risk level per document.

`enrich_document(context, doc, found, plan)` runs after classify/extract for every document
that was read, and returns what the orchestrator adds to the document's summary (`shown`:
`summary` {title, abstract}, `risk` {level, reasons}, `enrichment` {mode, engine, status, key,
jobId?, reason?}), the review `stages` it adds, and `usage` for the run's cost. The full
enrichment is in S3 (`storage.enrichment_key`); the step bodies are in `enrich_steps`.

Paths, each decided by a checkpointed value so a replay takes the same one:

    rules engine      one step, `enrich`
    bedrock engine    `enrich` (writes the request to S3, estimates its tokens), then
                      `enrich admit C.R` (a reservation in the tokens-per-minute budget; its
                      answer is the seconds to wait) and, when the budget is spent,
                      `enrich budget wait C.R` (a durable wait: no compute billed), then
                      `enrich model C` (the call). R counts admission rounds (at most
                      MAX_ROUNDS, then review), C the calls (a schema-invalid answer is asked
                      once more; a second one marks the enrichment incomplete: review).
    pile (below)      `enrich`, `enrich batch` (a callback), `enrich batch result`

A `high` risk, or an enrichment that stayed incomplete, adds the rules file's risk stage
(`[risk] stage`, reviewers in `[stages.<name>]`); its `because` carries the reasons with
their pages. A model answer never fails the document.

CONTRACT for the path for piles (docflow/piles). A document whose key starts with
DOCFLOW_PILE_PREFIX, when `docflow.piles.pool` can be imported, takes the pile path:

  1. the `enrich` step writes the batch record's `modelInput` (prompted JSON, Converse shape,
     `request.build_batch_model_input`) to S3 at `storage.enrich_batch_input_key(doc)` and
     checkpoints `pool.callback_timeout_s(settings)` (the pool's maximum wait plus the job's
     timeout), so the batcher reads the prompt from S3, not from a checkpoint; it also reads
     the pile's manifest (`docflow.piles.manifest`) once and checkpoints the pile's size
     (`pile`: {"name", "expected"}, or None when unknown). A pile smaller than a job's minimum
     takes the on-demand path at once, its enrichment saying `onDemandReason:
     below-batch-minimum`;
  2. `context.wait_for_callback(submitter, name="enrich batch",
     config=WaitForCallbackConfig(timeout=that many seconds))`, whose submitter calls
     `docflow.piles.pool.register(doc, callback_id, request_key, pile)`; register must be
     idempotent (the submitter step may run again with the same callback id);
  3. the callback's result is JSON, either
       {"status": "ok", "enrichment": {...the full enrichment...}, "jobId": "...",
        "usage": {"inputTokens": n, "outputTokens": n}}
     or {"status": "on-demand", "reason": "record-error" | "invalid-answer" | "job-expired"
        | "job-failed" | "pool-timeout" | ...};
  4. "ok" with an enrichment that matches the schema is written with mode `batch`, the job
     id and batch-priced tokens; anything else (on-demand, an invalid enrichment, a callback
     failure or timeout, a submitter that kept failing) goes through the on-demand path
     above, so no document is left without an enrichment; its enrichment's `onDemandReason`
     is the result's reason (or `batch-wait-ended`, `invalid-answer`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TypedDict

from aws_durable_execution_sdk_python import CallbackError, DurableContext, DurableOperationError
from aws_durable_execution_sdk_python.config import Duration, WaitForCallbackConfig

from docflow.document.shown import EnrichmentNote
from docflow.enrich.budget import Admission
from docflow.ids import DocumentRef
from docflow.piles.shapes import PileResult
from docflow.pipeline.enrich_fill import fields_stage, fill_from_enrichment
from docflow.pipeline.enrich_plan import EnrichOutcome, EnrichPlan
from docflow.pipeline.enrich_steps import (
    ADMIT_STEP,
    MODEL_CALL,
    OUTCOME_STEP,
    PLAN_STEP,
    admit_call,
    call_model,
    facts_of,
    give_up,
    in_pile_folder,
    leave_pile,
    prepare_enrichment,
    record_batch_answer,
)
from docflow.pipeline.results import Classification, Enrichment
from docflow.pipeline.run_state import RunState
from docflow.pipeline.serdes import RecordSerDes
from docflow.runtime import runtime

MAX_ROUNDS = 4  # admission rounds per call; each can reserve up to half an hour ahead
MODEL_STEP = MODEL_CALL.config(RecordSerDes(EnrichOutcome))


def enrich_document(
    context: DurableContext,
    doc: DocumentRef,
    found: Classification,
    plan: list[list[int]],
    waiting_for_job: Callable[[int], None],
) -> Enrichment:
    """`waiting_for_job(seconds)` is told, before a pile document's wait for its batch job,
    how long that wait may last (the orchestrator records the `enriching` status)."""
    facts = facts_of(found)
    prepared = context.step(prepare_enrichment(doc, facts, plan), "enrich", PLAN_STEP)
    if prepared.answered is not None:  # the rules engine answered in the step itself
        return enriched_part(prepared.answered, prepared.answered.usage)
    usage: dict[str, int] = {}
    if prepared.batch_key:
        waiting_for_job(prepared.pile_timeout_s)
        done = from_pile(context, doc, prepared)
        usage = add_usage(usage, done.usage)
        if done.ok:
            return enriched_part(done, usage)
        # The on-demand path below records why (a checkpointed value: the callback's result).
        why = done.reason or "batch-unanswered"
        prepared = replace(prepared, on_demand_reason=why)
    answer = EnrichOutcome(False)
    for call in (1, 2):  # the second call's answer is always the last word
        admission = admit(context, prepared, call) if prepared.budget else None
        if admission is not None and not admission.admitted:
            name = "enrich over budget"
            over = give_up(doc, prepared.engine, "budget", prepared.risk)
            return enriched_part(context.step(over, name, OUTCOME_STEP), usage)
        answer = context.step(
            call_model(doc, facts, plan, prepared, admission, call),
            name=f"enrich model {call}",
            config=MODEL_STEP,
        )
        usage = add_usage(usage, answer.usage)
        if answer.shown is not None:
            break
    return enriched_part(answer, usage)


def admit(context: DurableContext, prepared: EnrichPlan, call: int) -> Admission:
    """Reserve the call's tokens, waiting durably for the window the budget gives."""
    admission = Admission(admitted=False, window=0, wait_s=0, tokens=0)
    for round_ in range(MAX_ROUNDS):
        admission = context.step(
            admit_call(prepared.model, prepared.budget, prepared.estimate),
            name=f"enrich admit {call}.{round_}",
            config=ADMIT_STEP,
        )
        if admission.never:
            break
        if admission.wait_s:
            context.wait(
                Duration.from_seconds(admission.wait_s),
                name=f"enrich budget wait {call}.{round_}",
            )
        if admission.admitted:
            break
    return admission


def from_pile(context: DurableContext, doc: DocumentRef, prepared: EnrichPlan) -> EnrichOutcome:
    """Wait for the batcher; the result's `ok` says whether the on-demand path is needed."""
    from docflow.piles import pool  # present: the `enrich` step checkpointed a batch key

    try:
        raw = context.wait_for_callback(
            # The SDK types a submitter as returning None; its submitter step checkpoints what
            # this one returns (the pool's registration), as it always has.
            lambda callback_id, _ctx: pool.register(  # type: ignore[arg-type]  # returns a value
                doc, callback_id, prepared.batch_key, prepared.pile
            ),
            name="enrich batch",
            config=WaitForCallbackConfig(timeout=Duration.from_seconds(prepared.pile_timeout_s)),
        )
    except CallbackError as exc:
        context.logger.warning("pile path ended, going on-demand", extra={"error": str(exc)[:200]})
        return EnrichOutcome(False, reason="batch-wait-ended")
    try:
        # Checked below: an object whose status is ok; the step holds its enrichment to the
        # schema, whoever wrote it.
        result: PileResult = json.loads(raw) if raw else {}
    except ValueError:
        result = {"status": "on-demand", "reason": "unreadable-callback-result"}
    if not isinstance(result, dict) or result.get("status") != "ok":
        reason = result.get("reason") if isinstance(result, dict) else "not-an-object"
        context.logger.info("batch sent the document on-demand", extra={"reason": reason})
        return EnrichOutcome(False, reason=str(reason or "not-an-object"))
    risk = prepared.risk  # the risk stage as the rules had it when the wait began
    done = context.step(record_batch_answer(doc, result, risk), "enrich batch result", OUTCOME_STEP)
    return done if done.ok else replace(done, reason="invalid-answer")


def leave_pile_on_failure(context: DurableContext, doc: DocumentRef) -> None:
    """A pile document that fails before its enrich step never registers in the pool: say so
    to its pile, so the others need not wait the maximum for it. Decided from the key (the
    execution's input); a pool that cannot be reached only costs that wait."""
    from docflow.settings import load_settings

    if not in_pile_folder(doc, load_settings()):
        return
    try:
        context.step(leave_pile(doc), name="leave the pile")
    except DurableOperationError as exc:
        context.logger.warning("pile not told of the failure", extra={"error": str(exc)[:200]})


class Enriching(TypedDict):
    enrichment: EnrichmentNote


def batch_wait(seconds: int) -> Enriching:
    """The `enriching` report's payload: how long the wait for the batch job may last (the
    reconciler counts the document as quiet by design until then)."""
    return {"enrichment": {"mode": "batch", "status": "waiting", "waitSeconds": seconds}}


def enriched_part(done: EnrichOutcome, usage: dict[str, int]) -> Enrichment:
    """What the orchestrator takes from a checkpointed answer: the small part, the stages to
    add, the usage."""
    return Enrichment(done.shown or {}, done.stages, usage)


def enriched_into(run: RunState, enriched: Enrichment) -> RunState:
    """Pure: the run with the enrichment's summary and risk, the stages a high risk adds, what
    it spent; and the type's declared fields no label named that the enrichment's parties and
    dates fill (`enrich_fill.py`), which a person confirms at the `fields` stage."""
    usage = add_usage(run.usage, enriched.usage)
    found = enriched.for_summary.get("found")
    summary = run.summary.with_enrichment(enriched.for_summary)
    stages = (*run.stages, *enriched.stages)
    if summary.fields is not None:
        decl = runtime().rules.fields.for_type(summary.doc_type)
        fields, checks = fill_from_enrichment(summary.fields, decl, found)
        if checks:
            summary = replace(summary, fields=fields).with_checks(checks)
            stages = (*stages, *fields_stage(stages))
    return replace(run, summary=summary, stages=stages, usage=usage)


def add_usage(usage: Mapping[str, int], more: Mapping[str, int]) -> dict[str, int]:
    return {k: usage.get(k, 0) + more.get(k, 0) for k in sorted({*usage, *more})}
