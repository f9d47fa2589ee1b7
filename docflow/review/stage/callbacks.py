"""Sending a waiting execution its callback: the durable service's three callback calls.

Only the answers that mean "nothing waits on this callback" are `CallbackGone`. The Lambda
service model (botocore's `send_durable_execution_callback_*`) lists two client errors:
`CallbackTimeoutException` (the callback timed out) and `InvalidParameterValueException` (no
such open callback: completed, or its execution ended). The durable testing runner answers
the same two and also `ResourceNotFoundException` (unknown callback) and
`ExecutionConflictException` (409, the callback is already completed), with a body whose
error type botocore does not read, so its code arrives as the bare status ("404", "408",
"409"). Every other error
(AccessDenied from a missing IAM permission, a bad signature, KMS, throttling, 5xx) is raised
as it is: the caller answers with a 5xx and the reviewer's link stays usable, so a
misconfiguration never spends a decision.
"""

from __future__ import annotations

from typing import Any, Protocol

from botocore.exceptions import ClientError

from docflow import aws

GONE_CODES = frozenset(
    {
        "CallbackTimeoutException",
        "InvalidParameterValueException",
        "ResourceNotFoundException",
        "ExecutionConflictException",
        "ConflictException",
        "404",
        "408",
        "409",
    }
)


class CallbackGone(Exception):
    """The execution is no longer waiting on this callback (decided, timed out, finished)."""


class CallbackSender(Protocol):
    def success(self, callback_id: str, result: bytes) -> None: ...

    def failure(self, callback_id: str, error_type: str, message: str) -> None: ...

    def heartbeat(self, callback_id: str) -> None: ...


def is_gone(exc: ClientError) -> bool:
    """Does the service's answer mean the callback no longer waits? By its code only: a 4xx
    such as AccessDenied says nothing about the execution."""
    return aws.error_code(exc) in GONE_CODES


class LambdaCallbackSender:
    """SendDurableExecutionCallback* through the Lambda API (the real service or the runner)."""

    def success(self, callback_id: str, result: bytes) -> None:
        self._call("send_durable_execution_callback_success", CallbackId=callback_id, Result=result)

    def failure(self, callback_id: str, error_type: str, message: str) -> None:
        """Fail a callback; one that is already over is not an error (the call is idempotent).

        The type goes in ErrorData too: the SDK hands the waiting code the failure's message
        and data, not its type (it stays on the callback operation's details).
        """
        try:
            self._call(
                "send_durable_execution_callback_failure",
                CallbackId=callback_id,
                Error={"ErrorType": error_type, "ErrorMessage": message, "ErrorData": error_type},
            )
        except CallbackGone:
            return

    def heartbeat(self, callback_id: str) -> None:
        self._call("send_durable_execution_callback_heartbeat", CallbackId=callback_id)

    def _call(self, operation: str, **args: Any) -> None:
        try:
            getattr(aws.client("lambda"), operation)(**args)
        except ClientError as exc:
            if is_gone(exc):
                raise CallbackGone(aws.error_code(exc)) from exc
            raise
