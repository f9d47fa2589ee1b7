"""The business meaning of a run's operations, from the read model's reports.

A review stage is a `wait_for_callback` named `review-<stage index>` (a later round of the
same stage: `review-<i>-r<n>`, `docflow.pipeline.review_rounds`). The read model's
`pending-review` report for that stage index names the stage, its reviewers and when the
links went out; the decision report says who decided what and when. Copied here: stage name,
reviewer addresses, times, decisions. Never copied: link ids, comments, field values.

Heartbeats: the review page's GET sends one to the callback, but neither the execution history
nor the read model records them, so a trace cannot list them; it shows the heartbeat timeout
the stage was given instead.
"""

from __future__ import annotations

import re
from datetime import datetime

from docflow.readmodel.items import DocumentState, HistoryItem
from docflow.trace.shapes import StageMeaning
from docflow.trace.timeline import Operation, when

REVIEW_NAME = re.compile(r"^review-(\d+)(?:-r(\d+))?$")
DECISIONS = ("approved", "rejected")


def stage_reports(history: list[HistoryItem], run_id: str) -> dict[int, StageMeaning]:
    """Per stage index: what the read model knows about that stage in this run."""
    stages: dict[int, StageMeaning] = {}
    for report in history:
        if report.get("runId") != run_id:
            continue
        payload = report.get("payload") or {}
        index = payload.get("stageIndex")
        if not isinstance(index, int | float):
            continue
        stage = stages.setdefault(int(index), StageMeaning(stageIndex=int(index)))
        if report.get("status") == "pending-review":
            stage.setdefault("linkSentAt", report.get("at"))
            stage["stageName"] = payload.get("stageName")
            stage["reviewers"] = list(payload.get("reviewers") or [])
            stage["deadline"] = payload.get("reviewDeadline")
        elif report.get("status") in DECISIONS:
            stage["stageName"] = stage.get("stageName") or payload.get("stageName")
            stage["decision"] = report["status"]
            stage["decidedBy"] = payload.get("reviewer")
            stage["decidedAt"] = payload.get("decidedAt") or report.get("at")
            stage["decisionRecordedAt"] = report.get("at")
            stage["votes"] = [
                {"reviewer": v.get("reviewer"), "decision": v.get("decision"), "at": v.get("at")}
                for v in payload.get("votes") or []
            ]
    return stages


def stage_timeouts(state: DocumentState | None) -> dict[int, StageMeaning]:
    """The stages' configured timeouts, from the classified state (the history of the testing
    runner has no callback timeouts)."""
    out: dict[int, StageMeaning] = {}
    for index, stage in enumerate((state or DocumentState()).get("stages") or []):
        if isinstance(stage, dict):
            out[index] = StageMeaning(
                timeoutSeconds=stage.get("timeoutSeconds"),
                heartbeatSeconds=stage.get("heartbeatSeconds"),
            )
    return out


def join(
    ops: list[Operation],
    history: list[HistoryItem],
    state: DocumentState | None,
    run_id: str,
) -> None:
    """Attach `review` to every review stage's operation (and its callback child)."""
    stages = stage_reports(history, run_id)
    limits = stage_timeouts(state)

    def walk(level: list[Operation]) -> None:
        for op in level:
            found = REVIEW_NAME.match(op.name)
            if found and op.kind in ("wait-for-callback", "context"):
                index = int(found.group(1))
                review: StageMeaning = {
                    "stageIndex": index,
                    "round": int(found.group(2) or 0),
                    "stageName": None,
                    "reviewers": [],
                    "linkSentAt": None,
                    "deadline": None,
                    "heartbeats": None,
                    **limits.get(index, {}),
                    **stages.get(index, {}),
                }
                review["waitedSeconds"] = waited(op, review)
                op.review = review
            walk(op.children)

    walk(ops)


def waited(op: Operation, review: StageMeaning) -> float | None:
    """From the links going out (or the callback's start) to the decision (or the callback's
    end): how long the document sat with its reviewers."""
    start = when(review.get("linkSentAt")) or op.start
    end = when(review.get("decidedAt")) or op.end
    if start is None or end is None:
        return None
    return max((end - start).total_seconds(), 0.0)


def deadline_of(op: Operation, review: StageMeaning | None) -> datetime | None:
    if review and review.get("deadline"):
        return when(review["deadline"])
    timeout = op.timeout_s or (review or StageMeaning()).get("timeoutSeconds")
    if op.start and timeout:
        from datetime import timedelta

        return op.start + timedelta(seconds=int(timeout))
    return None
