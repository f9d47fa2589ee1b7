"""The review desk as the callback API runs it, with callbacks delivered to the durable testing
runner instead of the Lambda service, and the calls a reviewer's browser makes."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import urlencode

from aws_durable_execution_sdk_python.lambda_service import ErrorObject
from aws_durable_execution_sdk_python_testing.exceptions import AwsApiException
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

import callback_api.app as api
from docflow.ids import DocumentRef
from docflow.local.fidelity.callback_fidelity import close_callbacks_of_ended_executions
from docflow.reporting import build_reporter
from docflow.review.access.keys import build_key_source
from docflow.review.access.links import LinkStore
from docflow.review.desk import ReviewDesk
from docflow.review.stage.callbacks import CallbackGone
from docflow.review.web.views import ReviewViews
from docflow.runtime import build_runtime, use_runtime
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import Stack, result_json
from tests.support.function_url import FakeLambdaContext, url_event
from tests.support.waiting import wait_until

__all__ = [
    "Desk",
    "RunnerCallbacks",
    "call",
    "make_views",
    "open_desk",
    "post_decision",
    "wait_until",
]


@dataclass
class RunnerCallbacks:
    """The callback API's sender, delivering to the testing runner's callback endpoint."""

    runner: DurableFunctionTestRunner
    sent: list[str] = field(default_factory=list)
    heartbeats: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        # As the local stack does: the service's answer for callbacks of ended executions.
        close_callbacks_of_ended_executions(self.runner._executor)

    def success(self, callback_id: str, result: bytes) -> None:
        try:
            self.runner.send_callback_success(callback_id, result)
        except AwsApiException as exc:
            raise CallbackGone(type(exc).__name__) from exc
        with self.lock:
            self.sent.append(callback_id)

    def failure(self, callback_id: str, error_type: str, message: str) -> None:
        try:
            error = ErrorObject(message=message, type=error_type, data=error_type, stack_trace=None)
            self.runner.send_callback_failure(callback_id, error)
        except AwsApiException:
            return
        with self.lock:
            self.failed.append(callback_id)

    def heartbeat(self, callback_id: str) -> None:
        try:
            self.runner.send_callback_heartbeat(callback_id)
        except AwsApiException as exc:
            raise CallbackGone(type(exc).__name__) from exc
        self.heartbeats.append(callback_id)


def make_views(callbacks: RunnerCallbacks) -> ReviewViews:
    """The callback API's real views, sending callbacks to the testing runner."""
    s = load_settings()
    views = ReviewViews.from_settings(s)
    links = LinkStore(s.links_table)
    views.desk = ReviewDesk(build_key_source(s), links, callbacks, build_reporter(s))
    return views


@dataclass
class Desk:
    """A reviewer's desk on the testing runner: start runs, find the mailed links, wait."""

    stack: Stack
    runner: DurableFunctionTestRunner
    callbacks: RunnerCallbacks

    def start(self, doc: DocumentRef, timeout: int = 120) -> str:
        return self.runner.run_async(input=self.stack.event(doc), execution_timeout=timeout)

    def links(self, doc: DocumentRef, stage: int = 0, want: int = 1) -> list[str]:
        def mine() -> list[str]:
            return [
                m.token
                for m in links_in(moto_sent_mail())
                if m.run_id == doc.run_id and m.stage_index == stage
            ]

        wait_until(lambda: len(mine()) >= want)
        return mine()

    def result(self, arn: str) -> dict:
        return result_json(self.runner.wait_for_result(arn, timeout=60))


AnyDesk = TypeVar("AnyDesk")


@contextlib.contextmanager
def open_desk(
    stack: Stack,
    desk: Callable[[Stack, DurableFunctionTestRunner, RunnerCallbacks], AnyDesk] = Desk,
) -> Iterator[AnyDesk]:
    """The testing runner, the callback API's views and the runtime, wired to each other, for
    settings read now (a test may set its own first); `desk` builds the test's view of them."""
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        callbacks = RunnerCallbacks(runner)
        api.use_views(make_views(callbacks))
        use_runtime(build_runtime().with_(callbacks=callbacks))
        try:
            yield desk(stack, runner, callbacks)
        finally:
            api.use_views(None)
            use_runtime(None)


def call(method: str, path: str, body: str | bytes | None = None, **headers: str) -> dict:
    return api.handler(url_event(method, path, body, headers), FakeLambdaContext())


def post_decision(token: str, decision: str, comment: str = "", reason: str = "other") -> dict:
    if decision == "reject" and reason == "other" and not comment:
        comment = "another reason, said here"  # "other" needs the reviewer's words
    form = {"decision": decision, "comment": comment}
    if decision == "reject" and reason:
        form["reason"] = reason
    return call(
        "POST",
        f"/review/{token}",
        urlencode(form),
        **{"content-type": "application/x-www-form-urlencoded"},
    )
