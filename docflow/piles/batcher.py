"""The batcher's step bodies: look at the pool, claim records into a job, start the job.

Every function here is one durable step of `batcher/app.py` and is safe to run again:
claims are conditional writes (pending -> claimed, for this job), a retried claim takes back
what it already holds, and the job is created with a client token equal to its deterministic
name, so a retried start finds the job it started instead of starting a second one. Reading
the job's answers is in `docflow.piles.collect`.

S3 layout (artifact bucket), per job:

    piles/jobs/<job>/records.json          the claimed records: run id and callback id
    piles/jobs/<job>/input/records-NNNNN.jsonl   {"recordId": <run id>, "modelInput": {...}}
                                                 a line, PART lines a file
    piles/jobs/<job>/output/<job id>/...         Bedrock's: records-NNNNN.jsonl.out a file,
                                                 manifest.json.out
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step
from botocore.exceptions import ClientError

from docflow import aws
from docflow.piles import sized
from docflow.piles.outcomes import ON_DEMAND, send_result
from docflow.piles.pool import CLAIMED, DONE, PENDING, SENT, Pool
from docflow.piles.shapes import (
    Claim,
    JobStarted,
    OnDemandSent,
    PileItem,
    PileResult,
    PoolLook,
    RecordItem,
)
from docflow.settings import load_settings
from docflow.storage import input_prefix, output_prefix, part_file, records_key

# Input files of at most PART records: Bedrock writes one output file per input file, and the
# batcher reads one part per step, so no step reads or answers more than PART records.
PART = 1000
_READERS = 16


def parts(count: int) -> int:
    return -(-count // PART)


def job_name(batcher: str, index: int) -> str:
    """Deterministic from the batcher's own (deterministic) name and the job's place in it."""
    return f"docflow-{batcher}-{index}"[:63]


class Holds:
    """Whether a pending record waits for the rest of its pile: a record of a pile of known
    size is held back from every batcher (not counted, claimed or sent on-demand) until the
    pile is complete or its first record has waited the maximum.

    The piles' counts are read before the records are listed (`holds`): a listing read first
    could miss the record whose registration completed the pile, and that record, left out of
    the pile's job, waited the maximum alone (one of 120 in a backfill did). A pile whose counts
    were not read (its first record came after) is held: the registration that completes it
    starts a batcher of its own."""

    def __init__(self, pool: Pool, max_wait_s: int, now: datetime, piles: set[str]) -> None:
        self.max_wait_s, self.now = max_wait_s, now
        self._open = {pile: self._filling(pool.pile(pile) or {}) for pile in sorted(piles)}

    def _filling(self, item: PileItem) -> bool:
        first = item.get("firstAt")
        overdue = bool(first) and self.now >= datetime.fromisoformat(str(first)) + timedelta(
            seconds=self.max_wait_s
        )
        return not sized.complete(item) and not overdue

    def held(self, record: RecordItem) -> bool:
        pile = record.get("pile")
        return bool(pile) and self._open.get(str(pile), True)


def holds(pool: Pool) -> Holds:
    """What holds the pending records back, read before the caller lists them."""
    piles = {str(r["pile"]) for r in pool.listed(PENDING) if r.get("pile")}
    return Holds(pool, load_settings().pile_max_wait_seconds, datetime.now(UTC), piles)


@durable_step
def look_at_pool(step: StepContext) -> PoolLook:
    """How many records a batcher may take now, and since when the oldest of them waits;
    records held for the rest of their pile are counted apart."""
    pool = Pool()
    held = holds(pool)
    free, waiting = [], 0
    for record in pool.listed(PENDING):
        if held.held(record):
            waiting += 1
        else:
            free.append(str(record.get("registeredAt", "")))
    return {
        "pending": len(free),
        "held": waiting,
        "oldest": min(free, default=""),
        "now": held.now.isoformat(timespec="microseconds"),
    }


@durable_step
def take_pool_wait(step: StepContext, holder: str, oldest_iso: str, max_wait_s: int) -> bool:
    """Whether this batcher is the one that waits for the small pool (until its oldest
    record's deadline, and a minute more for the wait's own slack)."""
    deadline = datetime.fromisoformat(oldest_iso) + timedelta(seconds=max_wait_s + 60)
    return Pool().take_wait(holder, int(deadline.timestamp()))


def seconds_until(oldest_iso: str, now_iso: str, max_wait_s: int) -> int:
    """How long the oldest record has left before it has waited `max_wait_s`."""
    oldest, now = datetime.fromisoformat(oldest_iso), datetime.fromisoformat(now_iso)
    return max(1, int(max_wait_s - (now - oldest).total_seconds()) + 1)


def shifted(iso: str, seconds: int) -> str:
    moved = datetime.fromisoformat(iso) + timedelta(seconds=seconds)
    return moved.isoformat(timespec="microseconds")


@durable_step
def send_small_pool_on_demand(step: StepContext, claimer: str, cutoff_iso: str) -> OnDemandSent:
    """Records registered at or before `cutoff_iso` waited their maximum: on-demand.

    Claimed first (so no batcher puts them in a job meanwhile), then answered, then done; a
    retry re-sends to callbacks already completed, which is not an error.
    """
    pool = Pool()
    held = holds(pool)
    mine = pool.of_job(CLAIMED, claimer)
    for record in pool.listed(PENDING):
        if record["registeredAt"] > cutoff_iso or held.held(record):
            continue  # listed by when it last moved; a released claim may be older
        if pool.move(record["runId"], PENDING, CLAIMED, jobName=claimer):
            mine.append(record)
    results = runtime_results(mine, {"status": ON_DEMAND, "reason": "pool-timeout"})
    for record in mine:
        pool.move(record["runId"], CLAIMED, DONE, job=claimer, outcome="pool-timeout")
    return {"onDemand": len(mine), "completed": results}


def runtime_results(records: list[RecordItem], result: PileResult) -> int:
    """Send one result to each record's callback; how many callbacks this call completed."""
    with ThreadPoolExecutor(_READERS) as threads:
        return sum(threads.map(lambda r: send_result(r["callbackId"], result), records))


