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


class PagedLambda:
    """GetDurableExecutionHistory in pages of `size` events, as AWS and the runner answer it."""

    def __init__(self, events: list[dict], size: int) -> None:
        self.events, self.size, self.calls = events, size, []

    def list_durable_executions_by_function(self, **args) -> dict:
        name = args["DurableExecutionName"]
        return {
            "DurableExecutions": [
                {
                    "DurableExecutionArn": "arn:x",
                    "DurableExecutionName": name,
                    "Status": "SUCCEEDED",
                }
            ]
        }

    def get_durable_execution_history(self, **args) -> dict:
        self.calls.append(args)
        at = int(args.get("Marker") or 0)
        page = {"Events": self.events[at : at + self.size]}
        if at + self.size < len(self.events):
            page["NextMarker"] = str(at + self.size)
        return page


def test_a_long_history_is_read_page_by_page_and_an_operation_spans_pages(monkeypatch) -> None:
    from docflow import aws
    from docflow.trace import history

    events = [{"EventType": "ExecutionStarted", "Id": "x", "Name": "run", "EventTimestamp": T0}]
    events.append(ev("ContextStarted", "read pages", 0, "Map"))
    for n in range(30):  # a batch's start and end fall on different pages
        events.append(ev("StepStarted", f"batch-{n}", n, parent="read pages"))
    for n in range(30):
        events.append(ev("StepSucceeded", f"batch-{n}", 30 + n, parent="read pages"))
    events.append(ev("ContextSucceeded", "read pages", 61, "Map"))
    end = T0 + timedelta(seconds=62)
    events.append({"EventType": "ExecutionSucceeded", "Id": "x", "EventTimestamp": end})
    fake = PagedLambda(events, size=7)
    monkeypatch.setattr(aws, "client", lambda name: fake)

    fold = history.read("run", function="docflow-orchestrator")
    assert len(fake.calls) == -(-len(events) // 7)  # every page, once, in order
    assert [c.get("Marker") for c in fake.calls[1:3]] == ["7", "14"]
    assert all(c["IncludeExecutionData"] is False for c in fake.calls)
    (read,) = fold.roots()
    assert len(read.children) == 30
    assert all(c.end is not None and c.status == "succeeded" for c in read.children)
    assert read.children[0].start == T0 and read.children[0].end == T0 + timedelta(seconds=30)


def test_the_text_timeline_scales_nests_marks_the_critical_path_and_prices_the_run() -> None:
    fold = Fold()
    fold.add(
        [
            {"EventType": "ExecutionStarted", "Id": "x", "Name": "run", "EventTimestamp": T0},
            ev("StepStarted", "split", 0),
            ev("StepSucceeded", "split", 10),
            ev("ContextStarted", "read pages", 10, "Map"),
            ev("StepStarted", "batch-0", 10, parent="read pages"),
            ev("StepSucceeded", "batch-0", 20, parent="read pages"),
            ev("StepStarted", "batch-1", 10, parent="read pages"),
            ev("StepSucceeded", "batch-1", 40, parent="read pages"),
            ev("ContextSucceeded", "read pages", 40, "Map"),
            {
                "EventType": "ExecutionSucceeded",
                "Id": "x",
                "EventTimestamp": T0 + timedelta(seconds=40),
            },
        ]
    )
    # The meter's cost, as the finalize report left it in the read model.
    meter = {"usd": 0.000123, "operations": 5}
    trace = report.build(
        {"state": {"runId": "run", "cost": meter}, "history": []},
        "run",
        None,
        fold,
        lambda shown: f"${shown['cost']['usd']:.6f} ({shown['cost']['operations']} operations)",
        T0 + timedelta(seconds=40),
    )
    drawn = text.render(trace, T0 + timedelta(seconds=40), width=40).splitlines()
    rows = {line[2:36].strip(): line for line in drawn if "|" in line and "operation" not in line}
    assert list(rows) == ["split", "read pages", "batch-0", "batch-1"]  # one line each, in order
    assert rows["batch-0"][2:].startswith("  batch-0")  # nested under its map
    bars = {name: line.split("|")[1] for name, line in rows.items()}
    assert all(len(b) == 40 for b in bars.values())
    # Scaled to the run's 40 s: split the first quarter, batch-1 the last three quarters.
    assert bars["split"] == "=" * 10 + " " * 30
    assert bars["batch-1"] == " " * 10 + "=" * 30
    assert bars["batch-0"] == " " * 10 + "=" * 10 + " " * 20
    assert rows["batch-1"].startswith("*") and not rows["batch-0"].startswith("*")
    assert rows["split"].startswith("*")
    assert any(line.startswith("cost     $0.000123") for line in drawn)
