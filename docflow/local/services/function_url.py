"""The callback API's Function URL, played locally: HTTP on the review port in, a payload-2.0
Invoke of the callback function out, refusing what a Function URL refuses before the function
runs (bodies over 6 MB, chunked or unreadable requests)."""

from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

from docflow import aws
from docflow.local.config import StackConfig
from docflow.local.services.dashboard import serve

FUNCTION_URL_MAX_BODY = 6 * 1024 * 1024


def query_parameters(query: str) -> dict[str, str]:
    """As a Function URL passes them: decoded, a repeated name's values joined by commas."""
    found: dict[str, list[str]] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        found.setdefault(name, []).append(value)
    return {name: ",".join(values) for name, values in found.items()}


class FunctionUrlFrontend:
    """Serves the callback API on the review port: HTTP in, payload-2.0 Invoke out."""

    def __init__(self, config: StackConfig) -> None:
        self.config = config
        frontend = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # A request line too broken to name its version still gets a status line back.
            default_request_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _any(self) -> None:
                frontend.handle(self)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", config.review_port), Handler)
        self.server.daemon_threads = True

    def start(self) -> None:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()

    @staticmethod
    def _refuse(request: BaseHTTPRequestHandler, status: int, message: str) -> None:
        # What a Function URL answers before the function runs; the body was not read, so
        # the connection cannot carry another request.
        raw = message.encode()
        request.close_connection = True
        request.send_response(status)
        request.send_header("Content-Type", "text/plain; charset=utf-8")
        request.send_header("Content-Length", str(len(raw)))
        request.send_header("Connection", "close")
        request.end_headers()
        request.wfile.write(raw)

    def _read_body(self, request: BaseHTTPRequestHandler) -> bytes | None:
        """The request body, or None once a refusal went out (Function URLs take 6 MB)."""
        if "chunked" in (request.headers.get("Transfer-Encoding") or "").lower():
            self._refuse(request, 411, "send a Content-Length")
            return None
        try:
            length = int(request.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self._refuse(request, 400, "bad Content-Length")
            return None
        if length > FUNCTION_URL_MAX_BODY:
            self._refuse(request, 413, "request body too large")
            return None
        return request.rfile.read(length) if length else b""

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        body = self._read_body(request)
        if body is None:
            return
        path, _, query = request.path.partition("?")
        if path == "/dashboard" or path.startswith("/dashboard/"):
            return serve(request, self.config, path, query)  # the operators' page, not the API
        event = {
            "version": "2.0",
            "routeKey": "$default",
            "rawPath": path,
            "rawQueryString": query,
            "headers": {k.lower(): v for k, v in request.headers.items() if k.lower() != "cookie"},
            # As a Function URL hands them over: one string per cookie, out of the headers.
            "cookies": [
                c.strip() for c in (request.headers.get("Cookie") or "").split(";") if c.strip()
            ],
            "requestContext": {
                "http": {
                    "method": request.command,
                    "path": path,
                    "protocol": "HTTP/1.1",
                    "sourceIp": request.client_address[0],
                    "userAgent": request.headers.get("User-Agent", ""),
                },
                "requestId": f"local-{time.time_ns()}",
                "stage": "$default",
                "timeEpoch": int(time.time() * 1000),
            },
            "body": base64.b64encode(body).decode() if body else None,
            "isBase64Encoded": bool(body),
        }
        if query:
            event["queryStringParameters"] = query_parameters(query)
        try:
            answer = aws.invoke_client().invoke(
                FunctionName="docflow-callback-api", Payload=json.dumps(event).encode()
            )
            result = json.loads(answer["Payload"].read() or b"{}")
            if answer.get("FunctionError"):
                result = {"statusCode": 502, "body": "the callback API failed"}
        except Exception:
            result = {"statusCode": 503, "body": "the callback API is restarting; try again"}
        status = int(result.get("statusCode", 200))
        out = result.get("body") or ""
        raw = base64.b64decode(out) if result.get("isBase64Encoded") else str(out).encode()
        request.send_response(status)
        headers = result.get("headers") or {}
        for key, value in headers.items():
            request.send_header(key, str(value))
        for cookie in result.get("cookies") or []:
            request.send_header("Set-Cookie", str(cookie))
        if "content-type" not in {k.lower() for k in headers}:
            request.send_header("Content-Type", "text/plain; charset=utf-8")
        request.send_header("Content-Length", str(len(raw)))
        request.end_headers()
        if request.command != "HEAD":
            request.wfile.write(raw)
