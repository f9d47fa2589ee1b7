"""boto3 clients, one per service per process.

boto3 clients are thread-safe (sessions are not), and the map over page batches runs steps on
a thread pool, so every thread shares these. Endpoints come from boto3's own
`AWS_ENDPOINT_URL[_<SERVICE>]` variables, which is how the local stack points them at moto.
"""

from __future__ import annotations

import threading
from typing import Any

import boto3
from botocore.config import Config

_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 5},
    connect_timeout=5,
    read_timeout=60,
    max_pool_connections=64,
)
_clients: dict[str, Any] = {}
_lock = threading.Lock()


def client(service: str) -> Any:
    with _lock:
        found = _clients.get(service)
        if found is None:
            found = _clients[service] = boto3.session.Session().client(service, config=_CONFIG)
        return found


def reset_clients() -> None:
    """Forget cached clients (tests do this when they switch moto on or off)."""
    with _lock:
        _clients.clear()
