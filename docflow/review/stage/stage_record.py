"""The stage record's stored shape (`STAGE#<runId>#<stage index>` in the links table), typed.

The item is updated in place by conditional expressions (a vote, a round, an ending, a
presence), never rewritten whole, so its type is the JSON shape DynamoDB hands back: a
TypedDict per nested record, with the attribute names the table has always used. Items read
with `as_stage_record`; nothing here changes a stored byte. (`records.py` says what each
attribute means.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, cast

from docflow.extract.checks.corrections import Correction, CorrectionSaid


class StoredVote(TypedDict, total=False):
    """One reviewer's vote, as `Decision.as_vote` writes it under `votes.<reviewer>`."""

    approved: bool
    comment: str
    rejectReason: str
    corrections: dict[str, Correction]
    docType: str
    parts: list[list[int]]
    addSupplier: bool
    at: str


class HistoryVote(TypedDict, total=False):
    """A vote as the history and a decision's `votes` list it: who, which way, when."""

    reviewer: str
    decision: str  # "approved" or "rejected"
    at: str
    comment: str
    rejectReason: str


class DecisionRecord(TypedDict, total=False):
    """What the history keeps of a stage's decision (`decision_history.decision_payload`), in
    the order it is written: the stage, its status, who decided, when, the votes, a triage
    pick, each corrected field with what it replaced, the reason. Later stages' reviewers
    see it among the earlier decisions."""

    stageIndex: int
    stageName: str
    decision: str  # the stage's status: approved, rejected, timed-out
    reviewer: str
    comment: str
    decidedAt: str
    rejectReason: str
    votes: list[HistoryVote]
    docType: str
    corrections: dict[str, CorrectionSaid]
    reason: str


class DecisionJson(TypedDict, total=False):
    """A decision's wire and storage shape (`Decision.to_json`), in the order it is written."""

    approved: bool
    reviewer: str
    comment: str
    decidedAt: str
    votes: list[HistoryVote]
    quorum: int
    rejectReason: str
    docType: str
    corrections: dict[str, Correction]
    parts: list[list[int]]
    addSupplier: bool


class Ending(DecisionJson, total=False):
    """How the stage ended: `how` (decided, timed-out, superseded), and for a decision the
    decision's JSON; `at` when it was written, `byRun` the superseding run."""

    how: str
    at: int
    byRun: str


class Presence(TypedDict):
    """Who is looking at the stage's document (`claim`), in epoch seconds."""

    reviewer: str
    since: int
    until: int


class StageIds(TypedDict):
    """Which document, run and stage a stage record is of (`StageStore.create`)."""

    documentId: str
    runId: str
    runOrder: str
    stageIndex: int
    stageName: str


class StageRecord(TypedDict, total=False):
    pk: str
    documentId: str
    runId: str
    runOrder: str
    stageIndex: int
    stageName: str
    reviewers: list[str]
    quorum: int
    rejectLimit: int
    quorumSet: bool
    approvals: int
    rejections: int
    votes: dict[str, StoredVote]
    links: list[str]
    deadline: int
    expiresAt: int
    callbackId: str
    round: int
    roundEndsAt: int
    ending: Ending
    woken: bool
    claim: Presence


class Tally(TypedDict):
    """Where a stage's votes stand (`records.tally`)."""

    approvals: int
    rejections: int
    quorum: int
    reviewers: int
    needed: int
    decided: str  # "approved", "rejected" or ""


def as_stage_record(item: Mapping[str, Any] | None) -> StageRecord:
    """A stage record as the table handed it back ({} when there is none)."""
    return cast("StageRecord", item if item is not None else {})
