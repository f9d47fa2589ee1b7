"""The local Invoke endpoint: hosts the project's functions in-process, as Lambda would.

It answers the Lambda Invoke API (`POST /2015-03-31/functions/{name}/invocations`), the role
`sam local start-lambda` plays with Docker. The durable runner invokes the orchestrator here;
the orchestrator and the callback API invoke the status recorder here; the intake poller invokes
the starter here. Before it loads a function it hands the product the local runner's starter
(`starter.py`), which no Lambda package carries. Each invocation runs on its own thread, like
concurrent Lambda instances, but for the functions in ONE_AT_A_TIME; a handler error comes back
as Lambda reports it (X-Amz-Function-Error) and its traceback goes to the log, as Lambda writes
it to CloudWatch.

    python -m docflow.local.services.host --port 8791
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import re
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from docflow.intake import use_local_starters
from docflow.local.config import ACCOUNT_ID
from docflow.local.services.starter import local_starter
from docflow.observability import record_local

# Function name (as the template's logical id names it locally) -> handler.
FUNCTIONS = {
    "docflow-orchestrator": "orchestrator.app:handler",
    "docflow-status-recorder": "status_recorder.app:handler",
    "docflow-starter": "starter.app:handler",
    "docflow-callback-api": "callback_api.app:handler",
    "docflow-batcher": "batcher.app:handler",
    "docflow-batch-jobs": "batcher.job_events:handler",
    "docflow-batcher-schedule": "batcher.schedule:handler",
    "docflow-review-digest": "callback_api.digest:handler",
    "docflow-einvoice-rules": "einvoice_rules.app:handler",
}
TIMEOUTS = {"docflow-orchestrator": 900, "docflow-batcher": 900}
# A Lambda execution environment runs one invocation at a time, and some handlers rely on it:
# Powertools' event handler keeps the request being answered in a class attribute
# (`BaseRouter.current_event`) and clears it when done, so two requests on two threads of one
# process read each other's event, or None (a 502 under hostile traffic, once in 500). These
# functions' invocations take turns here, as if each had one environment.
ONE_AT_A_TIME = frozenset({"docflow-callback-api"})
_turns = {name: threading.Lock() for name in ONE_AT_A_TIME}
# More functions for this host, as "module:ATTR" naming a {function name: "module:attr"} dict:
# the conformance benchmark hosts its requirement handlers beside the project's functions.
EXTRA_FUNCTIONS_ENV = "DOCFLOW_LOCAL_EXTRA_FUNCTIONS"
VERSION_ENV = "DOCFLOW_FUNCTION_VERSION"
_INVOKE = re.compile(r"^/2015-03-31/functions/([^/]+)/invocations$")
_handlers: dict[str, Callable[..., Any]] = {}
_lock = threading.Lock()


def _base(name: str) -> str:
    """A qualified name or ARN ("fn:live", "arn:...:function:fn:live") names the same code."""
    return name.rsplit(":function:", 1)[-1].split(":", 1)[0]


def handler_for(name: str) -> Callable[..., Any] | None:
    base = _base(name)
    target = FUNCTIONS.get(base)
    if target is None:
        return None
    with _lock:
        # The runs a hosted function starts (the starter's, a packet's parts, the batcher the
        # schedule starts) go to the local runner by the stack's own starter, which claims
        # each name first: the product asks for it by the settings
        # (docflow.intake.build_starter) and never imports it.
        use_local_starters(local_starter)
        if base not in _handlers:
            module, attr = target.split(":")
            _handlers[base] = getattr(importlib.import_module(module), attr)
        return _handlers[base]


class LambdaContext:
    """The parts of Lambda's context object the handlers and SDKs read."""

    def __init__(self, name: str, timeout_s: int) -> None:
        self.function_name = name
        # The version this worker serves (docflow.local.versions): Lambda reports the version
        # that runs, whatever alias it was invoked by.
        self.function_version = os.environ.get(VERSION_ENV) or "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:{ACCOUNT_ID}:function:{name}"
        self.memory_limit_in_mb = 2048
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{name}"
        self.log_stream_name = "local"
        self.tenant_id = None
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class InvokeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return  # the functions log for themselves

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/health":
            self._send(200, b'{"ok": true}')
        else:
            self._send(404, b'{"message": "not found"}')

    def do_POST(self) -> None:
        match = _INVOKE.match(self.path.split("?", 1)[0])
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not match:
            self._send(404, b'{"message": "not an Invoke path"}')
            return
        name = unquote(match.group(1))
        fn = handler_for(name)
        if fn is None:
            body = {"Type": "User", "message": f"Function not found: {name}"}
            self._send(
                404, json.dumps(body).encode(), {"x-amzn-ErrorType": "ResourceNotFoundException"}
            )
            return
        event = json.loads(raw or b"null")
        context = LambdaContext(name, TIMEOUTS.get(name.split(":")[0], 60))
        request = {"x-amzn-RequestId": context.aws_request_id}
        if self.headers.get("X-Amz-Invocation-Type") == "Event":
            threading.Thread(target=_run, args=(fn, event, context), daemon=True).start()
            self._send(202, b"", request)
            return
        began = time.monotonic()
        try:
            with _turns.get(_base(name)) or contextlib.nullcontext():
                result = fn(event, context)
            _measured(name, began, failed=False)
            self._send(200, json.dumps(result).encode(), request)
        except Exception as exc:
            _measured(name, began, failed=True)
            traceback.print_exc()
            error = {
                "errorMessage": str(exc),
                "errorType": type(exc).__name__,
                "stackTrace": traceback.format_exc().splitlines()[-8:],
            }
            self._send(
                200, json.dumps(error).encode(), {**request, "X-Amz-Function-Error": "Unhandled"}
            )


def _run(fn: Callable[..., Any], event: Any, context: LambdaContext) -> None:
    began = time.monotonic()
    try:
        with _turns.get(_base(context.function_name)) or contextlib.nullcontext():
            fn(event, context)
        _measured(context.function_name, began, failed=False)
    except Exception:
        _measured(context.function_name, began, failed=True)
        traceback.print_exc()


def load_extra_functions() -> None:
    spec = os.environ.get(EXTRA_FUNCTIONS_ENV)
    if spec:
        module, attr = spec.split(":")
        FUNCTIONS.update(getattr(importlib.import_module(module), attr))


def _measured(name: str, began: float, failed: bool) -> None:
    """Lambda's own metrics (AWS/Lambda Invocations, Errors, Duration) for the local dashboard."""

    dims = {"FunctionName": name.rsplit(":function:", 1)[-1].split(":", 1)[0]}
    record_local("AWS/Lambda", "Invocations", 1, dims)
    record_local("AWS/Lambda", "Duration", round((time.monotonic() - began) * 1000, 1), dims)
    if failed:
        record_local("AWS/Lambda", "Errors", 1, dims)


def main() -> None:
    load_extra_functions()
    parser = argparse.ArgumentParser(description="docflow's local Invoke endpoint")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), InvokeHandler)
    server.daemon_threads = True
    print(f"invoke host on {args.host}:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
