"""Reading a finished job's answers and completing each document's callback with its result.

One step per input file (at most `PART` records): each record's line in `<file>.out` is
validated with the enrichment's batch parser (batch answers are prompted JSON, so every one
is checked); a line with an `error`, an answer that does not match the schema, or no line at
all (the job ended Expired, Failed, Stopped or PartiallyCompleted) sends that document
on-demand. Each record moves sent -> done after its callback, so a retried step answers only
what is left and re-sends nothing that was complete.
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow import aws
from docflow.converse import usage_of
from docflow.enrich.request import InvalidAnswer, parse_batch_answer
from docflow.piles.batcher import PART
from docflow.piles.outcomes import OK, ON_DEMAND, UNANSWERED, send_result
from docflow.piles.pool import DONE, SENT, Pool
from docflow.piles.shapes import (
    BatchLine,
    JobCounts,
    JobFinished,
    PartCollected,
    PileResult,
    RecordItem,
)
from docflow.settings import load_settings
from docflow.storage import input_prefix, output_prefix, part_file, records_key

_SENDERS = 16


@durable_step
def finish_job(step: StepContext, job: str, job_arn: str, status: str) -> JobFinished:
    """The job's end: its manifest's counts (when Bedrock wrote one) on the job's item."""
    settings = load_settings()
    job_id = job_arn.rsplit("/", 1)[-1]
    key = f"{output_prefix(job)}{job_id}/manifest.json.out"
    manifest = _read_json(settings.artifact_bucket, key)

    def count(name: str) -> int:
        return int(manifest.get(name, 0))

    counts: JobCounts = {
        "totalRecordCount": count("totalRecordCount"),
        "processedRecordCount": count("processedRecordCount"),
        "successRecordCount": count("successRecordCount"),
        "errorRecordCount": count("errorRecordCount"),
        "inputTokenCount": count("inputTokenCount"),
        "outputTokenCount": count("outputTokenCount"),
    }
    Pool().put_job(job, status=status, **counts)
    return {"job": job, "status": status, **counts}


@durable_step
def collect_part(
    step: StepContext, job: str, job_arn: str, status: str, part: int
) -> PartCollected:
    settings, pool = load_settings(), Pool()
    bucket, job_id = settings.artifact_bucket, job_arn.rsplit("/", 1)[-1]
    listing = _read_json(bucket, records_key(job)) or []
    mine = listing[part * PART : (part + 1) * PART]
    answers = _read_lines(bucket, f"{output_prefix(job)}{job_id}/{part_file(part)}.out")
    missing = UNANSWERED.get(status, "job-failed")
    states = pool.states([r["runId"] for r in mine])
    waiting = {run_id for run_id, state in states.items() if state == SENT}

    def settle(record: RecordItem) -> tuple[str, bool]:
        if record["runId"] not in waiting:
            return "already", False  # an earlier attempt of this step settled it
        result = result_for(answers.get(record["runId"]), job_id, missing)
        outcome = result["status"] if result["status"] == OK else result["reason"]
        completed = send_result(record["callbackId"], result)
        pool.move(record["runId"], SENT, DONE, job=job, outcome=outcome)
        return outcome, completed

    with ThreadPoolExecutor(_SENDERS) as threads:
        settled = list(threads.map(settle, mine))
    outcomes = Counter(outcome for outcome, _ in settled if outcome != "already")
    return {
        "job": job,
        "part": part,
        "records": len(mine),
        "outcomes": dict(outcomes),
        "completed": sum(1 for _, completed in settled if completed),
        "input": input_prefix(job) + part_file(part),
    }


def result_for(line: BatchLine | None, job_id: str, missing: str) -> PileResult:
    """One record's callback result from its output line (None: the job never answered it)."""
    if line is None:
        return {"status": ON_DEMAND, "reason": missing}
    if line.get("error") or "modelOutput" not in line:
        return {"status": ON_DEMAND, "reason": "record-error"}
    output = line["modelOutput"]
    try:
        enrichment = parse_batch_answer(output)
    except InvalidAnswer:
        return {"status": ON_DEMAND, "reason": "invalid-answer"}
    return {"status": OK, "enrichment": enrichment, "jobId": job_id, "usage": usage_of(output)}


def _read_json(bucket: str, key: str) -> Any:
    try:
        body = aws.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
    except aws.client("s3").exceptions.NoSuchKey:
        return {}
    return json.loads(body)


def _read_lines(bucket: str, key: str) -> dict[str, BatchLine]:
    """recordId -> its output line; {} when the job wrote no such file."""
    try:
        body = aws.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
    except aws.client("s3").exceptions.NoSuchKey:
        return {}
    found: dict[str, BatchLine] = {}
    for raw in body.decode("utf-8").splitlines():
        try:
            line = json.loads(raw) if raw.strip() else None
        except ValueError:
            continue  # an unreadable line is an unanswered record: on-demand, not a crash
        if isinstance(line, dict):
            found[str(line.get("recordId"))] = cast("BatchLine", line)
    return found
