"""The `enrich` step's checkpoint as a record: how the document will be enriched (the engine,
the budget and the request's estimate, the pile's batch input and wait, the risk stage as the
rules named it when the plan was made), or the rules engine's answer, given in the step itself.

`to_json()` is exactly the dict the step returned before this type existed (the same keys, in
the same order, each only when it was set), so recorded executions replay.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal, NotRequired, Required, TypedDict, final

from docflow.document.shown import EnrichShown
from docflow.piles.manifest import PileJson
from docflow.rules.routed import RoutedStage, RoutedStageJson, stages_from_json, stages_json
from docflow.rules.stage_json import StageJson

# `risk` of a plan that carries no risk stage (made before plans carried one): the steps read
# the rules file when the enrichment ends.
FROM_RULES: Final = "from-rules"
# The risk stage a plan carries: the rules' (`Stage.to_dict()`), None (the rules name none),
# or FROM_RULES.
RiskStage = StageJson | None | Literal["from-rules"]


@final
class EnrichPlanJson(TypedDict, total=False):
    """The `enrich` step's plan, each key but the first two only when it was set
    (`EnrichPlan.to_json`)."""

    engine: Required[str]
    budget: Required[int]
    riskStage: StageJson | None
    onDemandReason: str
    requestKey: str
    estimate: int
    model: str
    batchKey: str
    pileTimeoutS: int
    pile: PileJson | None


@final
class EnrichOutcomeJson(TypedDict):
    """A step's word on the enrichment (`EnrichOutcome.to_json`): the last word's small part
    and stages, or why it is not the last word and its problems."""

    ok: bool
    reason: NotRequired[str]
    problems: NotRequired[list[str]]
    shown: NotRequired[EnrichShown]
    stages: NotRequired[list[RoutedStageJson]]
    usage: dict[str, int]


@dataclass(frozen=True)
class EnrichPlan:
    engine: str = ""
    budget: int = 0  # tokens per minute; 0: no budget to ask (the rules engine, a pile only)
    risk: RiskStage = FROM_RULES
    on_demand_reason: str = ""  # why a pile document goes on-demand
    request_key: str = ""  # the model request in S3 (bedrock)
    estimate: int = 0  # its tokens, as the budget is asked for them
    model: str = ""
    batch_key: str = ""  # a pile document's batch record input in S3
    pile_timeout_s: int = 0  # how long it waits for its batch job
    pile: PileJson | None = None  # {"name", "expected"}, None when unknown
    # False for a plan made before plans carried the pile's size (its checkpoint has no key).
    pile_recorded: bool = True
    # The rules engine's answer (free, deterministic): made in the plan's own step.
    answered: EnrichOutcome | None = None

    def to_json(self) -> EnrichPlanJson | EnrichOutcomeJson:
        if self.answered is not None:
            return self.answered.to_json()
        out: EnrichPlanJson = {"engine": self.engine, "budget": self.budget}
        if not isinstance(self.risk, str):
            out["riskStage"] = self.risk
        if self.on_demand_reason:
            out["onDemandReason"] = self.on_demand_reason
        if self.request_key:
            out |= {"requestKey": self.request_key, "estimate": self.estimate}
            out["model"] = self.model
        if self.batch_key:
            out |= {"batchKey": self.batch_key, "pileTimeoutS": self.pile_timeout_s}
            if self.pile_recorded:
                out["pile"] = self.pile
        return out

    @classmethod
    def from_json(cls, raw: EnrichPlanJson | EnrichOutcomeJson) -> EnrichPlan:
        if "engine" not in raw:  # the rules engine's answer, given in the plan's own step
            return cls(answered=EnrichOutcome.from_json(raw))
        return cls(
            engine=str(raw["engine"]),
            budget=int(raw["budget"]),
            risk=raw.get("riskStage", FROM_RULES),
            on_demand_reason=str(raw.get("onDemandReason", "")),
            request_key=str(raw.get("requestKey", "")),
            estimate=int(raw.get("estimate", 0)),
            model=str(raw.get("model", "")),
            batch_key=str(raw.get("batchKey", "")),
            pile_timeout_s=int(raw.get("pileTimeoutS", 0)),
            pile=raw.get("pile"),
            pile_recorded="pile" in raw,
        )


@dataclass(frozen=True)
class EnrichOutcome:
    """A step's word on the enrichment (`enrich model <c>`, `enrich batch result`, `enrich over
    budget`, or the rules engine's in the plan's step). The last word has `shown` (the small
    part the summary takes) and the risk `stages` it adds; `ok` says whether it is complete.
    Not the last word (`shown` None: a first invalid answer, an invalid batch answer) says why
    and the problems, and the caller asks again. `usage` is what it spent, as the meter counts."""

    ok: bool
    usage: dict[str, int] = field(default_factory=dict)
    shown: EnrichShown | None = None
    stages: tuple[RoutedStage, ...] = ()
    reason: str = ""
    problems: tuple[str, ...] = ()

    def to_json(self) -> EnrichOutcomeJson:
        if self.shown is None:
            problems = list(self.problems)
            return {"ok": self.ok, "reason": self.reason, "problems": problems, "usage": self.usage}
        stages = stages_json(self.stages)
        return {"ok": self.ok, "shown": self.shown, "stages": stages, "usage": self.usage}

    @classmethod
    def from_json(cls, raw: EnrichOutcomeJson) -> EnrichOutcome:
        usage = {str(k): int(v) for k, v in (raw.get("usage") or {}).items()}
        if "shown" not in raw:
            problems = tuple(str(p) for p in raw.get("problems") or ())
            return cls(bool(raw["ok"]), usage, reason=str(raw.get("reason", "")), problems=problems)
        return cls(bool(raw["ok"]), usage, raw["shown"].copy(), stages_from_json(raw["stages"]))
