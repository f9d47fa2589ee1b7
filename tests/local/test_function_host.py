"""The local function host runs each invocation on a thread, but a function whose handler keeps
the request in a global (Powertools' event handler: the callback API) takes turns, as in one
Lambda execution environment; the others still run side by side."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import ThreadingHTTPServer

import pytest

from docflow.local.services import host

_inside = 0
_most = 0
_count = threading.Lock()
_together = threading.Barrier(3, timeout=30)


def overlap_handler(event: dict, context: object) -> dict:
    """Counts how many invocations are inside at once (a stand-in handler, named as such)."""
    global _inside, _most
    with _count:
        _inside += 1
        _most = max(_most, _inside)
    time.sleep(0.05)
    with _count:
        _inside -= 1
    return {"statusCode": 200}


def meeting_handler(event: dict, context: object) -> dict:
    """Returns only when three invocations are inside at once (a stand-in handler)."""
    _together.wait()
    return {"statusCode": 200}


@pytest.fixture()
def function_host(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setitem(host.FUNCTIONS, "docflow-callback-api", f"{__name__}:overlap_handler")
    monkeypatch.setitem(host.FUNCTIONS, "docflow-starter", f"{__name__}:meeting_handler")
    monkeypatch.setattr(host, "_handlers", {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), host.InvokeHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()


def _invoke(port: int, name: str) -> tuple[int, str | None]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/2015-03-31/functions/{name}/invocations",
        data=json.dumps({}).encode(),
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.status, answer.headers.get("X-Amz-Function-Error")


def test_the_callback_api_answers_one_request_at_a_time(function_host: int) -> None:
    names = ["docflow-callback-api", "arn:aws:lambda:us-east-1:1:function:docflow-callback-api"]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: _invoke(function_host, names[i % 2]), range(16)))
    assert answers == [(200, None)] * 16
    assert _most == 1


def test_other_functions_still_run_side_by_side(function_host: int) -> None:
    with ThreadPoolExecutor(3) as pool:
        answers = list(pool.map(lambda _: _invoke(function_host, "docflow-starter"), range(3)))
    # The barrier lets them through only together: taking turns would break it (an error).
    assert answers == [(200, None)] * 3
