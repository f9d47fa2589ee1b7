"""A loopback HTTP server for an emulator whose API uses GET as well as POST (REST-JSON).

Same shape as the emulators' base (`Request` in, `Reply` out, `handle`, `start`/`stop`), with
the request's method: Bedrock's control plane reads jobs with GET.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


class LoopbackServer(ABC):
    content_type = "application/json"

    def __init__(self, port: int = 0) -> None:
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

    @abstractmethod
    def handle(self, request: Request) -> Reply: ...


def _handler_for(emulator: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            reply = emulator.handle(Request(method, self.path, dict(self.headers.items()), body))
            raw = json.dumps(reply.body).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", emulator.content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

    return Handler
