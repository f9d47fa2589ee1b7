"""The history adapter on its own: each difference it closes, on the runner's own event shapes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

from docflow.local.fidelity.conformance import CapturedLogs
from docflow.local.fidelity.history_fidelity import (
    _FailedInvocations,
    faithful_events,
    lambda_error,
)

T0 = datetime(2026, 11, 30, 12, 0, 0, 123456, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def completion(start: float, end: float, request_id: str) -> SimpleNamespace:
    # The runner's store keeps milliseconds; its events carry the stored time.
    trimmed = at(end).replace(microsecond=at(end).microsecond // 1000 * 1000)
    return SimpleNamespace(start_timestamp=at(start), end_timestamp=trimmed, request_id=request_id)


def execution(**fields: object) -> SimpleNamespace:
    base = {"durable_execution_arn": "arn:x", "invocation_completions": [], "updates": []}
    return SimpleNamespace(**{**base, **fields})


def test_invocation_completed_gets_its_details() -> None:
    done = completion(0, 1, "req-1")
    events = [{"EventType": "InvocationCompleted", "EventId": 4, "EventTimestamp": at(1)}]
    fixed = faithful_events(events, execution(invocation_completions=[done]))
    assert fixed[0]["InvocationCompletedDetails"] == {
        "StartTimestamp": at(0),
        "EndTimestamp": done.end_timestamp,
        "RequestId": "req-1",
    }
    assert "InvocationCompletedDetails" not in events[0], "the input is left alone"


def test_a_failed_invocation_carries_lambdas_error() -> None:
    failures = _FailedInvocations()
    done = completion(0, 1, "failed-1")
    failures.failed("arn:x", at(1), {"ErrorType": "Runtime.ExitError", "ErrorMessage": "exit"})
    events = [{"EventType": "InvocationCompleted", "EventId": 3, "EventTimestamp": at(1)}]
    fixed = faithful_events(events, execution(invocation_completions=[done]), failures)
    error = fixed[0]["InvocationCompletedDetails"]["Error"]
    assert error == {
        "Payload": {"ErrorType": "Runtime.ExitError", "ErrorMessage": "exit"},
        "Truncated": False,
    }


def test_retry_details_count_the_attempts_a_step_took() -> None:
    events = [
        {"EventType": "StepStarted", "EventId": 2, "Id": "s"},
        {"EventType": "StepFailed", "EventId": 3, "Id": "s"},
        {"EventType": "StepStarted", "EventId": 5, "Id": "s"},
        {
            "EventType": "StepSucceeded",
            "EventId": 6,
            "Id": "s",
            "StepSucceededDetails": {"Result": {"Payload": "1"}},
        },
        {"EventType": "StepStarted", "EventId": 7, "Id": "once"},
        {"EventType": "StepSucceeded", "EventId": 8, "Id": "once", "StepSucceededDetails": {}},
    ]
    fixed = faithful_events(events, execution())
    assert fixed[3]["StepSucceededDetails"] == {
        "Result": {"Payload": "1"},
        "RetryDetails": {"CurrentAttempt": 2},
    }
    assert fixed[5]["StepSucceededDetails"] == {}, "a first-attempt success is left as it is"


def test_callback_started_shows_its_timeouts() -> None:
    options = SimpleNamespace(timeout_seconds=300, heartbeat_timeout_seconds=30)
    update = SimpleNamespace(operation_id="cb", callback_options=options)
    events = [
        {
            "EventType": "CallbackStarted",
            "EventId": 3,
            "Id": "cb",
            "CallbackStartedDetails": {"CallbackId": "id-1"},
        }
    ]
    fixed = faithful_events(events, execution(updates=[update]))
    assert fixed[0]["CallbackStartedDetails"] == {
        "CallbackId": "id-1",
        "Timeout": 300,
        "HeartbeatTimeout": 30,
    }


def test_events_keep_the_order_asked_for() -> None:
    events = [
        {"EventType": "StepSucceeded", "EventId": 3, "Id": "s"},
        {"EventType": "StepStarted", "EventId": 2, "Id": "s"},
    ]
    assert [e["EventId"] for e in faithful_events(events, execution())] == [3, 2]


def test_lambda_error_reads_the_function_error_the_runner_wrapped() -> None:
    payload = {"errorMessage": "exit status 129", "errorType": "Runtime.ExitError"}
    message = (
        "Unexpected error during Lambda invocation: Lambda invocation failed with status 200: "
        + json.dumps(payload)
    )
    error = SimpleNamespace(message=message, type="DurableFunctionsTestError")
    assert lambda_error(error) == {
        "ErrorType": "Runtime.ExitError",
        "ErrorMessage": "exit status 129",
    }
    unrelated = SimpleNamespace(message="connection refused", type="URLError")
    assert lambda_error(unrelated) == {
        "ErrorType": "URLError",
        "ErrorMessage": "connection refused",
    }


def test_captured_logs_answer_for_one_execution(tmp_path: Path) -> None:
    path = tmp_path / "logs.jsonl"
    lines = [
        {"timestamp": 1000, "message": json.dumps({"message": "a", "executionArn": "arn:1"})},
        {"timestamp": 2000, "message": json.dumps({"message": "b", "executionArn": "arn:2"})},
        {"timestamp": 9000, "message": json.dumps({"message": "c", "executionArn": "arn:1"})},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    pattern = '{ ($.durableExecutionArn = "arn:1") || ($.executionArn = "arn:1") }'
    found = CapturedLogs(path).filter_log_events(
        logGroupName="/aws/lambda/f", startTime=0, endTime=5000, filterPattern=pattern
    )["events"]
    assert [json.loads(e["message"])["message"] for e in found] == ["a"]
