"""What the enrich step shows of its answer: the small, masked part on the read model's state
and the review page (`shown`), and the review stage a high risk or an incomplete enrichment
adds (`risk_stages`). Both run inside the enrich steps, so what they decide is checkpointed.
"""

from __future__ import annotations

from docflow.document.shown import EnrichmentNote, EnrichShown
from docflow.enrich.schema import Enrichment
from docflow.pipeline.enrich_fill import KEPT
from docflow.pipeline.enrich_plan import FROM_RULES, RiskStage
from docflow.rules.routed import RoutedStage, stage_from_dict
from docflow.rules.stage_json import StageJson
from docflow.runtime import runtime

REASONS_SHOWN = 10  # the read model's report is at most 8 KiB; S3 keeps every reason
MESSAGE_SHOWN = 160


def risk_stage() -> StageJson | None:
    """The rules file's risk stage (None: the rules name none), to checkpoint with the plan."""
    rules = runtime().rules
    name = rules.risk_stage
    return rules.stages[name].to_dict() if name else None


def risk_stages(small: EnrichShown, risk: RiskStage = FROM_RULES) -> list[RoutedStage]:
    """The rules file's risk stage when the risk is high or the enrichment is incomplete.

    Its `because` carries the reasons with their pages (`risk: code (page n); ...`), which
    the review page shows in the route. Decided inside the step, so it is checkpointed.
    """
    spec = risk_stage() if isinstance(risk, str) else risk
    if not spec:
        return []
    how = small["enrichment"]
    if how["status"] != "complete":
        because = f"enrichment-incomplete: {how.get('reason', '')}"
    elif small["risk"]["level"] == "high":
        reasons = "; ".join(f"{r['code']} (page {r['page']})" for r in small["risk"]["reasons"])
        because = f"risk: {reasons}"
    else:
        return []
    return [RoutedStage(stage_from_dict(spec), because)]


def shown(enrichment: Enrichment | None, how: EnrichmentNote) -> EnrichShown:
    """The small part: on the read model's state and the review page (already masked)."""
    if enrichment is None:
        return {"enrichment": how}
    summary, risk = enrichment["summary"], enrichment["risk"]
    return {
        "summary": {"title": summary["title"], "abstract": summary["abstract"]},
        "risk": {
            "level": risk["level"],
            "reasons": [
                {"code": r["code"], "message": r["message"][:MESSAGE_SHOWN], "page": r["page"]}
                for r in risk["reasons"][:REASONS_SHOWN]
            ],
        },
        "enrichment": how,
        # For the declared fields no label named (`enrich_fill.py`); not kept in the summary.
        "found": {
            "parties": list(summary["parties"][:KEPT]),
            "keyDates": [d.copy() for d in summary["keyDates"][:KEPT]],
        },
    }
