"""Replaying a recorded execution against the current orchestrator, as a resume would.

A history (tests/data/histories/<release>/<wait>.json) holds the checkpointed operations of an
execution suspended at one kind of wait. Resuming it means the handler runs from the top with
those operations: every step before the wait returns its checkpointed result, and the wait is
found still open, so the invocation suspends (PENDING) having checkpointed nothing new. New code
breaks a waiting execution when, on that replay,

- the SDK finds an operation whose type, name or parent differs from the checkpoint at its
  position (NonDeterministicExecutionError: a step renamed, added, removed or moved before the
  wait),
- the code starts an operation the history does not have before the wait (an added step), or
- the code fails on a checkpointed result (a result whose shape it no longer understands).

The handler is called directly with the recorded operations and a checkpoint client that keeps
what it is sent and answers nothing new: no runner, no AWS (endpoints point at a closed port, so
a step that does run fails at once instead of reaching anything).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aws_durable_execution_sdk_python.execution import (
    DurableExecutionInvocationInputWithClient,
    InitialExecutionState,
)
from aws_durable_execution_sdk_python.lambda_service import (
    CheckpointOutput,
    CheckpointUpdatedExecutionState,
    Operation,
    OperationUpdate,
    StateOutput,
)
from aws_durable_execution_sdk_python_testing.invoker import create_test_lambda_context

HISTORIES = Path(__file__).resolve().parent.parent / "data" / "histories"
_NONDETERMINISTIC = re.compile(r"Non-deterministic operation identity at id=[^:]*: .*")


class RecordingClient:
    """The durable service for one replay: it keeps every update and adds no operation."""

    def __init__(self) -> None:
        self.updates: list[OperationUpdate] = []
        self.tokens = 0

    def checkpoint(
        self,
        durable_execution_arn: str,
        checkpoint_token: str,
        updates: list[OperationUpdate],
        client_token: str | None,
    ) -> CheckpointOutput:
        self.updates.extend(updates)
        self.tokens += 1
        return CheckpointOutput(f"replay-{self.tokens}", CheckpointUpdatedExecutionState())

    def get_execution_state(
        self,
        durable_execution_arn: str,
        checkpoint_token: str,
        next_marker: str,
        max_items: int = 1000,
    ) -> StateOutput:
        return StateOutput(operations=[], next_marker=None)


@dataclass
class Replay:
    """How a history replayed: `problem` is None when the code resumes it cleanly."""

    history: str
    status: str
    new_operations: list[str] = field(default_factory=list)
    error: str = ""
    problem: str | None = None


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def all_histories() -> list[Path]:
    return sorted(HISTORIES.glob("*/*.json"))


def replay(path: Path, handler: Any) -> Replay:
    """Run `handler` over the history at `path` as one resume; say what broke, naming it."""
    recorded = load(path)
    operations = [Operation.from_json_dict(op) for op in recorded["operations"]]
    names = {op.operation_id: op.name for op in operations}
    client = RecordingClient()
    event = DurableExecutionInvocationInputWithClient(
        durable_execution_arn=recorded["executionArn"],
        checkpoint_token="replay-0",
        initial_execution_state=InitialExecutionState(operations=operations, next_marker=""),
        service_client=client,
    )
    context = create_test_lambda_context(
        function_name=recorded.get("function", "docflow-orchestrator")
    )
    output = handler(event, context)
    label = (
        f"{path.parent.name}/{path.name} (release {recorded['release']}, "
        f"waiting at {recorded['waitsAt']!r})"
    )
    status = str(output.get("Status"))
    error = output.get("Error") or {}
    message = str(error.get("ErrorMessage") or "")
    result = _result(output)
    new = [
        f"{u.name or names.get(u.operation_id) or u.operation_id} "
        f"({u.operation_type.value} {u.action.value})"
        for u in client.updates
    ]
    outcome = Replay(label, status, new, f"{error.get('ErrorType', '')}: {message}".strip(": "))
    found = _nondeterminism(message, result, client.updates)
    if found:
        outcome.problem = f"{label}: the code no longer replays it: {found}"
    elif status == "FAILED":
        outcome.problem = (
            f"{label}: the resume fails reading the checkpointed results: {outcome.error}"
            f"{_where(error)}"
        )
    elif new:
        outcome.problem = (
            f"{label}: the resume runs operations the history does not have: {', '.join(new[:5])}"
        )
    elif status != "PENDING":
        outcome.problem = f"{label}: the resume ended {status} instead of waiting: {result}"
    return outcome


def _result(output: dict[str, Any]) -> Any:
    try:
        return json.loads(output.get("Result") or "null")
    except ValueError:
        return output.get("Result")


def _nondeterminism(message: str, result: Any, updates: list[OperationUpdate]) -> str | None:
    """The SDK's NonDeterministicExecutionError message, wherever it surfaced: the
    invocation's error, the handler's own `failed` result, or an error a step checkpointed."""
    texts = [message]
    if isinstance(result, dict):
        texts.append(str(result.get("message", "")))
    for update in updates:
        if update.error is not None:
            texts.append(str(update.error.message or ""))
    for text in texts:
        match = _NONDETERMINISTIC.search(text)
        if match:
            return match.group(0)
    return None


def _where(error: dict[str, Any]) -> str:
    frames = [line for line in error.get("StackTrace") or [] if "File " in str(line)]
    return f" (at {frames[-1].strip()})" if frames else ""
