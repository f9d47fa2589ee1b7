"""Timers the durable testing runner forgets when the stack restarts, re-armed from its store.

AWS keeps an execution's timeout and a callback's timeouts running through anything that
happens to the caller; the testing runner holds them in memory only. After a restart, every
unfinished execution is relaunched with what is left of its timeout, and every started
callback's timeouts are scheduled again with what is left of theirs.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from aws_durable_execution_sdk_python.lambda_service import (
    CallbackOptions,
    OperationStatus,
    OperationType,
)


def rearm(executor: Any, store: Any) -> dict[str, int]:
    """What the runner forgets on restart: execution timeouts, callback timeouts, and the
    invocation an unfinished execution was in the middle of. Replaying each unfinished
    execution re-arms its waits and retries as well (the SDK re-checkpoints nothing it has)."""

    now = datetime.now(UTC)
    counts = {"executions": 0, "callbacks": 0}
    for execution in store.list_all():
        if execution.is_complete:
            continue
        started = _execution_start(execution) or now
        timeout = int(execution.start_input.execution_timeout_seconds or 0)
        remaining = max(1, int(timeout - (now - started).total_seconds())) if timeout else 0
        executor._launch_execution(execution, remaining)
        counts["executions"] += 1
        options = {
            u.operation_id: u.callback_options
            for u in execution.updates
            if getattr(u, "callback_options", None) is not None
        }
        for op in execution.operations:
            if op.operation_type != OperationType.CALLBACK or op.status != OperationStatus.STARTED:
                continue
            opts = options.get(op.operation_id)
            callback_id = op.callback_details.callback_id if op.callback_details else None
            if opts is None or callback_id is None:
                continue
            begun = op.start_timestamp or now
            left = (
                opts.timeout_seconds - int((now - begun).total_seconds())
                if (opts.timeout_seconds)
                else 0
            )
            executor._schedule_callback_timeouts(
                execution.durable_execution_arn,
                CallbackOptions(
                    timeout_seconds=max(1, left) if opts.timeout_seconds else 0,
                    heartbeat_timeout_seconds=opts.heartbeat_timeout_seconds,
                ),
                callback_id,
            )
            counts["callbacks"] += 1
    return counts


def _execution_start(execution: Any) -> datetime | None:
    for op in execution.operations:
        if op.start_timestamp is not None and op.parent_id is None:
            ts = op.start_timestamp
            return ts if ts.tzinfo else ts.replace(tzinfo=UTC)
    return None
