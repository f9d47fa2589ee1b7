"""Triage: a document the classifier could not place (or was unsure of) waits at the `triage`
stage for a person to pick its type; this module turns the pick into the rest of the run.

- `offer_types` (inside the classify step): the triage stage carries `choices`, the rules
  file's type names, so the page, the callback API and `parse_decision` check a pick against
  the same checkpointed list.
- `after_triage` (in the orchestrator, after an approved triage stage): the document takes the
  picked type; the step `route after triage` reads that type's own review stages from the rules
  file, and `extract after triage` reads its fields when it has any. Both are steps, so a replay
  uses their checkpoints, never the rules file it happens to load then. The type's stages and
  the extraction's `fields` stage join the stages still to run; stages the classifier planned
  for a type it guessed (and that guess's fields) are dropped when the reviewer picked another.
"""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext, durable_step

from docflow.ids import DocumentRef
from docflow.pipeline.extract import EXTRACT_STEP, SUPPLIER_KEYS, extract_fields, with_fields
from docflow.runtime import runtime

# Stages planned for the classified type; a different pick replaces them.
_TYPE_STAGES = ("type", "fields")


def offer_types(result: dict[str, Any], rules: Any) -> dict[str, Any]:
    """Pure: the classification with its triage stage (if any) carrying the types to pick."""
    name = getattr(rules, "triage_stage", None)
    if not name or not any(s["name"] == name for s in result["stages"]):
        return result
    choices = [t.name for t in rules.types]
    stages = [{**s, "choices": choices} if s["name"] == name else s for s in result["stages"]]
    return {**result, "stages": stages}


@durable_step
def route_for_type(step: StepContext, doc_type: str) -> dict[str, Any]:
    """The picked type's own review stages and whether it has fields, from the rules file."""
    rules = runtime().classifier.rules  # type: ignore[attr-defined]
    spec = next((t for t in rules.types if t.name == doc_type), None)
    names = spec.stages if spec else ()
    stages = [{**rules.stages[n].to_dict(), "because": "type"} for n in names]
    step.logger.info("type picked at triage", extra={"docType": doc_type, "stages": list(names)})
    return {"stages": stages, "extract": doc_type in rules.fields.types}


def after_triage(
    context: DurableContext,
    doc: DocumentRef,
    summary: dict[str, Any],
    stages: list[dict[str, Any]],
    index: int,
    decision: dict[str, Any],
    plan: list[list[int]],
    usage: dict[str, int],
) -> dict[str, Any]:
    """`{"summary", "stages", "usage"}` after triage stage `index` approved `decision`.

    Control flow on checkpointed values only (the decision, the two steps' results).
    """
    chosen, was = str(decision["docType"]), str(summary.get("docType", ""))
    picked = {"from": was, "docType": chosen, "by": decision.get("reviewer", "")}
    picked["at"] = decision.get("decidedAt", "")
    if chosen == was:  # the classifier's guess stands: its stages and fields already run
        return {"summary": {**summary, "triage": picked}, "stages": stages, "usage": usage}
    summary = {**summary, "docType": chosen, "triage": picked}
    if "fields" in summary:  # the guess's fields: none of them hold for the picked type
        summary = {k: v for k, v in summary.items() if k not in SUPPLIER_KEYS}
        summary = {**summary, "fields": {}, "fieldChecks": []}
    route = context.step(route_for_type(chosen), name="route after triage")
    added: list[dict[str, Any]] = []
    if route["extract"]:
        extracted = context.step(
            extract_fields(doc, chosen, plan), "extract after triage", EXTRACT_STEP
        )
        summary, added = with_fields(summary, extracted), list(extracted["stages"])
        usage = _add(usage, extracted.get("usage", {}))
    later = [s for s in stages[index + 1 :] if s.get("because") not in _TYPE_STAGES]
    rest = _once([*route["stages"], *later, *added])
    return {"summary": summary, "stages": [*stages[: index + 1], *rest], "usage": usage}


def _once(stages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each stage once, where it first appears (a type's stage may already be planned)."""
    seen: set[str] = set()
    out = []
    for stage in stages:
        if stage["name"] not in seen:
            seen.add(stage["name"])
            out.append(stage)
    return out


def _add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: int(a.get(k, 0)) + int(b.get(k, 0)) for k in sorted({*a, *b})}
