"""The review hand-off (the wait_for_callback submitter) and reading the reviewer's answer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from aws_durable_execution_sdk_python.context import durable_wait_for_callback
from aws_durable_execution_sdk_python.types import WaitForCallbackContext

from docflow.extract.corrections import validate_corrections
from docflow.ids import DocumentRef
from docflow.readmodel.schema import make_report
from docflow.readmodel.transitions import PENDING_REVIEW
from docflow.review.stage.requests import ReviewRequest
from docflow.review.stage.triage import CHOICES_KEY, UNCLASSIFIABLE, type_problem
from docflow.runtime import runtime


@durable_wait_for_callback
def request_review(
    callback_id: str,
    ctx: WaitForCallbackContext,
    doc: DocumentRef,
    index: int,
    stage: dict[str, Any],
    summary: dict[str, Any],
    round_: dict[str, int] | None = None,
) -> None:
    """Runs as a step: one round of the stage (`review_stage.review_rounds`). Round 0 sends the
    links, then reports the document as pending review; a later round makes its callback the
    stage's current one and sends its reminder or escalation.

    Both halves are idempotent (the notifier keys its mail by stage, reviewer and kind; the
    report's event id is fixed by the stage index), so a retried submitter repeats nothing.
    The report names links by id only: the links themselves live in the reviewers' mailboxes.
    Raises `SupersededRun` (not retried) when a newer run of the document already exists, and
    `StageOver` (not retried) when a later round finds the stage already decided.
    """
    rt = runtime()
    r = round_ or {}
    if stage.get("choices"):
        # A triage stage: the types the reviewer picks from travel with the link.
        summary = {**summary, CHOICES_KEY: list(stage["choices"])}
    request = ReviewRequest(
        doc,
        index,
        stage,
        callback_id,
        summary,
        round=int(r.get("round", 0)),
        reminder=int(r.get("reminder", 0)),
        escalate=bool(r.get("escalate", 0)),
        wait_s=int(r.get("waitSeconds", 0)),
    )
    links = rt.notifier.request_review(request)
    if request.round:
        ctx.logger.info(
            "review round",
            extra={"stage": stage["name"], "round": request.round, "reminder": request.reminder},
        )
        return
    deadline = datetime.now(UTC) + timedelta(seconds=int(stage["timeoutSeconds"]))
    report = make_report(
        doc,
        PENDING_REVIEW,
        f"review-{index}",
        stage_index=index,
        payload={
            "stageIndex": index,
            "stageName": stage["name"],
            "reviewers": list(stage["reviewers"]),
            "reviewLinks": links,
            "reviewDeadline": deadline.isoformat(timespec="seconds"),
        },
    )
    rt.reporter.report(report)
    ctx.logger.info("review requested", extra={"stage": stage["name"], "reviewers": len(links)})


def parse_decision(raw: Any, choices: Sequence[str] | None = None) -> dict[str, Any]:
    """The callback's result as a decision. Anything but an explicit approval rejects.

    `choices`: the types a triage stage offers (None for any other stage). A triage approval
    must name one of them as `docType`; a type that is not offered, or a `docType` on any other
    stage, makes the decision invalid (a rejection), whoever sent it."""
    if isinstance(raw, bytes | bytearray):
        raw = raw.decode("utf-8", "replace")
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
    if not isinstance(value, dict) or not isinstance(value.get("approved"), bool):
        return {"approved": False, "reviewer": "", "comment": "", "invalid": True}
    decision = {
        "approved": value["approved"],
        "reviewer": str(value.get("reviewer", ""))[:200],
        "comment": str(value.get("comment", ""))[:1000],
        "decidedAt": str(value.get("decidedAt", ""))[:40],
    }
    if not value["approved"] and value.get("rejectReason"):
        decision["rejectReason"] = str(value["rejectReason"])[:40]
    votes = _votes(value.get("votes"))
    if votes:
        decision["votes"] = votes
    return _with_type(_with_corrections(decision, value), value, choices)


def _with_type(
    decision: dict[str, Any], value: dict[str, Any], choices: Sequence[str] | None
) -> dict[str, Any]:
    """The triage pick, checked again here (the callback API checked it already)."""
    if choices is None:
        if "docType" in value:
            return {**decision, "approved": False, "invalid": True, "typeError": "not triage"}
        return decision
    if not decision["approved"]:
        # "None of these" is a rejection that archives the document as unclassifiable.
        if decision.get("rejectReason") == UNCLASSIFIABLE:
            return {**decision, UNCLASSIFIABLE: True}
        return decision
    problem = type_problem(value.get("docType"), choices, allow_none=False)
    if problem:
        return {**decision, "approved": False, "invalid": True, "typeError": problem}
    return {**decision, "docType": str(value["docType"])}


def _votes(raw: Any) -> list[dict[str, str]]:
    """Every vote of a stage, as the history records it: {reviewer, decision, at}."""
    if not isinstance(raw, list):
        return []
    out = []
    for vote in raw[:50]:
        if isinstance(vote, dict) and vote.get("decision") in ("approved", "rejected"):
            entry = {
                "reviewer": str(vote.get("reviewer", ""))[:200],
                "decision": str(vote["decision"]),
                "at": str(vote.get("at", ""))[:40],
            }
            extra = {k: str(vote[k])[:200] for k in ("comment", "rejectReason") if vote.get(k)}
            entry.update(extra)
            out.append(entry)
    return out


def _with_corrections(decision: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
    """`corrections: {field: value}` validated again here: the page validated them already, but
    a machine callback or a bug must not put an unchecked value into a finalized record. Any
    bad value makes the whole decision invalid (a rejection), never a partial approval."""
    if "corrections" not in value:
        return decision
    corrections, errors = validate_corrections({}, value["corrections"])
    if errors:
        return {**decision, "approved": False, "invalid": True, "correctionErrors": errors}
    return {**decision, "corrections": corrections}
