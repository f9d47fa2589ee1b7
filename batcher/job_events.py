"""Bedrock's batch job state changes in, the batcher's wait for that job completed.

An EventBridge rule (source `aws.bedrock`, detail-type `Batch Inference Job State Change`)
invokes this function with each event: the outside world answering the batcher's callback,
with nothing more than a look-up and SendDurableExecutionCallbackSuccess, scoped to the
batcher. An event for a job that is not the pile's, or a duplicate, completes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docflow.observability import logger
from docflow.piles.jobwait import JobStateChange, on_state_change
from docflow.piles.shapes import StateChange


def handler(event: Mapping[str, object], context: Any) -> StateChange:
    # Checked as it is read: an event for another job, or none, completes nothing.
    done = on_state_change(JobStateChange(dict(event)))
    logger.info("batch job state change", extra=done)
    return done
