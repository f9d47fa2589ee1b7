"""Waiting for a batch job: its state-change event completes the batcher's callback.

The batcher's submitter stores its callback id on the job's item; the job's state-change event
(EventBridge, source `aws.bedrock`) stores the end status on the same item. Each side writes,
then reads what the other wrote, and whichever sees both sends the callback, so an event that
arrives before the submitter (a fast job) is not lost. A duplicate event, or an event for a
callback that a poll already ended, completes nothing: the callback is already complete.
The poll of GetModelInvocationJob between waits is the fallback for an event that never comes.
"""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent
from botocore.exceptions import ClientError

from docflow import aws
from docflow.piles.outcomes import BATCHER, TERMINAL, send_result
from docflow.piles.pool import Pool
from docflow.piles.shapes import JobPoll, StateChange

EVENT_SOURCE = "aws.bedrock"
EVENT_DETAIL_TYPE = "Batch Inference Job State Change"


class JobStateChange(EventBridgeEvent):
    """Bedrock's `Batch Inference Job State Change` event, as the rule delivers it: the job's
    name and its new status, each "" where the event does not say (then nothing is done)."""

    @property
    def job_name(self) -> str:
        return self._detail_text("batchJobName")

    @property
    def status(self) -> str:
        return self._detail_text("status")

    def _detail_text(self, name: str) -> str:
        detail: Any = self.get("detail")
        value = detail.get(name) if isinstance(detail, dict) else None
        return str(value or "")


def remember_callback(job: str, callback_id: str) -> None:
    """The submitter of the batcher's wait for `job`."""
    item = Pool().put_job(job, callbackId=callback_id)
    ended = item.get("endStatus")
    if ended:
        send_result(callback_id, {"status": ended, "via": "submitter"}, to=BATCHER)


def on_state_change(event: JobStateChange) -> StateChange:
    """One EventBridge event: a job's new status; at its end, complete the batcher's wait."""
    job, status = event.job_name, event.status
    pool = Pool()
    known = pool.job(job) if job else None
    if known is None:
        return {"job": job, "status": status, "ignored": "not a pile job"}
    if status not in TERMINAL:
        pool.put_job(job, status=status)
        return {"job": job, "status": status, "completed": False}
    item = pool.put_job(job, status=status, endStatus=status)
    completed = False
    if item.get("callbackId"):
        completed = send_result(
            str(item["callbackId"]), {"status": status, "via": "event"}, to=BATCHER
        )
    return {"job": job, "status": status, "completed": completed}


@durable_step
def poll_step(step: StepContext, job_arn: str) -> JobPoll:
    return poll_job(job_arn)


@durable_step
def stop_step(step: StepContext, job_arn: str) -> JobPoll:
    """The batcher waited its last round: stop the job; what it answered is still read."""
    try:
        aws.client("bedrock").stop_model_invocation_job(jobIdentifier=job_arn)
    except ClientError as exc:
        if aws.error_code(exc) not in ("ConflictException", "ValidationException"):
            raise  # conflict: it ended meanwhile (or was stopped by an earlier attempt)
    polled = poll_job(job_arn)
    return {**polled, "status": polled["status"] if polled["status"] in TERMINAL else "Stopped"}


def poll_job(job_arn: str) -> JobPoll:
    try:
        answer = aws.client("bedrock").get_model_invocation_job(jobIdentifier=job_arn)
    except ClientError as exc:
        if aws.error_code(exc) != "ResourceNotFoundException":
            raise
        # The service no longer knows the job (or never did): nothing will answer it.
        return {"status": "Failed", "records": 0, "processed": 0}
    return {
        "status": str(answer["status"]),
        "records": int(answer.get("totalRecordCount") or 0),
        "processed": int(answer.get("processedRecordCount") or 0),
    }


def parse_wait_result(raw: str | None) -> str:
    """The end status a completed wait carries."""
    try:
        return str(json.loads(raw or "{}").get("status", ""))
    except ValueError:
        return ""
