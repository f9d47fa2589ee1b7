"""The trace's JSON as types: what `docflow trace --json` prints (report.JSON_SHAPE says it in
words for --help) and what the text and SVG drawings read.

TypedDicts, since the trace is built as JSON and printed as it is; `total=False` where a key
belongs to one kind of operation (a step's attempts, a wait's end, a callback's timeouts).
"""

from __future__ import annotations

from typing import TypedDict

from docflow.cost import CostEstimate


class ErrorJson(TypedDict):
    type: str
    message: str


class VoteJson(TypedDict):
    reviewer: str | None
    decision: str | None
    at: str | None


class StageMeaning(TypedDict, total=False):
    """What the read model knows of one review stage of a run, joined onto its wait."""

    stageIndex: int
    round: int
    stageName: str | None
    reviewers: list[str]
    linkSentAt: str | None
    deadline: str | None
    heartbeats: None  # not recorded
    timeoutSeconds: int | None
    heartbeatSeconds: int | None
    decision: str
    decidedBy: str | None
    decidedAt: str | None
    decisionRecordedAt: str | None
    votes: list[VoteJson]
    waitedSeconds: float | None


class AttemptJson(TypedDict):
    attempt: int
    start: str | None
    end: str | None
    error: ErrorJson | None
    nextAttemptDelaySeconds: int | None


class WaitJson(TypedDict):
    durationSeconds: int | None
    scheduledEnd: str | None


class CallbackJson(TypedDict):
    timeoutSeconds: int | None
    heartbeatTimeoutSeconds: int | None


class _OperationCore(TypedDict):
    id: str
    name: str
    kind: str
    status: str
    start: str | None
    end: str | None
    durationSeconds: float | None
    critical: bool
    error: ErrorJson | None
    children: list[OperationJson]


class OperationJson(_OperationCore, total=False):
    """OP: one durable operation and, by its kind, its attempts, wait, callback or review."""

    attempts: list[AttemptJson]
    wait: WaitJson
    callback: CallbackJson
    review: StageMeaning


class FlatOperation(OperationJson):
    """An OP with its depth under the run, as the drawings list operations one a row."""

    depth: int


class InvocationJson(TypedDict):
    start: str | None
    end: str | None
    error: ErrorJson | None


class ExecutionJson(TypedDict):
    arn: str | None
    name: str | None
    status: str
    start: str | None
    end: str | None
    durationSeconds: float | None
    error: ErrorJson | None
    events: int
    operations: int
    invocations: list[InvocationJson]


class ReadModelRow(TypedDict):
    at: str | None
    status: str | None
    stage: str | None
    cause: str | None


class Trace(TypedDict):
    """`docflow trace --json`: one run of one document."""

    documentId: str | None
    version: str | None
    runId: str
    status: str | None
    execution: ExecutionJson
    operations: list[OperationJson]
    criticalPath: list[str]
    open: list[str]
    cost: CostEstimate | None
    costLine: str | None
    readModel: list[ReadModelRow]
