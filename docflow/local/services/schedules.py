"""The template's Schedule events, played locally: the status recorder's periodic tasks (the
reconcile pass and the review metrics), invoked asynchronously every `schedule_every_s`."""

from __future__ import annotations

import json

from docflow import aws
from docflow.local.services.loop import Loop


class Schedules(Loop):
    TASKS = ("reconcile", "emit-review-metrics")

    def period(self) -> float:
        return self.config.schedule_every_s

    def tick(self) -> None:
        for task in self.TASKS:
            try:  # one task failing must not skip the next
                aws.invoke_client().invoke(
                    FunctionName="docflow-status-recorder",
                    InvocationType="Event",
                    Payload=json.dumps({"task": task}).encode(),
                )
            except Exception as exc:
                print(f"schedule {task}: {exc!r}", flush=True)
