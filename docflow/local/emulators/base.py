"""One loopback HTTP server for every emulator: an emulator is only its API's behaviour.

`LoopbackEmulator` owns what the emulators share: a threaded HTTP server on 127.0.0.1 (port 0
picks a free one; `url` says which), reading each request's method (POST; GET for a REST API's
reads), path, headers and body, writing a JSON answer with the status and headers the emulator
chose, seeded fault injection (`throttle_rate`, `seed`), a lock for the emulator's counters,
and `start()` / `stop()`.

To write an emulator on it:

    class MyEmulator(LoopbackEmulator):
        content_type = "application/x-amz-json-1.1"   # what the API answers with

        def __init__(self, port: int = 0, throttle_rate: float = 0.0, seed: int = 0) -> None:
            super().__init__(port=port, throttle_rate=throttle_rate, seed=seed)
            self.stats = MyStats()                     # counters, changed under self._lock

        def handle(self, request: Request) -> Reply:
            # route on request.path (REST-JSON) or request.headers["X-Amz-Target"] (JSON 1.x);
            # a throttled call: `if self.draw_throttle(): return Reply(429, {...}, {...})`
            return Reply(200, {...})

    emulator = MyEmulator(throttle_rate=0.3, seed=1).start()
    os.environ["AWS_ENDPOINT_URL_MYSERVICE"] = emulator.url
    ...
    emulator.stop()

Keep the API's wire shapes (error type header or `__type`, status codes) as AWS sends them, so
botocore's parsing and retries run unchanged; emulate the API, never claim a model's accuracy.
Emulators import nothing of the local stack, so tests and benchmarks can start one alone.
"""

from __future__ import annotations

import json
import random
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: bytes
    # REST-JSON APIs read with GET (Bedrock's Get/ListModelInvocationJob); JSON 1.x is POST.
    method: str = "POST"

    def header(self, name: str) -> str:
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), "")


@dataclass(frozen=True)
class Reply:
    status: int
    body: Mapping[str, object]  # JSON: the service's answer or its error
    headers: dict[str, str] = field(default_factory=dict)


class LoopbackEmulator(ABC):
    content_type = "application/json"

    def __init__(self, port: int = 0, throttle_rate: float = 0.0, seed: int = 0) -> None:
        if not 0.0 <= throttle_rate < 1.0:
            raise ValueError("throttle_rate must be in [0, 1)")
        self.throttle_rate = throttle_rate
        self._random = random.Random(seed)  # noqa: S311 - fault injection, not crypto
        # Re-entrant so an emulator may draw a fault while it holds the lock for its counters.
        self._lock = threading.RLock()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> Self:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def draw_throttle(self) -> bool:
        """One seeded draw: whether this call is refused as throttled."""
        with self._lock:
            return self._random.random() < self.throttle_rate

    @abstractmethod
    def handle(self, request: Request) -> Reply:
        """The API's behaviour: one request in, one JSON answer out."""


def _handler_for(emulator: LoopbackEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            request = Request(self.path, dict(self.headers.items()), body, method)
            reply = emulator.handle(request)
            raw = json.dumps(reply.body).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", emulator.content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    return Handler
