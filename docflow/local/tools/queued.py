"""Draining a queue that stands in for an EventBridge rule's Lambda target."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypedDict

from docflow import aws

# An EventBridge event's envelope, around the detail its source sent ("detail-type" is no name,
# hence the call form); each kind of event below adds its own `detail`.
EventEnvelope = TypedDict(
    "EventEnvelope",
    {
        "version": str,
        "id": str,
        "detail-type": str,
        "source": str,
        "account": str,
        "time": str,
        "region": str,
        "resources": list[str],
    },
)


class BusEvent(EventEnvelope):
    """An EventBridge event as a rule hands it to its target (the queue's message body)."""

    detail: dict[str, object]


Deliver = Callable[[BusEvent], object]


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
