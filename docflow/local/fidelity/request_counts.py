"""Every AWS request the local stack answers, counted by service and operation.

moto's server sees S3, DynamoDB, SQS, EventBridge, SES and Secrets Manager requests; the
durable runner sees Lambda's durable-execution APIs (checkpoints, state, callbacks); the
functions' host sees Invoke (counted there, versions/router.py). Together they are what a
document costs in requests, which is what bounds the stack: moto answers one request at a
time. `docflow status --json` shows them under stats.awsRequests.

A service is read from the request's SigV4 credential scope (the header, or the query of a
presigned URL); an operation from X-Amz-Target or the query protocol's Action, and for S3's
REST API from the method, the path and the subresource.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

_SCOPE = re.compile(r"Credential=[^/,]+/\d{8}/[^/]+/([a-z0-9-]+)/aws4_request")
_QUERY_SCOPE = re.compile(r"X-Amz-Credential=[^&]*?%2F\d{8}%2F[^%]+%2F([a-z0-9-]+)%2F")
_lock = threading.Lock()
_counts: Counter[tuple[str, str]] = Counter()


def _service(environ: WSGIEnvironment) -> str:
    found = _SCOPE.search(str(environ.get("HTTP_AUTHORIZATION", "")))
    if found is None:
        found = _QUERY_SCOPE.search(str(environ.get("QUERY_STRING", "")))
    return found.group(1) if found else "unsigned"


# S3 subresources that name an operation of their own (?tagging, ?versions, ...).
_SUBRESOURCES = (
    "uploads", "uploadId", "delete", "tagging", "versioning", "versions", "notification",
    "location", "lifecycle", "policy", "acl", "cors", "encryption", "list-type",
)  # fmt: skip
_S3_OBJECT = {
    "GET": "GetObject",
    "PUT": "PutObject",
    "HEAD": "HeadObject",
    "DELETE": "DeleteObject",
}
_S3_BUCKET = {
    "GET": "ListObjects",
    "PUT": "CreateBucket",
    "HEAD": "HeadBucket",
    "DELETE": "DeleteBucket",
}


def _s3_operation(environ: WSGIEnvironment) -> str:
    method = str(environ.get("REQUEST_METHOD", ""))
    path = str(environ.get("PATH_INFO", "")).lstrip("/")
    on_object = "/" in path and not path.endswith("/")
    query = parse_qs(str(environ.get("QUERY_STRING", "")), keep_blank_values=True)
    sub = next((name for name in _SUBRESOURCES if name in query), None)
    if on_object and sub is None:
        if method == "PUT" and environ.get("HTTP_X_AMZ_COPY_SOURCE"):
            return "CopyObject"
        return _S3_OBJECT.get(method, method)
    if not on_object and sub is None:
        return _S3_BUCKET.get(method, method)
    if sub == "list-type":
        return "ListObjectsV2"
    if sub == "versions":
        return "ListObjectVersions"
    if sub == "uploads":
        return "CreateMultipartUpload"
    if sub == "uploadId":
        return {"PUT": "UploadPart", "POST": "CompleteMultipartUpload"}.get(method, method)
    if sub == "delete":
        return "DeleteObjects"
    verb = {"GET": "Get", "PUT": "Put", "DELETE": "Delete"}.get(method, method)
    return f"{verb}{'Object' if on_object else 'Bucket'}{str(sub).title()}"


def operation(environ: WSGIEnvironment, body: bytes) -> tuple[str, str]:
    """(service, operation) of one request to moto's server."""
    service = _service(environ)
    target = environ.get("HTTP_X_AMZ_TARGET")
    if target:
        return service, str(target).rsplit(".", 1)[-1]
    if b"Action=" in body[:200]:
        found = parse_qs(body[:2000].decode("latin-1")).get("Action")
        if found:
            return service, found[0]
    if service == "s3":
        return service, _s3_operation(environ)
    return service, f"{environ.get('REQUEST_METHOD')} {environ.get('PATH_INFO', '')[:40]}"


def count(service: str, name: str) -> None:
    with _lock:
        _counts[service, name] += 1


def count_moto_request(environ: WSGIEnvironment, body: bytes) -> None:
    count(*operation(environ, body))


def snapshot() -> dict[str, dict[str, int]]:
    """{service: {operation: requests}} since the process started."""
    with _lock:
        items = list(_counts.items())
    found: dict[str, dict[str, int]] = {}
    for (service, name), n in sorted(items):
        found.setdefault(service, {})[name] = n
    return found


def count_runner_requests(server: Any) -> None:
    """Count every request the durable runner's web server routes, by its route's name
    (CheckpointDurableExecution, GetDurableExecutionState, ...), as Lambda's."""
    for route, handler in server.endpoint_handlers.items():
        name = route.__name__.removesuffix("Route")
        original = handler.handle

        def handle(*args: Any, _original: Any = original, _name: str = name) -> Any:
            count("lambda", _name)
            return _original(*args)

        handler.handle = handle
