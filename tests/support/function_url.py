"""Lambda Function URL events (payload format 2.0), as the Function URL service builds them."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qsl


def url_event(
    method: str,
    path: str,
    body: bytes | str | None = None,
    headers: dict[str, str] | None = None,
    base64_body: bool = False,
) -> dict[str, Any]:
    raw = body.encode() if isinstance(body, str) else body
    path, _, query = path.partition("?")  # as the Function URL splits a request's URL
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": query,
        "headers": {
            "host": "abc.lambda-url.us-east-1.on.aws",
            **{k.lower(): v for k, v in (headers or {}).items()},
        },
        "requestContext": {
            "accountId": "anonymous",
            "apiId": "abc",
            "domainName": "abc.lambda-url.us-east-1.on.aws",
            "domainPrefix": "abc",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": "test",
            },
            "requestId": "r-1",
            "routeKey": "$default",
            "stage": "$default",
            "time": "29/Nov/2026:10:00:00 +0000",
            "timeEpoch": 1795960800000,
        },
        "isBase64Encoded": base64_body,
    }
    if query:
        event["queryStringParameters"] = dict(parse_qsl(query))
    if raw is not None:
        event["body"] = (
            base64.b64encode(raw).decode() if base64_body else raw.decode("utf-8", "replace")
        )
    return event


class FakeLambdaContext:
    function_name = "callback-api"
    memory_limit_in_mb = 128
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:callback-api"
    aws_request_id = "req-1"
