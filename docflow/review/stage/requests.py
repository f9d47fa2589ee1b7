"""The hand-off from a waiting execution to its reviewers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from docflow.ids import DocumentRef
from docflow.review.stage.for_review import ForReview
from docflow.rules.routed import RoutedStage


@dataclass(frozen=True)
class ReviewRequest:
    doc: DocumentRef
    stage_index: int
    stage: RoutedStage
    callback_id: str
    # What the review page shows, as the link stores it; read through `shown` (ForReview).
    summary: Mapping[str, object]
    # Which of the stage's waits this is (`docflow.pipeline.review_rounds`): round 0 asks the
    # reviewers; a later round registers its callback and sends that round's reminder and/or
    # escalation. `wait_s` is how long the round waits (0: the whole stage).
    round: int = 0
    reminder: int = 0
    escalate: bool = False
    wait_s: int = 0

    @cached_property
    def shown(self) -> ForReview:
        return ForReview.from_json(self.summary)

    @property
    def stage_name(self) -> str:
        return self.stage.name


class ReviewNotifier(Protocol):
    def request_review(self, request: ReviewRequest) -> list[dict[str, str]]:
        """Tell the stage's reviewers; idempotent. Returns `{"reviewer", "linkId"}` per
        reviewer: a link id names a link without being one, so it may be stored and shown."""
        ...
