"""What the history keeps of a stage's decision, built once for both writers of it: the callback
API (at once, when the decision is made) and the orchestrator (when the execution reads it).
Both reports carry the same event id, so the second is a duplicate, and they must say the same.
"""

from __future__ import annotations

from typing import Any

from docflow.extract.corrections import describe_corrections

# What a decision says of itself, when it says it. `docType`: a triage reviewer's pick.
_KEPT = ("reviewer", "comment", "decidedAt", "rejectReason", "votes", "docType")


def decision_payload(
    stage_index: int,
    stage_name: str,
    status: str,
    reason: str,
    decision: dict[str, Any],
    fields: dict[str, Any],
) -> dict[str, Any]:
    """Who decided, when, the votes, the reason, and each corrected field with the value it
    replaced (`fields`: the fields the reviewer saw)."""
    payload: dict[str, Any] = {"stageIndex": stage_index, "stageName": stage_name}
    payload["decision"] = status
    payload.update({k: decision[k] for k in _KEPT if decision.get(k)})
    if decision.get("corrections"):
        payload["corrections"] = describe_corrections(fields, decision["corrections"])
    if reason:
        payload["reason"] = reason
    return payload
