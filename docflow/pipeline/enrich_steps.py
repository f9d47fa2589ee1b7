"""The enrich steps' bodies (the control flow that runs them is `docflow.flows.enrich`).

    prepare_enrichment   picks the path from settings and the key, checkpointing the choice;
                         the rules engine finishes here (one operation in all)
    admit_call           asks the tokens-per-minute budget for a reservation
    call_model           one model call (the second if the first answer broke the schema),
                         settles the reservation, writes the result when it is the last word
    record_batch_answer  a pile document's batch answer, validated again and written
    give_up              an enrichment that could not be made (budget never admitted it)

Everything written goes to `storage.enrichment_key(doc)`, an immutable key under the document
version, so a step that runs twice writes the same object twice. What the steps return is
small and masked (no sensitive value from the text reaches a checkpoint or the read model).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, TypedDict

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig

from docflow import observability
from docflow.document.shown import EnrichmentNote
from docflow.enrich.base import EnrichAnswer, EnrichInput, PageText
from docflow.enrich.bedrock import BedrockEnricher
from docflow.enrich.budget import Admission, TokenBudget
from docflow.enrich.factory import build_enricher
from docflow.enrich.mask import mask_strings
from docflow.enrich.request import build_batch_model_input, build_request, estimate_tokens
from docflow.enrich.schema import validate_enrichment
from docflow.ids import DocumentRef
from docflow.piles import pool
from docflow.piles.manifest import PileJson, read_manifest
from docflow.piles.shapes import PileResult, Withdrawal
from docflow.pipeline.enrich_plan import FROM_RULES, EnrichOutcome, EnrichPlan, RiskStage
from docflow.pipeline.enrich_shown import risk_stage, risk_stages, shown
from docflow.pipeline.results import Classification
from docflow.pipeline.retries import Degrading
from docflow.pipeline.serdes import RecordSerDes
from docflow.readmodel.schema import now_iso
from docflow.rules.glued_digits import digits_apart
from docflow.runtime import runtime
from docflow.storage import (
    batch_manifest_key,
    enrich_batch_input_key,
    enrich_request_key,
    enrichment_key,
    page_text_key,
)

# The pages an engine reads: the first ones (title, parties, terms) and the last ones
# (signatures). The model's request is bounded again by characters (`request.MAX_CHARS`).
FIRST_PAGES = 20
LAST_PAGES = 2
# Step attempts of one model call; the last one degrades to review, never fails.
MODEL_CALL = Degrading(attempts=2, first_s=10, most_s=60)
ON_DEMAND, BATCH = "on-demand", "batch"
# Why a pile document enriched on-demand, when it was not the batch's answer (the pool's own
# reasons, docflow.piles.outcomes, come back in the callback result).
BELOW_MINIMUM = "below-batch-minimum"


def pile_manifest(doc: DocumentRef, settings: Any) -> PileJson | None:
    """The size of the pile `doc` is in ({"name", "expected"}), None when it is not known."""
    found = read_manifest(doc.bucket, doc.key, settings.pile_prefix)
    return found.to_dict() if found else None


def in_pile_folder(doc: DocumentRef, settings: Any) -> bool:
    """Whether `doc` is in a pile's folder (a pile that may have a manifest)."""
    rest = doc.key.removeprefix(settings.pile_prefix)
    return rest != doc.key and "/" in rest.strip("/")


def pile_callback_timeout_s(settings: Any) -> int:
    """The pile path's callback timeout (how long a pile document waits for its batch job)."""
    return int(pool.callback_timeout_s(settings))


def _pages(doc: DocumentRef, plan: Sequence[Sequence[int]], pages: int) -> list[PageText]:
    store = runtime().store
    wanted = set(range(1, min(FIRST_PAGES, pages) + 1))
    wanted |= set(range(max(1, pages - LAST_PAGES + 1), pages + 1))
    found: list[PageText] = []
    for index, (first, last) in enumerate(plan):
        if not any(first <= n <= last for n in wanted):
            continue
        for page in store.get_json(batch_manifest_key(doc, index))["pages"]:
            if page["page"] in wanted:
                key = page.get("key") or page_text_key(doc, page["page"])
                text = store.get_text(key)
                if page.get("wordsKey"):  # digits the text glued, apart as the words are
                    words = store.get_json(page["wordsKey"]).get("words", [])
                    text = digits_apart(text, (str(row[0]) for row in words))
                found.append(PageText(int(page["page"]), text))
    return sorted(found, key=lambda p: p.page)


