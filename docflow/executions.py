"""What Lambda knows about a document's durable execution, looked up by its name."""

from __future__ import annotations

from docflow import aws


class LambdaExecutionStatuses:
    """Lambda's ListDurableExecutionsByFunction, filtered by the run's execution name."""

    def __init__(self, function: str) -> None:
        self.function = function

    def status(self, execution_name: str) -> str | None:
        """RUNNING, SUCCEEDED, FAILED, TIMED_OUT or STOPPED; None if there is no such run."""
        answer = aws.client("lambda").list_durable_executions_by_function(
            FunctionName=self.function, DurableExecutionName=execution_name, MaxItems=10
        )
        found = [
            e
            for e in answer.get("DurableExecutions", [])
            if e.get("DurableExecutionName") == execution_name
        ]
        return str(found[0]["Status"]) if found else None
