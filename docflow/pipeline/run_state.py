"""What the orchestrator carries from classify to the end of the run, in one record instead of
loose variables: the document's summary (fields corrected, a triage pick's type), the stages to
run (a triage pick adds its type's), what the run spent so far, the page plan a triage pick's
extraction reads, and the decisions recorded so far.

Built right after classify (`classified`); each later part of the route adds what it found with
one call (`with_extracted`, `with_enrichment`, `with_stages`), on checkpointed values only, so
a replay builds the same state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from docflow.pipeline.einvoice_read import EInvoiceRead
from docflow.pipeline.enrich_fill import fields_stage, fill_from_enrichment
from docflow.pipeline.enrich_flow import add_usage
from docflow.pipeline.extract import with_fields
from docflow.pipeline.field_mask import sensitive_once
from docflow.pipeline.results import Classification, Enrichment, Extracted, Split
from docflow.pipeline.review_rounds import review_route
from docflow.rules.routed import RoutedStage, stages_json
from docflow.runtime import runtime


@dataclass
class RunState:
    summary: dict[str, Any]
    stages: list[RoutedStage]
    usage: dict[str, int]  # model tokens, AnalyzeExpense pages
    plan: list[list[int]]  # the split's page batches
    decided: list[dict[str, Any]] = field(default_factory=list)  # the history's records
    add_supplier: bool = False  # a fields reviewer asked to register the issuer
    proposer: str = ""  # who asked: the proposal's proposer, whom its approver must not be
    # The learned layout's shadow read (field -> value), checkpointed by the extract step and
    # kept out of the summary a reviewer sees; the learn step grades it.
    shadow: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def classified(
        cls, found: Classification, split: Split, einvoice: EInvoiceRead | None = None
    ) -> RunState:
        """The run as classify left it: its summary (with the split's active content and the
        e-invoice's small object, if any) and the classifier's stages; nothing spent yet."""
        shown = {"einvoice": einvoice.to_json()} if einvoice else {}
        summary = {**found.summary, **split.shown, **shown}
        return cls(summary, list(found.stages), {}, split.plan)

    def with_extracted(self, extracted: Extracted, privacy: Iterable[RoutedStage]) -> RunState:
        """The fields and the stages they add (`privacy`: the held-back IBAN stage, if it
        comes back); a masked field's privacy stage only once."""
        stages = sensitive_once([*self.stages, *extracted.stages, *privacy])
        summary = with_fields(self.summary, extracted)
        shadow = dict(extracted.shown.get("shadow") or {})
        usage = extracted.usage or {}
        return replace(self, summary=summary, stages=stages, usage=usage, shadow=shadow)

    def with_enrichment(self, enriched: Enrichment) -> RunState:
        """The summary and risk, the stages a high risk adds; and the type's declared fields
        no label named that the enrichment's parties and dates fill (`enrich_fill.py`), which
        a person confirms at the `fields` stage (`fields_stage`)."""
        usage = add_usage(self.usage, enriched.usage)
        shown = dict(enriched.for_summary)
        found = shown.pop("found", None)
        summary = {**self.summary, **shown}
        stages = [*self.stages, *enriched.stages]
        if "fields" in summary:
            decl = runtime().rules.fields.for_type(str(summary.get("docType") or ""))
            fields, checks = fill_from_enrichment(summary["fields"], decl, found)
            if checks:
                summary["fields"] = fields
                summary["fieldChecks"] = [*summary.get("fieldChecks", []), *checks]
                stages = [*stages, *fields_stage(stages)]
        return replace(self, summary=summary, stages=stages, usage=usage)

    def with_stages(self, more: Iterable[RoutedStage]) -> RunState:
        return replace(self, stages=[*self.stages, *more])

    @property
    def classified_report(self) -> dict[str, Any]:
        """The `classified` report's payload: the summary and the route."""
        return {**self.summary, "stages": stages_json(self.stages)}

    def for_reviewer(self) -> dict[str, Any]:
        """What a reviewer is shown besides the document: the summary, the route (each stage
        and the rule that put it there) and the earlier stages' decisions."""
        return {**self.summary, "route": review_route(self.stages), "decisions": list(self.decided)}
