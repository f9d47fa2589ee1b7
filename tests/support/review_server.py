"""The callback API's real handler served over loopback HTTP, in the test's own process (so it
shares the test's moto and testing runner), for a real browser to open review pages.

Each request becomes the Function URL event the handler gets in AWS (`url_event`), and the
handler's answer goes back as it would through a Function URL (base64 bodies decoded).
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import callback_api.app as api
from tests.support.function_url import FakeLambdaContext, url_event


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _any(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        split = urlsplit(self.path)
        event = url_event(self.command, split.path, body, dict(self.headers.items()))
        event["rawQueryString"] = split.query
        if split.query:
            event["queryStringParameters"] = dict(
                part.split("=", 1) for part in split.query.split("&") if "=" in part
            )
        answer = api.handler(event, FakeLambdaContext())
        raw = answer.get("body") or ""
        data = base64.b64decode(raw) if answer.get("isBase64Encoded") else raw.encode()
        self.send_response(int(answer["statusCode"]))
        for name, value in (answer.get("headers") or {}).items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        for cookie in answer.get("cookies") or []:  # as a Function URL sends them
            self.send_header("Set-Cookie", cookie)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _any


@contextmanager
def serve_review_pages() -> Iterator[str]:
    """`http://127.0.0.1:<port>`, serving the callback API until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