def enrich_input(
    doc: DocumentRef, facts: Mapping[str, Any], plan: Sequence[Sequence[int]]
) -> EnrichInput:
    rules = runtime().rules
    return EnrichInput(
        pages=_pages(doc, plan, int(facts["pages"])),
        doc_type=str(facts.get("docType", "unknown")),
        sensitive=dict(facts.get("sensitive") or {}),
        review_on=tuple(rules.review_on),
        page_count=int(facts["pages"]),
    )


class Facts(TypedDict):
    """What the enrich steps need of the classify result (checkpointed values only)."""

    docType: str
    sensitive: dict[str, int]
    pages: int


def facts_of(found: Classification) -> Facts:
    return Facts(docType=found.doc_type, sensitive=found.sensitive, pages=found.reading["pages"])


PLAN_STEP = StepConfig(serdes=RecordSerDes(EnrichPlan))
ADMIT_STEP = StepConfig(serdes=RecordSerDes(Admission))
OUTCOME_STEP = StepConfig(serdes=RecordSerDes(EnrichOutcome))


@durable_step
def prepare_enrichment(
    step: StepContext, doc: DocumentRef, facts: Facts, plan: list[list[int]]
) -> EnrichPlan:
    rt = runtime()
    settings = rt.settings
    engine = rt.enricher or build_enricher(settings)
    pile_timeout = (
        pile_callback_timeout_s(settings) if doc.key.startswith(settings.pile_prefix) else None
    )
    pile, why = None, ""
    if pile_timeout is not None:
        pile = pile_manifest(doc, settings)
        if pile is not None and pile["expected"] < settings.pile_min_records:
            # A pile no job would take: on-demand now, not after the pool's maximum wait.
            pile_timeout, why = None, BELOW_MINIMUM
    document = enrich_input(doc, facts, plan)
    if engine.name != "bedrock" and pile_timeout is None:
        # Free and deterministic: no request, no budget, no second step.
        answer = engine.enrich(document)
        done = finish(doc, answer, ON_DEMAND, attempt=1, last=True, on_demand_reason=why)
        return EnrichPlan(answered=done)
    # The enrichment ends after a wait (the budget's, a batch job's): the risk stage it may add
    # is the one the rules name now, checkpointed, not the one they name when it ends.
    enrich_plan = EnrichPlan(engine.name, risk=risk_stage(), on_demand_reason=why)
    if engine.name == "bedrock":
        request = build_request(document.pages)
        rt.store.put_json(enrich_request_key(doc), request)
        enrich_plan = replace(
            enrich_plan,
            request_key=enrich_request_key(doc),
            estimate=estimate_tokens(request),
            model=settings.enrich_model_id,
            budget=settings.enrich_tokens_per_minute,
        )
    if pile_timeout is not None:
        rt.store.put_json(enrich_batch_input_key(doc), build_batch_model_input(document.pages))
        key = enrich_batch_input_key(doc)
        enrich_plan = replace(enrich_plan, batch_key=key, pile_timeout_s=pile_timeout, pile=pile)
    shown = {k: v for k, v in enrich_plan.to_json().items() if k != "model"}
    step.logger.info("enrichment planned", extra=shown)
    return enrich_plan


def _budget(model: str, limit: int) -> TokenBudget:
    rt = runtime()
    if rt.token_budget is not None:
        return rt.token_budget
    return TokenBudget(rt.settings.reader_lease_table, model, limit)


@durable_step
def admit_call(step: StepContext, model: str, limit: int, estimate: int) -> Admission:
    admission = _budget(model, limit).admit(estimate)
    if admission.wait_s or not admission.admitted:
        step.logger.info("token budget spent", extra=admission.to_dict())
    return admission


@durable_step
def call_model(
    step: StepContext,
    doc: DocumentRef,
    facts: Facts,
    plan: list[list[int]],
    prepared: EnrichPlan,
    admission: Admission | None,
    call: int,
) -> EnrichOutcome:
    """One engine answer; `call` is 1, or 2 when the first answer broke the schema."""
    rt = runtime()
    engine = rt.enricher or build_enricher(rt.settings)
    try:
        if isinstance(engine, BedrockEnricher) and prepared.request_key:
            answer = engine.answer(rt.store.get_json(prepared.request_key))
        else:
            answer = engine.enrich(enrich_input(doc, facts, plan))
    except Exception as exc:
        if not MODEL_CALL.last(step):
            raise
        failed = EnrichAnswer(engine.name, None, [f"{type(exc).__name__}: {str(exc)[:200]}"])
        return finish(
            doc,
            failed,
            ON_DEMAND,
            attempt=call,
            last=True,
            reason="engine-failed",
            on_demand_reason=prepared.on_demand_reason,
            risk=prepared.risk,
        )
    if admission and admission.admitted:
        spent = answer.usage.get("inputTokens", 0) + answer.usage.get("outputTokens", 0)
        _budget(prepared.model, prepared.budget).record(admission.window, admission.tokens, spent)
    last = answer.valid or call >= 2
    return finish(
        doc,
        answer,
        ON_DEMAND,
        attempt=call,
        last=last,
        reason="invalid-answer",
        on_demand_reason=prepared.on_demand_reason,
        risk=prepared.risk,
    )


