"""Folding history events into operations: retries, nesting, the critical path, open waits.
The events are in GetDurableExecutionHistory's shape, as the local runner returns them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from docflow.trace import report, text
from docflow.trace.timeline import Fold

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def ev(kind: str, op: str, s: float, sub: str = "Step", parent: str | None = None, **d) -> dict:
    event = {
        "EventType": kind,
        "SubType": sub,
        "Id": op,
        "Name": op,
        "EventTimestamp": T0 + timedelta(seconds=s),
    }
    if parent:
        event["ParentId"] = parent
    if d:
        event[f"{kind}Details"] = d
    return event


def err(t: str, m: str) -> dict:
    return {
        "Error": {"Payload": {"ErrorType": t, "ErrorMessage": m, "StackTrace": ["secret frame"]}}
    }


def test_a_retried_step_keeps_each_attempts_error_and_a_final_failure_is_failed() -> None:
    fold = Fold()
    fold.add(
        [
            {"EventType": "ExecutionStarted", "Id": "x", "Name": "run", "EventTimestamp": T0},
            ev("ContextStarted", "read pages", 0, "Map"),
            ev("StepStarted", "batch-0", 0, parent="read pages"),
            ev("StepStarted", "batch-1", 0, parent="read pages"),
            ev("StepSucceeded", "batch-1", 2, parent="read pages"),
            {
                **ev("StepFailed", "batch-0", 1, parent="read pages"),
                "StepFailedDetails": {
                    **err("ThrottledError", "still throttled"),
                    "RetryDetails": {"CurrentAttempt": 1, "NextAttemptDelaySeconds": 2},
                },
            },
            ev("StepStarted", "batch-0", 3, parent="read pages"),
            # The runner's final failure also names a next delay: the map's end settles it.
            {
                **ev("StepFailed", "batch-0", 5, parent="read pages"),
                "StepFailedDetails": {
                    **err("ThrottledError", "again"),
                    "RetryDetails": {"CurrentAttempt": 2, "NextAttemptDelaySeconds": 4},
                },
            },
            ev("ContextSucceeded", "read pages", 6, "Map"),
            {
                "EventType": "ExecutionSucceeded",
                "Id": "x",
                "EventTimestamp": T0 + timedelta(seconds=7),
            },
        ]
    )
    roots = fold.roots()
    assert [o.name for o in roots] == ["read pages"]
    batch0, batch1 = roots[0].children
    assert (
        batch0.status == "failed"
        and [a.error["type"] for a in batch0.attempts] == ["ThrottledError"] * 2
    )
    assert batch0.critical and not batch1.critical  # batch-0 ended last
    trace = report.build(
        {"state": {"runId": "run"}, "history": []}, "run", None, fold, lambda c: None, T0
    )
    assert "secret frame" not in str(trace)
    assert "attempt 1: ThrottledError: still throttled, retried after 2 s" in text.render(trace, T0)


def test_an_open_review_is_spelled_out_from_the_read_model() -> None:
    fold = Fold()
    fold.add(
        [
            {"EventType": "ExecutionStarted", "Id": "x", "Name": "run", "EventTimestamp": T0},
            ev("ContextStarted", "review-0", 10, "WaitForCallback"),
            ev(
                "CallbackStarted",
                "review-0 create callback id",
                10,
                "Callback",
                "review-0",
                CallbackId="TOKEN-XYZ",
            ),
        ]
    )
    history = [
        {
            "runId": "run",
            "status": "pending-review",
            "at": (T0 + timedelta(seconds=12)).isoformat(),
            "payload": {
                "stageIndex": 0,
                "stageName": "legal",
                "reviewers": ["legal@example.com"],
                "reviewDeadline": (T0 + timedelta(days=3)).isoformat(),
            },
        },
    ]
    now = T0 + timedelta(days=2, hours=3, seconds=12)
    trace = report.build(
        {"state": {"runId": "run"}, "history": history}, "run", None, fold, lambda c: None, now
    )
    assert trace["open"] == [
        "waiting on legal@example.com (legal) for 2 d 3 h, times out in 20 h 59 min"
    ]
    assert "TOKEN-XYZ" not in str(trace)


def test_a_stuck_run_says_which_operation_it_is_on_and_why() -> None:
    from docflow.trace.stuck import explain

    fold = Fold()
    fold.add(
        [
            {"EventType": "ExecutionStarted", "Id": "x", "Name": "run", "EventTimestamp": T0},
            ev("StepStarted", "split", 0),
            ev("StepSucceeded", "split", 1),
            ev("StepStarted", "classify", 2),
        ]
    )
    said = explain(fold, "15m", T0 + timedelta(minutes=40))
    assert said["operation"] == "classify" and said["kind"] == "step"
    assert "has run 39 min 58 s" in said["why"]
