"""The JSON shapes of the path for piles: the pool table's items, what each batcher step
checkpoints, and what a waiting document's callback receives.

They are TypedDicts, not classes: each is the dict the code always wrote (the same keys, in the
same order), so DynamoDB items and the batcher's checkpoints stay byte for byte what they were;
the types only say, in one place, which keys each shape has.
"""

from __future__ import annotations

from typing import Any, TypedDict

from docflow.enrich.schema import Enrichment


class RecordItem(TypedDict, total=False):
    """`record#<run id>`: one waiting document (pool.py's docstring walks its listings)."""

    pk: str
    kind: str
    runId: str
    documentId: str
    version: str
    key: str
    callbackId: str
    requestKey: str
    listing: str
    listedAt: str
    registeredAt: str
    seq: int
    pile: str  # only in a pile of known size
    jobName: str  # once claimed
    jobArn: str  # once sent
    outcome: str  # once done
    expiresAt: int


class JobItem(TypedDict, total=False):
    """`job#<name>`: one batch inference job, its counts and the batcher's wait for it."""

    pk: str
    kind: str
    jobName: str
    jobArn: str
    jobId: str
    status: str
    endStatus: str
    records: int
    modelId: str
    createdAt: str
    callbackId: str
    listing: str
    listedAt: str
    totalRecordCount: int
    processedRecordCount: int
    successRecordCount: int
    errorRecordCount: int
    inputTokenCount: int
    outputTokenCount: int


class PileItem(TypedDict, total=False):
    """`pile#<name>`: a pile of known size, how many it expects and how many are in."""

    pk: str
    kind: str
    pile: str
    expected: int
    registered: int
    withdrawn: int
    firstAt: str


class Registration(TypedDict):
    """The submitter's result: the record's number in the pool and the batcher it started."""

    runId: str
    seq: int
    new: bool
    batcher: str


class Withdrawal(TypedDict, total=False):
    withdrawn: bool
    batcher: str


class PoolLook(TypedDict):
    """`look at pool`: records a batcher may take now, and since when the oldest waits."""

    pending: int
    held: int
    oldest: str
    now: str


class OnDemandSent(TypedDict):
    onDemand: int
    completed: int


class Claim(TypedDict, total=False):
    """`claim-<job>`: how many records the job holds (0: none, `released` given back)."""

    job: str
    count: int
    released: int
    busy: bool
    recordsKey: str


class JobStarted(TypedDict):
    job: str
    jobArn: str
    jobId: str
    count: int


class JobPoll(TypedDict):
    """GetModelInvocationJob's answer, as the batcher's poll and stop steps keep it."""

    status: str
    records: int
    processed: int


class PartCollected(TypedDict):
    """`collect-<job>-<part>`: one input file's records settled, by outcome."""

    job: str
    part: int
    records: int
    outcomes: dict[str, int]
    completed: int
    input: str


class BatchLine(TypedDict, total=False):
    """One line of a job's `.jsonl.out`: the record's id and the model's output or error."""

    recordId: str
    modelInput: Any  # the Converse-shaped request the record was sent with
    modelOutput: Any  # the model's answer, held to the schema before use
    error: Any


class PileResult(TypedDict, total=False):
    """What a waiting document's callback receives: the enrichment, or on-demand and why."""

    status: str
    reason: str
    enrichment: Enrichment
    jobId: str
    usage: dict[str, int]


class JobCounts(TypedDict):
    """A job's counts as Bedrock's `manifest.json.out` gives them (0 where it has none)."""

    totalRecordCount: int
    processedRecordCount: int
    successRecordCount: int
    errorRecordCount: int
    inputTokenCount: int
    outputTokenCount: int


class JobFinished(JobCounts):
    """`finish_job`'s checkpoint: the job, how it ended, its counts."""

    job: str
    status: str


class JobDone(JobFinished):
    """A job in the batcher's result: its end, its id, its records and their outcomes."""

    jobId: str
    records: int
    outcomes: dict[str, int]


class BatcherResult(TypedDict, total=False):
    """The batcher's result: `refused` with a reason, or `done` with each job it ran and how
    many records went on-demand after waiting their maximum (`poolTimeouts`)."""

    name: str
    status: str
    reason: str
    jobs: list[JobDone]
    poolTimeouts: int


class JobEnded(TypedDict):
    """What the batcher's wait for a job receives: the job's end status, and who saw it."""

    status: str
    via: str  # "event" (the state-change event) or "submitter" (it ended before the wait)


class StateChange(TypedDict, total=False):
    job: str
    status: str
    ignored: str
    completed: bool
