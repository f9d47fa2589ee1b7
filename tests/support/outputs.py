"""What a run left where a downstream system reads it: an object in the artifact bucket, and
the domain events the template's example rule delivered to its queue."""

from __future__ import annotations

import json
from typing import Any

from docflow import aws
from docflow.settings import load_settings
from tests.support.aws import Stack


def s3_json(key: str) -> dict[str, Any]:
    body = aws.client("s3").get_object(Bucket=load_settings().artifact_bucket, Key=key)["Body"]
    return json.loads(body.read())


def domain_events(stack: Stack) -> list[dict[str, Any]]:
    """Everything the template's example rule delivered to its queue."""
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=stack.names("DomainEventsQueue"))["QueueUrl"]
    out: list[dict[str, Any]] = []
    while got := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for m in got:
            out.append(json.loads(m["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return out
