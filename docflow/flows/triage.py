"""After an approved triage stage (docflow.pipeline.triage says why and how): the picked type's
durable operations,

    route after triage      the picked type's stages, from the routes classify checkpointed
    extract after triage    its fields, when it has any

and the run they leave: the picked type, its stages and fields, what its extraction spent."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from aws_durable_execution_sdk_python import DurableContext

from docflow.document import Triage
from docflow.ids import DocumentRef
from docflow.pipeline.extract import EXTRACT_STEP, extract_fields
from docflow.pipeline.run_state import RunState
from docflow.pipeline.triage import ROUTE_STEP, TYPE_STAGES, route_for_type
from docflow.review.stage.decision import Decision
from docflow.rules.routed import RoutedStage


def after_triage(
    context: DurableContext, doc: DocumentRef, run: RunState, index: int, decision: Decision
) -> RunState:
    """The run after triage stage `index` approved `decision`. Control flow on checkpointed
    values only (the decision, the two steps' results)."""
    summary, stages, usage = run.summary, run.stages, run.usage
    chosen = decision.doc_type
    picked = Triage(summary.doc_type, chosen, decision.reviewer, decision.decided_at)
    if chosen == summary.doc_type:  # the classifier's guess stands: its stages and fields ran
        return replace(run, summary=replace(summary, triage=picked))
    summary = summary.with_triage(picked)
    if summary.has_fields:  # the guess's fields: none of them hold for the picked type
        summary = summary.without_fields()
    routes = stages[index].routes  # checkpointed at classify (None: an older run)
    route = context.step(route_for_type(chosen, routes), "route after triage", ROUTE_STEP)
    added: tuple[RoutedStage, ...] = ()
    if route.extract:
        extracted = context.step(
            extract_fields(doc, chosen, run.plan), "extract after triage", EXTRACT_STEP
        )
        summary = summary.with_fields(extracted.fields, extracted.checks, extracted.shown)
        added, usage = extracted.stages, _add(usage, extracted.usage or {})
    later = [s for s in stages[index + 1 :] if s.because not in TYPE_STAGES]
    rest = _once([*route.stages, *later, *added])
    return replace(run, summary=summary, stages=(*stages[: index + 1], *rest), usage=usage)


def _once(stages: Iterable[RoutedStage]) -> list[RoutedStage]:
    """Each stage once, where it first appears (a type's stage may already be planned)."""
    seen: set[str] = set()
    out = []
    for stage in stages:
        if stage.name not in seen:
            seen.add(stage.name)
            out.append(stage)
    return out


def _add(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    return {k: int(a.get(k, 0)) + int(b.get(k, 0)) for k in sorted({*a, *b})}
