"""A review stage as a run carries it: the rules' `Stage` plus what the run learned routing the
document there (`because`: the rule that routed it; a triage stage's `choices` and `routes`; a
packet's split stage's `split_pages`).

Every step that routes checkpoints its stages as `to_json()`, exactly the dict the steps built
before this type existed (the stage's own keys in `Stage.to_dict` order, then `because`,
`choices`, `routes`, `splitPages`, each only when it was set), so recorded executions replay.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypedDict

from docflow.rules.model import Stage
from docflow.rules.stage_json import StageJson


class RoutesJson(TypedDict):
    """What a triage pick of each type would add (`docflow.pipeline.triage.routes_by_type`):
    each type's stage names, each of those stages once, and the types with fields."""

    types: dict[str, list[str]]
    stages: dict[str, StageJson]
    extract: list[str]


class RoutedStageJson(StageJson, total=False):
    """A routed stage's JSON (`RoutedStage.to_json`): the stage's, then why it was routed and
    what a triage or split stage adds."""

    because: str
    choices: list[str]
    routes: RoutesJson
    splitPages: int


class PrivacyHeld(TypedDict):
    """The privacy stage classify held back for extraction to judge (only IBANs were found, on
    a type where the issuer's is expected): the stage as routed, and how many IBANs the
    detectors counted (`docflow.suppliers.route.issuer_iban_privacy` puts it back)."""

    stage: RoutedStageJson
    ibans: int


@dataclass(frozen=True)
class RoutedStage:
    stage: Stage
    because: str | None = None  # None only for a stage that never said (old or hand-made)
    choices: tuple[str, ...] | None = None  # a triage stage: the types a reviewer picks from
    # A triage stage: each type's stages and whether it has fields, as the rules said when the
    # document was classified (`docflow.pipeline.triage.routes_by_type`).
    routes: RoutesJson | None = None
    split_pages: int | None = None  # a packet's split stage: the page count a split covers

    @classmethod
    def of(cls, stage: Stage, because: str) -> RoutedStage:
        return cls(stage, because)

    @property
    def name(self) -> str:
        return self.stage.name

    @property
    def why(self) -> str:
        return self.because or ""

    def offering(self, choices: Iterable[str], routes: RoutesJson) -> RoutedStage:
        return replace(self, choices=tuple(choices), routes=routes)

    def to_json(self) -> RoutedStageJson:
        out = RoutedStageJson(**self.stage.to_dict())
        if self.because is not None:
            out["because"] = self.because
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.routes is not None:
            out["routes"] = self.routes.copy()
        if self.split_pages is not None:
            out["splitPages"] = self.split_pages
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> RoutedStage:
        choices = raw.get("choices")
        pages = raw.get("splitPages")
        return cls(
            stage=stage_from_dict(raw),
            because=None if raw.get("because") is None else str(raw["because"]),
            choices=None if choices is None else tuple(str(c) for c in choices),
            routes=raw.get("routes"),
            split_pages=None if pages is None else int(pages),
        )


def stage_from_dict(raw: Mapping[str, Any]) -> Stage:
    """The inverse of `Stage.to_dict` (keys it leaves out take the stage's defaults)."""
    return Stage(
        name=str(raw["name"]),
        reviewers=tuple(str(r) for r in raw["reviewers"]),
        timeout_seconds=int(raw["timeoutSeconds"]),
        heartbeat_seconds=int(raw.get("heartbeatSeconds") or 0),
        quorum=int(raw.get("quorum", 0)),
        remind_after_seconds=int(raw.get("remindAfterSeconds", 0)),
        max_reminders=int(raw.get("maxReminders", 0)),
        escalate_after_seconds=int(raw.get("escalateAfterSeconds", 0)),
        escalate_to=tuple(str(r) for r in raw.get("escalateTo", ())),
        notify=str(raw.get("notify", "each")),
        digest=tuple(str(r) for r in raw.get("digest", ())),
    )


def stages_json(stages: Iterable[RoutedStage]) -> list[RoutedStageJson]:
    return [s.to_json() for s in stages]


def stages_from_json(raw: Iterable[Mapping[str, Any]]) -> tuple[RoutedStage, ...]:
    return tuple(RoutedStage.from_json(s) for s in raw)
