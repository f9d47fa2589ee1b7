"""Stuck, explained: the operation a quiet run is on, named under its outermost parent, since
when, and why that is stuck; from history events in GetDurableExecutionHistory's shape."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from docflow.trace import history
from docflow.trace.stuck import explain, explain_run
from docflow.trace.timeline import Fold

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def ev(kind: str, op: str, s: float, name: str, parent: str | None = None, sub: str = "") -> dict:
    event = {"EventType": kind, "Id": op, "Name": name, "EventTimestamp": T0 + timedelta(seconds=s)}
    if parent:
        event["ParentId"] = parent
    if sub:
        event["SubType"] = sub
    return event


def fold_of(*events: dict) -> Fold:
    fold = Fold()
    fold.add([{"EventType": "ExecutionStarted", "Id": "x", "Name": "run", "EventTimestamp": T0}])
    fold.add(list(events))
    fold.execution.name = "run"
    return fold


def test_a_batch_is_named_under_its_map_and_a_long_step_is_stuck_by_its_time() -> None:
    fold = fold_of(
        ev("StepStarted", "1", 0, "split"),
        ev("StepSucceeded", "1", 1, "split"),
        ev("ContextStarted", "2", 2, "read pages", sub="Map"),
        ev("ContextStarted", "3", 2, "batch-0", "2", sub="MapIteration"),
        ev("StepStarted", "4", 3, "batch-0", "3"),
    )
    said = explain(fold, "40 min", T0 + timedelta(minutes=40))
    assert (said["operation"], said["kind"]) == ("read pages > batch-0", "step")
    assert datetime.fromisoformat(said["since"]) == T0 + timedelta(seconds=3)
    assert "longer than a step should take" in said["why"]


def test_a_review_past_its_timeout_says_so_with_who_it_waits_on() -> None:
    fold = fold_of(
        ev("ContextStarted", "5", 0, "review-0", sub="WaitForCallback"),
        ev("CallbackStarted", "6", 0, "review-0 create callback id", "5", sub="Callback"),
        ev("StepStarted", "7", 1, "review-0 submitter", "5"),
        ev("StepSucceeded", "7", 2, "review-0 submitter", "5"),
    )
    deadline = T0 + timedelta(days=1)
    shown = {
        "state": {"runId": "run"},
        "history": [
            {
                "runId": "run",
                "status": "pending-review",
                "at": (T0 + timedelta(seconds=2)).isoformat(),
                "payload": {
                    "stageIndex": 0,
                    "stageName": "legal",
                    "reviewers": ["legal@example.com"],
                    "reviewDeadline": deadline.isoformat(),
                },
            }
        ],
    }
    said = explain(fold, "1 d 2 h", T0 + timedelta(days=1, hours=2), shown)
    assert (said["operation"], said["kind"]) == ("review-0", "callback")
    assert said["why"].startswith("waiting on legal@example.com (legal) for 1 d 2 h")
    assert "past its timeout by 2 h" in said["why"]
    assert "the stage's timeout should have ended the wait" in said["why"]


def test_a_row_whose_run_has_no_execution_says_so() -> None:
    def missing(run_id: str) -> Fold:
        raise history.NoExecution(run_id)

    now = T0 + timedelta(hours=2)
    said = explain_run({"runId": "gone", "updatedAt": T0.isoformat()}, now, read=missing)
    assert said["executionStatus"] is None and said["operation"] is None
    assert said["why"].startswith("no report for 2 h and no durable execution")
    ended = fold_of(ev("StepStarted", "1", 0, "split"), ev("StepSucceeded", "1", 1, "split"))
    ended.add([{"EventType": "ExecutionSucceeded", "Id": "x", "EventTimestamp": T0}])
    said = explain_run({"runId": "run", "updatedAt": T0.isoformat()}, now, read=lambda _: ended)
    assert said["executionStatus"] == "SUCCEEDED"
    assert "never heard its end" in said["why"]


def test_a_history_that_cannot_be_read_is_said_not_raised() -> None:
    from botocore.exceptions import ClientError

    def denied(run_id: str) -> Fold:
        raise ClientError(
            {"Error": {"Code": "AccessDeniedException"}}, "GetDurableExecutionHistory"
        )

    said = explain_run({"runId": "r", "updatedAt": T0.isoformat()}, T0, read=denied)
    assert said["operation"] is None and "(AccessDeniedException)" in said["why"]
