"""What the local durable runner's execution histories lack against AWS, filled in.

The testing runner (aws-durable-execution-sdk-python-testing 1.4.0) builds the history that
GetDurableExecutionHistory returns from its own records. Measured against AWS's conformance
requirements (PyPI aws-durable-execution-conformance-tests, bench/conformance.py), it differs
in these ways; `apply()` closes each one where the local stack runs the runner (stackd), so
`docflow show`, the benchmarks and anything else reading histories sees what AWS records:

- InvocationCompleted events carry no InvocationCompletedDetails (StartTimestamp,
  EndTimestamp, RequestId): the runner records them and drops them when it renumbers the
  events. Filled from the execution's invocation records (requirement 1-1 and every other).
- An invocation that failed (a FunctionError such as a crashed process) leaves no
  InvocationCompleted at all, and so no record of the error AWS reports in it: the runner
  retries it silently. Recorded here with its Error (Runtime.ExitError for a process that
  exited: requirements 1-17, 1-18, 3-12).
- StepSucceededDetails has no RetryDetails after retries: added with CurrentAttempt, the
  number of attempts the step took (1-11, 1-13, 1-14, 1-15, 1-18, 3-7).
- CallbackStartedDetails has no Timeout or HeartbeatTimeout: taken from the callback options
  the SDK checkpointed (4-3, 4-4, 4-5, 4-8, 4-11, 4-14, 7-5, 7-12, 7-13, 7-14).
- IncludeExecutionData defaults to false; AWS defaults it to true.

Errors of failed invocations are kept in memory only: after a stack restart their
InvocationCompleted events remain, without the Error. DOCFLOW_LOCAL_HISTORY_FIDELITY=off
leaves the runner as it is (bench/conformance.py --raw-runner measures the difference).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypedDict, cast

if TYPE_CHECKING:
    from mypy_boto3_lambda.type_defs import (
        CallbackStartedDetailsTypeDef,
        ErrorObjectOutputTypeDef,
        EventTypeDef,
        InvocationCompletedDetailsTypeDef,
        StepSucceededDetailsTypeDef,
    )

_FAILED_INVOKE = "Lambda invocation failed with status"
SWITCH_ENV = "DOCFLOW_LOCAL_HISTORY_FIDELITY"


class FunctionError(TypedDict, total=False):
    """The error payload a Lambda function's runtime reports (as the runner's message quotes
    it)."""

    errorType: str
    errorMessage: str
    stackTrace: list[str]
    requestId: str


@dataclass
class _FailedInvocations:
    """Errors of invocations that failed, by execution ARN and end time (in memory)."""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._errors: dict[tuple[str, int], ErrorObjectOutputTypeDef] = {}
        self._started: dict[str, datetime] = {}

    def started(self, arn: str, when: datetime) -> None:
        with self._lock:
            self._started[arn] = when

    def start_of(self, arn: str, default: datetime) -> datetime:
        with self._lock:
            return self._started.get(arn, default)

    def failed(self, arn: str, ended: datetime, error: ErrorObjectOutputTypeDef) -> None:
        with self._lock:
            self._errors[(arn, _ms(ended))] = error

    def error(self, arn: str, ended: datetime) -> ErrorObjectOutputTypeDef | None:
        with self._lock:
            return self._errors.get((arn, _ms(ended)))


def lambda_error(error: Any) -> ErrorObjectOutputTypeDef:
    """The error payload Lambda reported, out of the runner's wrapped error message."""
    message = getattr(error, "message", None) or str(error)
    payload: FunctionError = {}
    if _FAILED_INVOKE in message:
        raw = message[message.find("{", message.find(_FAILED_INVOKE)) :]
        try:
            payload = cast("FunctionError", json.loads(raw))
        except ValueError:
            payload = {}
    return {
        "ErrorType": payload.get("errorType") or getattr(error, "type", None) or "Unhandled",
        "ErrorMessage": payload.get("errorMessage") or message,
    }


def _ms(value: datetime) -> int:
    # The runner's store keeps timestamps to the millisecond.
    return int(_as_utc(value).timestamp() * 1000)


