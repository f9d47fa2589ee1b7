"""What the history keeps of a stage's decision, built once for both writers of it: the callback
API (at once, when the decision is made) and the orchestrator (when the execution reads it).
Both reports carry the same event id, so the second is a duplicate, and they must say the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docflow.extract.checks.corrections import describe_corrections
from docflow.review.stage.decision import Decision
from docflow.review.stage.stage_record import DecisionRecord


def decision_payload(
    stage_index: int,
    stage_name: str,
    status: str,
    reason: str,
    decision: Decision | None,
    fields: Mapping[str, Any],
) -> DecisionRecord:
    """Who decided, when, the votes, the reason, and each corrected field with the value it
    replaced (`fields`: the fields the reviewer saw). No decision: the stage ended without one."""
    payload = DecisionRecord(stageIndex=stage_index, stageName=stage_name, decision=status)
    if decision is not None:
        payload.update(decision.as_history())
        if decision.corrections:
            payload["corrections"] = describe_corrections(dict(fields), dict(decision.corrections))
    if reason:
        payload["reason"] = reason
    return payload
