"""Which answers of SendDurableExecutionCallback* end a review link (#31.4): only those that say
the callback no longer waits. An AccessDenied (a missing IAM permission) is the service's
problem, not the run's: the reviewer sees a 5xx page and the link stays usable."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from botocore.exceptions import ClientError

from docflow import aws
from docflow.review.stage.callbacks import CallbackGone, LambdaCallbackSender
from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import Stack
from tests.support.review_desk import Desk, RunnerCallbacks, open_desk, post_decision

# (status, body, headers) as the durable testing runner and the Lambda service send them.
RUNNER_CONFLICT = (409, {"Type": "ExecutionConflictException", "message": "completed"}, {})
RUNNER_TIMEOUT = (408, {"Type": "CallbackTimeoutException", "message": "timed out"}, {})
RUNNER_NOT_FOUND = (404, {"Type": "ResourceNotFoundException", "Message": "no such"}, {})
SERVICE_INVALID = (
    400,
    {"message": "callback is not active"},
    {"x-amzn-ErrorType": "InvalidParameterValueException"},
)
ACCESS_DENIED = (
    403,
    {"Message": "not authorized to perform lambda:SendDurableExecutionCallbackHeartbeat"},
    {"x-amzn-ErrorType": "AccessDeniedException"},
)


class _Answering(BaseHTTPRequestHandler):
    answer: tuple[int, dict, dict] = ACCESS_DENIED

    def do_POST(self) -> None:
        status, body, headers = type(self).answer
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def lambda_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[_Answering]]:
    """A Lambda endpoint that answers every callback call with `_Answering.answer`."""
    handler = type("Answering", (_Answering,), {})
    server = HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    for name, value in (("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_ACCESS_KEY_ID", "test")):
        monkeypatch.setenv(name, os.environ.get(name, value))
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", os.environ.get("AWS_SECRET_ACCESS_KEY", "test"))
    aws.reset_clients()
    yield handler
    server.shutdown()
    aws.reset_clients()


@pytest.mark.parametrize(
    "answer", [RUNNER_CONFLICT, RUNNER_TIMEOUT, RUNNER_NOT_FOUND, SERVICE_INVALID]
)
def test_the_answers_that_mean_gone_are_gone(
    lambda_endpoint: type[_Answering], answer: tuple[int, dict, dict]
) -> None:
    lambda_endpoint.answer = answer
    with pytest.raises(CallbackGone):
        LambdaCallbackSender().heartbeat("cb-1")


def test_access_denied_is_not_gone(lambda_endpoint: type[_Answering]) -> None:
    lambda_endpoint.answer = ACCESS_DENIED
    with pytest.raises(ClientError) as raised:
        LambdaCallbackSender().heartbeat("cb-1")
    assert not isinstance(raised.value, CallbackGone)
    assert aws.error_code(raised.value) == "AccessDeniedException"


class DeniedThenAllowed(RunnerCallbacks):
    """The runner's callbacks, but while `denied` every call goes through the real Lambda client
    to an endpoint answering AccessDenied (the role lost its permission)."""

    denied = False

    def heartbeat(self, callback_id: str) -> None:
        if self.denied:
            LambdaCallbackSender().heartbeat(callback_id)
            return
        super().heartbeat(callback_id)

    def success(self, callback_id: str, result: bytes) -> None:
        if self.denied:
            LambdaCallbackSender().success(callback_id, result)
            return
        super().success(callback_id, result)


def test_an_access_denied_leaves_the_link_usable(
    stack: Stack, lambda_endpoint: type[_Answering]
) -> None:
    lambda_endpoint.answer = ACCESS_DENIED
    doc = stack.upload("in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD))

    def desk(stack: Stack, runner, callbacks) -> Desk:
        callbacks.__class__ = DeniedThenAllowed
        return Desk(stack, runner, callbacks)

    with open_desk(stack, desk) as d:
        arn = d.start(doc)
        d.runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        token = d.links(doc)[0]
        d.callbacks.denied = True
        refused = post_decision(token, "approve", "fine")
        assert refused["statusCode"] == 503
        assert "try again" in refused["body"]
        assert not d.callbacks.sent

        d.callbacks.denied = False  # the permission is back: the same link still decides
        answer = post_decision(token, "approve", "fine")
        assert answer["statusCode"] == 200 and "approved" in answer["body"]
        assert len(links_in(moto_sent_mail())) >= 1
