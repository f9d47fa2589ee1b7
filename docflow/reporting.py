"""How parts report status: one interface, sent to the status recorder.

In AWS (and on the local stack) reports go to the status recorder function by Lambda Invoke;
in tests the same recorder runs in-process against moto. Either way a failed report raises, so
the step that sent it is retried.
"""

from __future__ import annotations

import json
from typing import Protocol, cast

from docflow import aws
from docflow.events import build_publisher
from docflow.readmodel.recorder import StatusRecorder, VerdictJson
from docflow.readmodel.schema import Report, ReportError
from docflow.settings import Settings
from docflow.telemetry import spans
from docflow.telemetry.context import INPUT_KEY as TRACEPARENT


class ReportRejected(RuntimeError):
    """The recorder refused or could not store a report."""


class Reporter(Protocol):
    def report(self, report: Report) -> VerdictJson:
        """Send one report; returns the recorder's answer (`result`: accepted/duplicate/stale)."""
        ...


class LambdaReporter:
    def __init__(self, function_name: str) -> None:
        self.function_name = function_name

    def report(self, report: Report) -> VerdictJson:
        wire: dict[str, object] = {**report.to_dict()}
        # The trace context rides beside the report, as a header would: the recorder's span
        # joins the sender's (a step's attempt, a reviewer's click). Never stored.
        sender = spans.current()
        if sender is not None:
            wire[TRACEPARENT] = sender.header()
        answer = aws.invoke_client().invoke(
            FunctionName=self.function_name,
            InvocationType="RequestResponse",
            Payload=json.dumps(wire).encode("utf-8"),
        )
        body = json.loads(answer["Payload"].read() or b"null")
        if (
            answer.get("FunctionError")
            or not isinstance(body, dict)
            or body.get("result") not in ("accepted", "duplicate", "stale")
        ):
            raise ReportRejected(f"status recorder answered {str(body)[:300]}")
        return cast("VerdictJson", body)


class InProcessReporter:
    """The recorder's own code, called directly: same rules, same table, no Invoke hop."""

    def __init__(self, recorder: StatusRecorder) -> None:
        self.recorder = recorder

    def report(self, report: Report) -> VerdictJson:
        try:
            checked = Report.parse(report.to_dict())  # the same validation the function does
        except ReportError as exc:
            raise ReportRejected(str(exc)) from exc
        return self.recorder.record(checked).to_dict()


def build_reporter(settings: Settings) -> Reporter:
    if settings.reporter == "inprocess":
        return InProcessReporter(recorder_for(settings))
    return LambdaReporter(settings.status_recorder_function)


def recorder_for(settings: Settings) -> StatusRecorder:
    """The recorder as the status recorder function builds it, publisher included."""
    return StatusRecorder(
        settings.table_name,
        settings.history_ttl_days,
        build_publisher(settings.event_bus_name),
        settings.artifact_bucket,
    )
