"""The template's Schedule events, played locally: the status recorder's periodic tasks (the
reconcile pass and the review metrics) and the reviewers' digest job (which sends once per
reviewer and period however often it runs), invoked asynchronously every `schedule_every_s`."""

from __future__ import annotations

import json
from typing import TypedDict

from docflow import aws
from docflow.local.services.loop import Loop


class ScheduledTask(TypedDict, total=False):
    """A Schedule event's payload: the status recorder's task (the digest takes none)."""

    task: str


class Schedules(Loop):
    # (function, payload): as the template's Schedule events name them.
    TASKS: tuple[tuple[str, ScheduledTask], ...] = (
        ("docflow-status-recorder", {"task": "reconcile"}),
        ("docflow-status-recorder", {"task": "emit-review-metrics"}),
        ("docflow-review-digest", {}),
    )

    def period(self) -> float:
        return self.config.schedule_every_s

    def tick(self) -> None:
        for function, task in self.TASKS:
            try:  # one task failing must not skip the next
                aws.invoke_client().invoke(
                    FunctionName=function,
                    InvocationType="Event",
                    Payload=json.dumps(task).encode(),
                )
            except Exception as exc:
                print(f"schedule {function} {task}: {exc!r}", flush=True)
