"""boto3 clients, one per service per process.

boto3 clients are thread-safe (sessions are not), and the map over page batches runs steps on
a thread pool, so every thread shares these. Endpoints come from boto3's own
`AWS_ENDPOINT_URL[_<SERVICE>]` variables, which is how the local stack points them at moto.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import boto3
import botocore.loaders
import botocore.session
from botocore.client import BaseClient
from botocore.config import Config

_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 5},
    connect_timeout=5,
    read_timeout=60,
    max_pool_connections=64,
)
# Invokes of the orchestrator can run for its whole 15-minute timeout.
_INVOKE_CONFIG = _CONFIG.merge(
    Config(read_timeout=960, retries={"mode": "standard", "max_attempts": 3})
)
_clients: dict[str, BaseClient] = {}
_lock = threading.Lock()
# botocore's service models (JSON, megabytes of it), read once per process: each new session
# otherwise reads them again, which cost the tests (a fresh moto per test) a second a test.
_models = botocore.loaders.create_loader()


def _session() -> boto3.session.Session:
    core = botocore.session.get_session()
    core.register_component("data_loader", _models)
    session = boto3.session.Session(botocore_session=core)
    # boto3 adds its own data folder to the loader's search path each time: once is enough.
    _models.search_paths[:] = list(dict.fromkeys(_models.search_paths))
    return session


def client(service: str) -> Any:
    with _lock:
        found = _clients.get(service)
        if found is None:
            found = _clients[service] = _session().client(service, config=_CONFIG)
        return found


def invoke_client() -> Any:
    """The Lambda client for Invoke calls.

    On the local stack, Invoke goes to the function host while every other Lambda API call
    (checkpoints, callbacks) goes to the durable runner, so the two need separate endpoints.
    In AWS both are the Lambda service and this is the ordinary client.
    """
    endpoint = os.environ.get("DOCFLOW_LAMBDA_INVOKE_ENDPOINT")
    if not endpoint:
        return client("lambda")
    with _lock:
        found = _clients.get("lambda-invoke")
        if found is None:
            found = _clients["lambda-invoke"] = _session().client(
                "lambda", endpoint_url=endpoint, config=_INVOKE_CONFIG
            )
        return found


def error_code(exc: Exception) -> str:
    """The AWS error code of a botocore ClientError ("" for anything else)."""
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def reset_clients() -> None:
    """Forget cached clients (tests do this when they switch moto on or off)."""
    with _lock:
        _clients.clear()
