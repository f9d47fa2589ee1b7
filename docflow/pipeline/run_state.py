"""What the orchestrator carries from classify to the end of the run, in one record instead of
loose variables: the document's summary (`docflow.document.DocumentSummary`: fields corrected,
a triage pick's type), the stages to run, what the run spent so far, the page plan a triage
pick's extraction reads, the decisions recorded so far, and whether a reviewer asked to
propose the issuer as a supplier.

A pure record: each part of the route returns a new one (`dataclasses.replace`) built from
checkpointed values only, so a replay builds the same state. The flows (`docflow.flows`) say
what changes it; this module only says what it holds and how a reviewer is shown it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from docflow.document import DocumentSummary
from docflow.pipeline.einvoice_read import EInvoiceRead
from docflow.pipeline.results import Classification, Split
from docflow.review.stage.for_review import ForReview, RouteStep
from docflow.review.stage.stage_record import DecisionRecord
from docflow.rules.routed import RoutedStage, stages_json


@dataclass(frozen=True)
class RunState:
    summary: DocumentSummary
    stages: tuple[RoutedStage, ...]
    usage: Mapping[str, int]  # model tokens, AnalyzeExpense pages
    plan: list[list[int]]  # the split's page batches
    decided: tuple[DecisionRecord, ...] = ()  # the history's decision records
    add_supplier: bool = False  # a fields reviewer asked to register the issuer
    proposer: str = ""  # who asked: the proposal's proposer, whom its approver must not be
    # The learned layout's shadow read (field -> value), checkpointed by the extract step and
    # kept out of the summary a reviewer sees; the learn step grades it.
    shadow: Mapping[str, str | None] = field(default_factory=dict)

    @classmethod
    def classified(
        cls, found: Classification, split: Split, einvoice: EInvoiceRead | None = None
    ) -> RunState:
        """The run as classify left it: its summary (with the split's active content and the
        e-invoice's small object, if any) and the classifier's stages; nothing spent yet."""
        summary = replace(
            found.document(),
            active_content=split.active_content,
            einvoice=einvoice.shown() if einvoice else None,
        )
        return cls(summary, tuple(found.stages), {}, split.plan)

    def with_stages(self, more: Iterable[RoutedStage]) -> RunState:
        return replace(self, stages=(*self.stages, *more))

    def with_decided(self, record: DecisionRecord) -> RunState:
        return replace(self, decided=(*self.decided, record))

    @property
    def classified_report(self) -> dict[str, Any]:
        """The `classified` report's payload: the summary and the route."""
        return {**self.summary.to_json(), "stages": stages_json(self.stages)}

    def for_reviewer(self) -> ForReview:
        """What a reviewer is shown besides the document: the summary, the route (each stage
        and the rule that put it there) and the earlier stages' decisions."""
        route = tuple(RouteStep(name=s.name, because=s.why) for s in self.stages)
        return ForReview(self.summary, route, self.decided)
