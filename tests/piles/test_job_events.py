"""Bedrock's job state-change events read as Powertools' EventBridge events
(`docflow.piles.jobwait.JobStateChange`): the job's name and status from the detail, and an
event that names no job, whatever its detail holds, completes nothing and raises nothing."""

from __future__ import annotations

from typing import Any

import pytest

from batcher.job_events import handler
from docflow.piles.jobwait import EVENT_DETAIL_TYPE, EVENT_SOURCE, JobStateChange

EVENT = {
    "version": "0",
    "id": "1b2c3d4e-0000-4000-8000-000000000000",
    "detail-type": EVENT_DETAIL_TYPE,
    "source": EVENT_SOURCE,
    "account": "123456789012",
    "time": "2026-03-04T10:00:00Z",
    "region": "us-east-1",
    "resources": [],
    "detail": {"batchJobName": "pile-a-1", "status": "Completed", "batchJobArn": "arn:job"},
}


def test_the_job_and_its_status_are_read_from_the_detail() -> None:
    event = JobStateChange(EVENT)
    assert (event.job_name, event.status, event.source) == ("pile-a-1", "Completed", EVENT_SOURCE)


@pytest.mark.parametrize("detail", [None, "Completed", ["pile-a-1"], {}, {"status": 3}])
def test_an_event_that_names_no_job_completes_nothing(detail: Any) -> None:
    answer = handler({**EVENT, "detail": detail}, None)
    assert answer["job"] == "" and answer["ignored"] == "not a pile job"
