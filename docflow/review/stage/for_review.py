"""What a review link shows its reviewer besides the document, read back as one record.

A link carries the run's summary as JSON (`RunState.for_reviewer`: the document's summary, the
route with the rule that put each stage on it, the earlier stages' decisions, and for a
packet's split stage its proposal). The review page, the refusals and the notifier read it
here, by attribute, so a renamed key is a type error and not a page that silently shows less.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from docflow.document import DocumentSummary
from docflow.review.stage.split import SPLIT_KEY, split_of
from docflow.review.stage.stage_record import DecisionRecord
from docflow.review.stage.triage import CHOICES_KEY, choices_of

ROUTE_KEYS = ("route", "decisions", SPLIT_KEY, CHOICES_KEY)


class RouteStep(TypedDict):
    """One stage on the document's route and why it is there (the rule's `because`)."""

    name: str
    because: str


@dataclass(frozen=True)
class ForReview:
    """The summary a link carries: the document (`summary`), its route, the decisions the
    earlier stages made (as the read model's history has them), a split stage's proposal
    (`{"pages", "parts", "unsure", "planKey", "types"}`; None at any other stage) and a
    triage stage's types to pick from (none at any other stage)."""

    summary: DocumentSummary
    route: tuple[RouteStep, ...] = ()
    decisions: tuple[DecisionRecord, ...] = ()
    split: Mapping[str, Any] | None = None
    choices: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """As links have always stored it: the summary's JSON, then the route and the
        decisions, then a split's proposal or a triage's choices."""
        out = {
            **self.summary.to_json(),
            "route": [dict(step) for step in self.route],
            "decisions": list(self.decisions),
        }
        if self.split is not None:
            out[SPLIT_KEY] = self.split
        if self.choices:
            out[CHOICES_KEY] = list(self.choices)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any] | None) -> ForReview:
        raw = raw or {}
        route = raw.get("route")
        return cls(
            summary=DocumentSummary.from_json(
                {k: v for k, v in raw.items() if k not in ROUTE_KEYS}
            ),
            route=tuple(
                RouteStep(name=str(s.get("name") or ""), because=str(s.get("because") or ""))
                for s in (route if isinstance(route, list) else [])
                if isinstance(s, Mapping)
            ),
            decisions=tuple(
                cast("DecisionRecord", d)
                for d in raw.get("decisions") or []
                if isinstance(d, Mapping)
            ),
            split=split_of(raw) or None,
            choices=tuple(choices_of(raw)),
        )

    def because(self, index: int) -> str:
        """Why the stage at `index` is on the route, or "" for one the route does not name."""
        return self.route[index]["because"] if 0 <= index < len(self.route) else ""

    @property
    def sent_for_sensitive(self) -> bool:
        """A stage of its route is there because a detector found sensitive data."""
        return any(step["because"] == "sensitive" for step in self.route)
