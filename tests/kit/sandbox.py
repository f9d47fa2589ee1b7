"""An in-process AWS for tests and benchmarks: moto, the template's resources, and settings.

Process state that caches clients or settings is reset on the way in and out, so a sandbox
never talks to a client created for another endpoint.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from moto import mock_aws

from docflow.local.fidelity.moto_atomic import make_dynamodb_atomic
from docflow.local.resources import LocalNames, provision
from docflow.local.tools.process_state import reset_process_state

FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
__all__ = ["FAKE_CREDENTIALS", "moto_sandbox", "reset_process_state"]


@contextmanager
def moto_sandbox(names: LocalNames, env: dict[str, str] | None = None) -> Iterator[LocalNames]:
    """moto in-process with the template's buckets, tables and secret; env set for the run."""
    wanted = {
        **FAKE_CREDENTIALS,
        "DOCFLOW_REPORTER": "inprocess",
        **names.settings_env(),
        **(env or {}),
    }
    saved = {k: os.environ.get(k) for k in wanted}
    endpoints = {k: v for k, v in os.environ.items() if k.startswith("AWS_ENDPOINT_URL")}
    os.environ.update(wanted)
    for key in endpoints:
        del os.environ[key]
    reset_process_state()
    make_dynamodb_atomic()
    try:
        with mock_aws():
            provision(names, with_intake=False)
            yield names
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        os.environ.update(endpoints)
        reset_process_state()
