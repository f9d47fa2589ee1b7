"""The template's BatchJobStateRule target, played locally: Bedrock's job state changes reach
the default bus (moto), the rule puts them in a queue, and this hands each one to the batch
jobs function, as EventBridge invokes a Lambda target. An event whose delivery failed stays
in the queue and comes back; a duplicate completes nothing (the function says so)."""

from __future__ import annotations

import json

from docflow import aws
from docflow.local.services.loop import Loop, QueueLoop
from docflow.local.tools.queued import BusEvent, deliver_queued

FUNCTION = "docflow-batch-jobs"


def invoke_function(event: BusEvent) -> None:
    """Deliver through the function host, as EventBridge invokes its target."""
    answer = aws.invoke_client().invoke(
        FunctionName=FUNCTION, InvocationType="RequestResponse", Payload=json.dumps(event).encode()
    )
    if answer.get("FunctionError"):
        raise RuntimeError(f"{FUNCTION}: {answer['Payload'].read()[:300]!r}")


class BatchJobEventsLoop(QueueLoop):
    queue = "BatchJobEventsQueue"

    def tick(self) -> None:
        deliver_queued(self.config.names(self.queue), invoke_function, self.url)


class BatcherSchedule(Loop):
    """The template's batcher schedule (rate 5 minutes there; seconds here)."""

    def period(self) -> float:
        return self.config.pile_schedule_s

    def tick(self) -> None:
        aws.invoke_client().invoke(
            FunctionName="docflow-batcher-schedule",
            InvocationType="Event",
            Payload=json.dumps({"everySeconds": int(self.period())}).encode(),
        )