def _as_utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def faithful_events(
    events: list[EventTypeDef], execution: Any, failures: _FailedInvocations | None = None
) -> list[EventTypeDef]:
    """The runner's history events (dicts, as GetDurableExecutionHistory returns them) with
    what AWS records filled in. Pure: reads `execution`, returns new dicts."""
    completions = {
        _ms(c.end_timestamp): c for c in getattr(execution, "invocation_completions", [])
    }
    callback_options = {
        u.operation_id: u.callback_options
        for u in getattr(execution, "updates", [])
        if getattr(u, "callback_options", None) is not None
    }
    arn = getattr(execution, "durable_execution_arn", "")
    attempts: dict[str, int] = {}
    ordered = sorted(events, key=lambda e: e.get("EventId", 0))
    fixed: dict[int | None, EventTypeDef] = {}
    for original in ordered:
        event = original.copy()
        kind = event.get("EventType")
        if kind == "InvocationCompleted" and "InvocationCompletedDetails" not in event:
            ended = _as_utc(event["EventTimestamp"])
            record = completions.get(_ms(ended))
            if record is not None:
                details: InvocationCompletedDetailsTypeDef = {
                    "StartTimestamp": record.start_timestamp,
                    "EndTimestamp": record.end_timestamp,
                    "RequestId": record.request_id,
                }
                error = failures.error(arn, ended) if failures else None
                if error is not None:
                    details["Error"] = {"Payload": error, "Truncated": False}
                event["InvocationCompletedDetails"] = details
        elif kind == "StepStarted":
            attempts[event["Id"]] = attempts.get(event["Id"], 0) + 1
        elif kind == "StepSucceeded":
            tries = attempts.get(event["Id"], 1)
            # The runner's details may lack RetryDetails: that is what is filled in.
            succeeded = cast(
                "StepSucceededDetailsTypeDef", dict(event.get("StepSucceededDetails") or {})
            )
            if tries > 1 and "RetryDetails" not in succeeded:
                succeeded["RetryDetails"] = {"CurrentAttempt": tries}
                event["StepSucceededDetails"] = succeeded
        elif kind == "CallbackStarted":
            options = callback_options.get(event.get("Id"))
            started = cast(
                "CallbackStartedDetailsTypeDef", dict(event.get("CallbackStartedDetails") or {})
            )
            if options is not None:
                if options.timeout_seconds and "Timeout" not in started:
                    started["Timeout"] = options.timeout_seconds
                if options.heartbeat_timeout_seconds and "HeartbeatTimeout" not in started:
                    started["HeartbeatTimeout"] = options.heartbeat_timeout_seconds
                event["CallbackStartedDetails"] = started
        fixed[original.get("EventId")] = event
    # In the order asked for (ReverseOrder pages come newest first).
    return [fixed[e.get("EventId")] for e in events]


def apply(executor: Any) -> None:
    """Make the runner behind `executor` answer GetDurableExecutionHistory as AWS does."""
    if os.environ.get(SWITCH_ENV, "on") == "off":
        return
    # the testing SDK loads only where the runner is served or patched
    from aws_durable_execution_sdk_python_testing.model import (
        GetDurableExecutionHistoryResponse,
    )

    # the testing SDK loads only where the runner is served or patched
    from aws_durable_execution_sdk_python_testing.web import handlers

    failures = _FailedInvocations()
    original_history = executor.get_execution_history
    original_retry = executor._retry_after_error
    original_invoke = executor._invoker.invoke

    class FaithfulHistory(GetDurableExecutionHistoryResponse):
        execution: Any = None

        def to_dict(self) -> dict[str, Any]:  # the testing SDK's signature, which this overrides
            data = super().to_dict()
            data["Events"] = faithful_events(data["Events"], self.execution, failures)
            return data

    def get_execution_history(execution_arn: str, *args: Any, **kwargs: Any) -> Any:
        answer = original_history(execution_arn, *args, **kwargs)
        faithful = FaithfulHistory(events=answer.events, next_marker=answer.next_marker)
        object.__setattr__(faithful, "execution", executor.get_execution(execution_arn))
        return faithful

    def invoke(function_name: str, invocation_input: Any, *args: Any, **kwargs: Any) -> Any:
        arn = getattr(invocation_input, "durable_execution_arn", None)
        if arn:
            failures.started(arn, datetime.now(UTC))
        return original_invoke(function_name, invocation_input, *args, **kwargs)

    def retry_after_error(execution_arn: str, error: Any) -> None:
        # A failed invocation is an InvocationCompleted with an Error in AWS's history.
        ended = datetime.now(UTC)
        try:
            execution = executor._store.load(execution_arn)
            started = failures.start_of(execution_arn, ended)
            execution.record_invocation_completion(started, ended, f"failed-{ended.timestamp()}")
            executor._store.save(execution)
            failures.failed(execution_arn, ended, lambda_error(error))
        except Exception:  # noqa: S110 - the record is extra; the retry must go on
            pass
        original_retry(execution_arn, error)

    executor.get_execution_history = get_execution_history
    executor._retry_after_error = retry_after_error
    executor._invoker.invoke = invoke

    original_param = handlers.GetDurableExecutionHistoryHandler._parse_query_param

    def parse_query_param(self: Any, request: Any, param_name: str) -> str | None:
        value = original_param(self, request, param_name)
        return "true" if value is None and param_name == "IncludeExecutionData" else value

    history = handlers.GetDurableExecutionHistoryHandler
    history._parse_query_param = parse_query_param  # type: ignore[method-assign]  # the patch
