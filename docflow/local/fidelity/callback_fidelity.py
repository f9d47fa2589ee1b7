"""A named adapter over the testing runner: callbacks of an ended execution are not active.

The durable service refuses SendDurableExecutionCallback* for a callback whose execution has
ended (timed out, failed, stopped): the callback can no longer resume anything. The testing
runner 1.4.0 checks only the callback operation's own status, which stays STARTED when the
execution ends around it, so a heartbeat is accepted and a success is swallowed. The review
desk relies on the service's answer to tell a reviewer that the run is over, so the local
stack (and the tests, on the in-process runner) apply this adapter to the runner's executor.
"""

from __future__ import annotations

from typing import Any

_GUARDED = ("send_callback_success", "send_callback_failure", "send_callback_heartbeat")


def close_callbacks_of_ended_executions(executor: Any) -> None:
    # the testing SDK loads only where the runner is served or patched
    from aws_durable_execution_sdk_python_testing.exceptions import (
        ResourceNotFoundException,
    )

    # the testing SDK loads only where the runner is served or patched
    from aws_durable_execution_sdk_python_testing.token import CallbackToken

    def guard(original: Any) -> Any:
        def call(callback_id: str, *args: Any, **kwargs: Any) -> Any:
            try:
                execution = executor.get_execution(
                    CallbackToken.from_str(callback_id).execution_arn
                )
            except Exception:
                execution = None  # let the runner answer for ids it cannot read
            if execution is not None and execution.is_complete:
                raise ResourceNotFoundException(f"Callback {callback_id} is not active")
            return original(callback_id, *args, **kwargs)

        return call

    if getattr(executor, "_docflow_callbacks_guarded", False):
        return
    for name in _GUARDED:
        setattr(executor, name, guard(getattr(executor, name)))
    executor._docflow_callbacks_guarded = True
