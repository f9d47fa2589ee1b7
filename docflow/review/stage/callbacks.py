"""Sending a waiting execution its callback: the durable service's three callback calls.

One rule for every answer, in AWS and on the local runner alike: a client error (any 4xx,
whatever its code: "not found", "not active", "conflict", "timed out") means the execution is
no longer waiting on this callback, so it is `CallbackGone`; throttling and 5xx are passing
and are retried by botocore, then raised.
"""

from __future__ import annotations

from typing import Any, Protocol

from botocore.exceptions import ClientError

from docflow import aws

_PASSING = frozenset(
    {"ThrottlingException", "TooManyRequestsException", "RequestLimitExceeded", "Throttling"}
)


class CallbackGone(Exception):
    """The execution is no longer waiting on this callback (decided, timed out, finished)."""


class CallbackSender(Protocol):
    def success(self, callback_id: str, result: bytes) -> None: ...

    def failure(self, callback_id: str, error_type: str, message: str) -> None: ...

    def heartbeat(self, callback_id: str) -> None: ...


def is_gone(exc: ClientError) -> bool:
    error = exc.response.get("Error", {})
    status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
    return 400 <= status < 500 and status != 429 and error.get("Code") not in _PASSING


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
