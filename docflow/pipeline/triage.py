"""Triage: a document the classifier could not place (or was unsure of) waits at the `triage`
stage for a person to pick its type; this module turns the pick into the rest of the run.

- `offer_types` (inside the classify step): the triage stage carries `choices`, the rules
  file's type names, so the page, the callback API and `Decision.parse` check a pick against
  the same checkpointed list, and `routes`, each type's review stages (with their reviewers
  and timeouts) and whether it has fields, as the rules file said when the document started.
- `after_triage` (in the orchestrator, after an approved triage stage): the document takes the
  picked type; the step `route after triage` takes that type's stages from the checkpointed
  `routes` (a rules file changed while the document waited at triage applies to documents
  that start after it, not to this one; a run started before `routes` existed reads the rules
  file, as it always did), and `extract after triage` reads its fields when it has any. Both
  are steps, so a replay uses their checkpoints. The type's stages and
  the extraction's `fields` stage join the stages still to run; stages the classifier planned
  for a type it guessed (and that guess's fields) are dropped when the reviewer picked another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig

from docflow.ids import DocumentRef
from docflow.pipeline.extract import EXTRACT_STEP, SUPPLIER_KEYS, extract_fields, with_fields
from docflow.pipeline.results import Classification, Route
from docflow.pipeline.run_state import RunState
from docflow.pipeline.serdes import RecordSerDes
from docflow.review.stage.decision import Decision
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime

# Stages planned for the classified type; a different pick replaces them.
_TYPE_STAGES = ("type", "fields")
ROUTE_STEP = StepConfig(serdes=RecordSerDes(Route))


def offer_types(found: Classification, rules: Any) -> Classification:
    """Pure: the classification with its triage stage (if any) carrying the types to pick."""
    name = getattr(rules, "triage_stage", None)
    if not name or not any(s.name == name for s in found.stages):
        return found
    choices = [t.name for t in rules.types]
    routes = routes_by_type(rules)
    stages = tuple(s.offering(choices, routes) if s.name == name else s for s in found.stages)
    return replace(found, stages=stages)


def routes_by_type(rules: Any) -> dict[str, Any]:
    """Pure: what a pick of each type would add, as the rules say now: `{"types": {type:
    [stage name]}, "stages": {name: stage}, "extract": [types with fields]}` (each stage once)."""
    names = {t.name: list(t.stages) for t in rules.types}
    used = sorted({n for stage_names in names.values() for n in stage_names})
    return {
        "types": names,
        "stages": {n: rules.stages[n].to_dict() for n in used},
        "extract": sorted(t for t in names if t in rules.fields.types),
    }


@durable_step
def route_for_type(
    step: StepContext, doc_type: str, routes: Mapping[str, Any] | None = None
) -> Route:
    """The picked type's own review stages and whether it has fields: from the routes the
    classify step checkpointed, or (a run started before it did) from the rules file."""
    if routes is None:
        rules = runtime().rules
        routes = routes_by_type(rules)
    names = routes["types"].get(doc_type, [])
    stages = [replace(RoutedStage.from_json(routes["stages"][n]), because="type") for n in names]
    step.logger.info("type picked at triage", extra={"docType": doc_type, "stages": list(names)})
    return Route(tuple(stages), doc_type in routes["extract"])


def after_triage(
    context: DurableContext, doc: DocumentRef, run: RunState, index: int, decision: Decision
) -> RunState:
    """The run after triage stage `index` approved `decision`: the picked type, its stages and
    fields, what its extraction spent.

    Control flow on checkpointed values only (the decision, the two steps' results).
    """
    summary, stages, usage = run.summary, run.stages, run.usage
    chosen, was = decision.doc_type, str(summary.get("docType", ""))
    picked = {"from": was, "docType": chosen, "by": decision.reviewer, "at": decision.decided_at}
    if chosen == was:  # the classifier's guess stands: its stages and fields already run
        return replace(run, summary={**summary, "triage": picked})
    summary = {**summary, "docType": chosen, "triage": picked}
    if "fields" in summary:  # the guess's fields: none of them hold for the picked type
        summary = {k: v for k, v in summary.items() if k not in SUPPLIER_KEYS}
        summary = {**summary, "fields": {}, "fieldChecks": []}
    routes = stages[index].routes  # checkpointed at classify (None: an older run)
    route = context.step(route_for_type(chosen, routes), "route after triage", ROUTE_STEP)
    added: list[RoutedStage] = []
    if route.extract:
        extracted = context.step(
            extract_fields(doc, chosen, run.plan), "extract after triage", EXTRACT_STEP
        )
        summary, added = with_fields(summary, extracted), list(extracted.stages)
        usage = _add(usage, extracted.usage or {})
    later = [s for s in stages[index + 1 :] if s.because not in _TYPE_STAGES]
    rest = _once([*route.stages, *later, *added])
    shadow = dict(extracted.shown.get("shadow") or {}) if route.extract else {}
    stages = [*stages[: index + 1], *rest]
    return replace(run, summary=summary, stages=stages, usage=usage, shadow=shadow)


def _once(stages: list[RoutedStage]) -> list[RoutedStage]:
    """Each stage once, where it first appears (a type's stage may already be planned)."""
    seen: set[str] = set()
    out = []
    for stage in stages:
        if stage.name not in seen:
            seen.add(stage.name)
            out.append(stage)
    return out


def _add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: int(a.get(k, 0)) + int(b.get(k, 0)) for k in sorted({*a, *b})}
