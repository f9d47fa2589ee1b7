"""Draining a queue that stands in for an EventBridge rule's Lambda target."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from docflow import aws

Deliver = Callable[[dict[str, Any]], Any]


def deliver_queued(queue_name: str, deliver: Deliver, url: str | None = None) -> int:
    """Hand every queued event to `deliver`, deleting each once delivered; how many. An event
    whose delivery raised stays in the queue and comes back, as a failed target is retried.
    `url`: the queue's, when the caller knows it (else asked of SQS)."""
    sqs = aws.client("sqs")
    url = url or sqs.get_queue_url(QueueName=queue_name)["QueueUrl"]
    delivered = 0
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return delivered
        for message in got:
            deliver(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            delivered += 1
