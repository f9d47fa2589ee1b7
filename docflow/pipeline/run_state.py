"""What the orchestrator carries through the review loop, in one record instead of loose
variables: the document's summary (fields corrected, a triage pick's type), the stages to run
(a triage pick adds its type's), what the run spent so far, the page plan a triage pick's
extraction reads, and the decisions recorded so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docflow.pipeline.review_stage import review_route


@dataclass
class RunState:
    summary: dict[str, Any]
    stages: list[dict[str, Any]]
    usage: dict[str, int]  # model tokens, AnalyzeExpense pages
    plan: list[list[int]]  # the split's page batches
    decided: list[dict[str, Any]] = field(default_factory=list)  # the history's records
    add_supplier: bool = False  # a fields reviewer asked to register the issuer
    proposer: str = ""  # who asked: the proposal's proposer, whom its approver must not be

    def for_reviewer(self) -> dict[str, Any]:
        """What a reviewer is shown besides the document: the summary, the route (each stage
        and the rule that put it there) and the earlier stages' decisions."""
        return {**self.summary, "route": review_route(self.stages), "decisions": list(self.decided)}
