"""The local stack's stand-ins for what AWS does for operators, run as stackd's threads.

QueueSampler    CloudWatch's SQS metrics: the intake queue's and the DLQ's depth, sampled
                every few seconds into the metrics file the local dashboard draws.
EventConsumer   a downstream system on the template's example rule: reads the domain-events
                queue, drops copies by `detail.eventId` (EventBridge has no idempotency key,
                so consumers de-duplicate), and appends each event once to events.jsonl,
                which `docflow events` prints. It does not long-poll, for the reason the
                intake poller does not (moto would hold its request lock for the wait): it
                wakes when a message arrives instead (QueueLoop).
"""

from __future__ import annotations

import json
from pathlib import Path

from docflow import aws
from docflow.local.config import StackConfig
from docflow.local.services.loop import Loop, QueueLoop
from docflow.local.tools.queued import EventEnvelope
from docflow.observability import record_local
from docflow.readmodel.event_shapes import EventDetail

EVENTS_FILE = "events.jsonl"


class QueueSampler(Loop):
    every_s = 5.0

    def __init__(self, config: StackConfig) -> None:
        super().__init__(config)
        self.urls: dict[str, str] = {}  # asked of SQS once: they never change

    def tick(self) -> None:
        sqs = aws.client("sqs")
        for logical in ("IntakeQueue", "IntakeDeadLetterQueue"):
            name = self.config.names(logical)
            if name not in self.urls:
                self.urls[name] = sqs.get_queue_url(QueueName=name)["QueueUrl"]
            url = self.urls[name]
            attrs = sqs.get_queue_attributes(
                QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
            )["Attributes"]
            depth = int(attrs.get("ApproximateNumberOfMessages", 0))
            record_local(
                "AWS/SQS", "ApproximateNumberOfMessagesVisible", depth, {"QueueName": name}
            )


class EventConsumer(QueueLoop):
    queue = "DomainEventsQueue"

    def __init__(self, config: StackConfig) -> None:
        super().__init__(config)
        self.path = config.state / EVENTS_FILE
        self.seen = {e["detail"]["eventId"] for e in read_events(self.path)}
        self.copies_dropped = 0

    def tick(self) -> None:
        sqs, url = aws.client("sqs"), self.url
        while True:
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
            if not got:
                return
            with self.path.open("a", encoding="utf-8") as out:
                for message in got:
                    event = json.loads(message["Body"])
                    event_id = event.get("detail", {}).get("eventId")
                    if event_id in self.seen:
                        self.copies_dropped += 1
                    else:
                        self.seen.add(event_id)
                        out.write(json.dumps(event, sort_keys=True) + "\n")
            for message in got:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])


class RecordedEvent(EventEnvelope):
    """An EventBridge event as the local stack's recorder keeps it, one JSON line each."""

    detail: EventDetail


def read_events(path: Path) -> list[RecordedEvent]:
    if not path.exists():
        return []
    events: list[RecordedEvent] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue  # a line cut short by a crash mid-write
    return events