@durable_step
def record_batch_answer(
    step: StepContext, doc: DocumentRef, result: PileResult, risk: RiskStage = FROM_RULES
) -> EnrichOutcome:
    """The batcher's callback result for this document (status ok), held to the schema: it
    came through a callback, so its enrichment is checked again, whoever wrote it."""
    enrichment = result.get("enrichment")
    problems = validate_enrichment(enrichment)
    usage = result.get("usage") or {}
    answer = EnrichAnswer(
        "bedrock",
        enrichment.copy() if enrichment is not None and not problems else None,
        problems,
        {
            "inputTokens": int(usage.get("inputTokens", 0)),
            "outputTokens": int(usage.get("outputTokens", 0)),
        },
    )
    # An invalid batch answer is not the last word: the on-demand path takes over.
    return finish(
        doc,
        answer,
        BATCH,
        attempt=1,
        last=answer.valid,
        job_id=str(result.get("jobId", "")),
        risk=risk,
    )


@durable_step
def leave_pile(step: StepContext, doc: DocumentRef) -> Withdrawal:
    """A pile document that failed before its enrich step: counted as in, so the rest of a
    pile of known size goes on without waiting the maximum for it."""
    settings = runtime().settings
    pile = pile_manifest(doc, settings)
    if pile is None or pile["expected"] < settings.pile_min_records:
        return {"withdrawn": False}  # size unknown, or a pile that never waited
    from docflow.piles.pool import withdraw

    return withdraw(doc, pile)


@durable_step
def give_up(
    step: StepContext, doc: DocumentRef, engine: str, reason: str, risk: RiskStage = FROM_RULES
) -> EnrichOutcome:
    answer = EnrichAnswer(engine, None, [reason])
    return finish(
        doc,
        answer,
        ON_DEMAND,
        attempt=0,
        last=True,
        reason=reason,
        risk=risk,
    )


def finish(
    doc: DocumentRef,
    answer: EnrichAnswer,
    mode: str,
    *,
    attempt: int,
    last: bool,
    reason: str = "",
    job_id: str = "",
    on_demand_reason: str = "",
    risk: RiskStage = FROM_RULES,
) -> EnrichOutcome:
    """Write the enrichment when this is the last word on it; return the small part.
    `on_demand_reason` says why a pile document was enriched on-demand.

    Not the last word (a first invalid answer, an invalid batch answer): nothing is written,
    the caller asks again. The small part is what the read model and review pages show.
    """
    usage = meter_usage(answer, mode)
    if not last:
        return EnrichOutcome(False, usage, reason=reason, problems=tuple(answer.problems[:5]))
    rt = runtime()
    status = "complete" if answer.valid else "incomplete"
    enrichment = mask_strings(answer.enrichment) if answer.valid else None
    how: EnrichmentNote = {
        "mode": mode,
        "engine": answer.engine,
        "status": status,
        "key": enrichment_key(doc),
    }
    if job_id:
        how["jobId"] = job_id
    if on_demand_reason and mode == ON_DEMAND:
        how["onDemandReason"] = on_demand_reason
    if not answer.valid:
        how["reason"] = reason
    rt.store.put_json(
        enrichment_key(doc),
        {
            **(enrichment or {}),
            "enrichment": how,
            "problems": answer.problems[:20],
            "attempt": attempt,
            "usage": answer.usage,
            "writtenAt": now_iso(),
        },
    )
    if answer.usage.get("inputTokens"):
        observability.count("EnrichInputTokens", answer.usage["inputTokens"], mode=mode)
    if answer.usage.get("outputTokens"):
        observability.count("EnrichOutputTokens", answer.usage["outputTokens"], mode=mode)
    small = shown(enrichment, how)
    return EnrichOutcome(answer.valid, usage, small, tuple(risk_stages(small, risk)))


def meter_usage(answer: EnrichAnswer, mode: str) -> dict[str, int]:
    """The enrichment's share of the run's cost (`docflow.cost.EXTRA_USAGE` keys)."""
    if answer.engine != "bedrock" or not answer.usage:
        return {}
    prefix = "bedrockBatch" if mode == BATCH else "bedrock"
    return {
        f"{prefix}Calls": 1,
        f"{prefix}InputTokens": int(answer.usage.get("inputTokens", 0)),
        f"{prefix}OutputTokens": int(answer.usage.get("outputTokens", 0)),
    }