@durable_step
def claim_job(step: StepContext, job: str) -> Claim:
    """Claim up to the job maximum of the oldest pending records for `job` and write its input.

    One batcher claims at a time (the claim lease): two batchers started together (the
    schedule's and a complete pile's) would otherwise split one pile into two halves, each
    below the minimum. The one that finds the lease held claims nothing and makes no job;
    the holder takes everything free. A pool that another batcher drained below the minimum
    meanwhile is released again (the claims go back to pending) and no job is made.
    """
    settings, pool = load_settings(), Pool()
    if not pool.take_claim(job):
        # An earlier attempt's claims (its lease lapsed meanwhile) go back for the holder.
        mine = pool.of_job(CLAIMED, job)
        for record in mine:
            pool.move(record["runId"], CLAIMED, PENDING, job=job, jobName="")
        return {"job": job, "count": 0, "released": len(mine), "busy": True}
    try:
        return _claim(settings, pool, job)
    finally:
        pool.drop_claim(job)


def _claim(settings: Any, pool: Pool, job: str) -> Claim:
    held = holds(pool)
    mine = pool.of_job(CLAIMED, job)
    if len(mine) < settings.pile_max_records:
        for record in pool.listed(PENDING):
            if held.held(record):
                continue
            if pool.move(record["runId"], PENDING, CLAIMED, jobName=job):
                mine.append(record)
                if len(mine) >= settings.pile_max_records:
                    break
    if len(mine) < settings.pile_min_records:
        for record in mine:
            pool.move(record["runId"], CLAIMED, PENDING, job=job, jobName="")
        return {"job": job, "count": 0, "released": len(mine)}
    mine.sort(key=lambda r: r["registeredAt"])
    store, bucket = aws.client("s3"), settings.artifact_bucket

    def line(record: RecordItem) -> str:
        body = store.get_object(Bucket=bucket, Key=record["requestKey"])["Body"].read()
        return json.dumps({"recordId": record["runId"], "modelInput": json.loads(body)})

    with ThreadPoolExecutor(_READERS) as threads:
        lines = list(threads.map(line, mine))
    for part in range(parts(len(lines))):
        body = "\n".join(lines[part * PART : (part + 1) * PART]) + "\n"
        store.put_object(
            Bucket=bucket, Key=input_prefix(job) + part_file(part), Body=body.encode("utf-8")
        )
    listing = [{"runId": r["runId"], "callbackId": r["callbackId"]} for r in mine]
    store.put_object(Bucket=bucket, Key=records_key(job), Body=json.dumps(listing).encode("utf-8"))
    return {"job": job, "count": len(mine), "recordsKey": records_key(job)}


@durable_step
def start_job(step: StepContext, job: str, count: int) -> JobStarted:
    """CreateModelInvocationJob, once: the client token is the job's name."""
    settings, pool = load_settings(), Pool()
    bucket = settings.artifact_bucket
    bedrock = aws.client("bedrock")
    try:
        arn = bedrock.create_model_invocation_job(
            jobName=job,
            clientRequestToken=job,
            roleArn=settings.pile_role_arn,
            modelId=settings.pile_model_id,
            inputDataConfig={
                "s3InputDataConfig": {
                    "s3Uri": f"s3://{bucket}/{input_prefix(job)}",
                    "s3InputFormat": "JSONL",
                }
            },
            outputDataConfig={
                "s3OutputDataConfig": {"s3Uri": f"s3://{bucket}/{output_prefix(job)}"}
            },
            timeoutDurationInHours=settings.pile_job_timeout_hours,
        )["jobArn"]
    except ClientError as exc:
        if aws.error_code(exc) not in ("ConflictException", "ValidationException"):
            raise
        arn = find_job(job)
        if arn is None:
            raise
    job_id = arn.rsplit("/", 1)[-1]
    pool.put_job(
        job,
        jobArn=arn,
        jobId=job_id,
        status="Submitted",
        records=count,
        modelId=settings.pile_model_id,
        createdAt=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    listing = json.loads(
        aws.client("s3").get_object(Bucket=bucket, Key=records_key(job))["Body"].read()
    )
    for record in listing:
        pool.move(record["runId"], CLAIMED, SENT, job=job, jobArn=arn)
    return {"job": job, "jobArn": arn, "jobId": job_id, "count": count}


def find_job(job: str) -> str | None:
    """The ARN of the job named `job`, if one was created (a retried start after a crash)."""
    answer = aws.client("bedrock").list_model_invocation_jobs(nameContains=job, maxResults=100)
    for summary in answer.get("invocationJobSummaries", []):
        if summary.get("jobName") == job:
            return str(summary["jobArn"])
    return None
