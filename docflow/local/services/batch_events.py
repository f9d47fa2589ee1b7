"""The template's BatchJobStateRule target, played locally: Bedrock's job state changes reach
the default bus (moto), the rule puts them in a queue, and this hands each one to the batch
jobs function, as EventBridge invokes a Lambda target. An event whose delivery failed stays
in the queue and comes back; a duplicate completes nothing (the function says so)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from docflow import aws
from docflow.local.config import StackConfig
from docflow.local.operators import _Loop

Deliver = Callable[[dict[str, Any]], Any]
FUNCTION = "docflow-batch-jobs"


def deliver_queued(queue_name: str, deliver: Deliver) -> int:
    """Hand every queued event to `deliver`, deleting each once delivered; how many."""
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=queue_name)["QueueUrl"]
    delivered = 0
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return delivered
        for message in got:
            deliver(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            delivered += 1


def invoke_function(event: dict[str, Any]) -> None:
    """Deliver through the function host, as EventBridge invokes its target."""
    answer = aws.invoke_client().invoke(
        FunctionName=FUNCTION, InvocationType="RequestResponse", Payload=json.dumps(event).encode()
    )
    if answer.get("FunctionError"):
        raise RuntimeError(f"{FUNCTION}: {answer['Payload'].read()[:300]!r}")


class BatchJobEventsLoop(_Loop):
    every_s = 1.0

    def tick(self) -> None:
        deliver_queued(self.config.names("BatchJobEventsQueue"), invoke_function)


class BatcherSchedule(_Loop):
    """The template's batcher schedule (rate 5 minutes there; seconds here)."""

    def __init__(self, config: StackConfig, every_s: float) -> None:
        super().__init__(config)
        self.every_s = every_s

    def tick(self) -> None:
        aws.invoke_client().invoke(
            FunctionName="docflow-batcher-schedule",
            InvocationType="Event",
            Payload=json.dumps({"everySeconds": int(self.every_s)}).encode(),
        )
