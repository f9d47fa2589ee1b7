"""Triage: a document the classifier could not place (or was unsure of) waits at the `triage`
stage for a person to pick its type; this module turns the pick into the rest of the run.

- `offer_types` (inside the classify step): the triage stage carries `choices`, the rules
  file's type names, so the page, the callback API and `Decision.parse` check a pick against
  the same checkpointed list, and `routes`, each type's review stages (with their reviewers
  and timeouts) and whether it has fields, as the rules file said when the document started.
- `after_triage` (`docflow.flows.triage`, after an approved triage stage): the document takes the
  picked type; the step `route after triage` takes that type's stages from the checkpointed
  `routes` (a rules file changed while the document waited at triage applies to documents
  that start after it, not to this one; a run started before `routes` existed reads the rules
  file, as it always did), and `extract after triage` reads its fields when it has any. Both
  are steps, so a replay uses their checkpoints. The type's stages and
  the extraction's `fields` stage join the stages still to run; stages the classifier planned
  for a type it guessed (and that guess's fields) are dropped when the reviewer picked another.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig

from docflow.pipeline.results import Classification, Route
from docflow.pipeline.serdes import RecordSerDes
from docflow.rules.routed import RoutedStage, RoutesJson
from docflow.runtime import runtime

# Stages planned for the classified type; a different pick replaces them.
TYPE_STAGES = ("type", "fields")
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


def routes_by_type(rules: Any) -> RoutesJson:
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
def route_for_type(step: StepContext, doc_type: str, routes: RoutesJson | None = None) -> Route:
    """The picked type's own review stages and whether it has fields: from the routes the
    classify step checkpointed, or (a run started before it did) from the rules file."""
    if routes is None:
        rules = runtime().rules
        routes = routes_by_type(rules)
    names = routes["types"].get(doc_type, [])
    stages = [replace(RoutedStage.from_json(routes["stages"][n]), because="type") for n in names]
    step.logger.info("type picked at triage", extra={"docType": doc_type, "stages": list(names)})
    return Route(tuple(stages), doc_type in routes["extract"])
