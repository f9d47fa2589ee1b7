"""An in-process AWS for tests and benchmarks: moto, the template's resources, and settings.

The template is provisioned once per process and set of names; every later sandbox (and every
`refill`) puts back the snapshot of moto that provisioning left (tests/kit/moto_snapshot.py)
instead of making the same thirty calls again. Process state that caches clients or settings
is reset on the way in and out, so a sandbox never talks to a client created for another
endpoint.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from moto import mock_aws

from docflow.local.fidelity.moto_atomic import make_dynamodb_atomic
from docflow.local.resources import LocalNames, provision
from docflow.local.tools.process_state import reset_process_state
from docflow.settings import load_settings
from docflow.storage import clear_source_cache
from tests.kit import moto_snapshot

FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
__all__ = [
    "FAKE_CREDENTIALS",
    "forget_settings",
    "moto_sandbox",
    "provisioned",
    "refill",
    "reset_process_state",
    "sandbox_env",
]


# The sandboxes open in this process, innermost last.
_open: list[LocalNames] = []


@contextmanager
def moto_sandbox(names: LocalNames, env: dict[str, str] | None = None) -> Iterator[LocalNames]:
    """moto in-process with the template's buckets, tables and secret; env set for the run.
    A sandbox opened inside another adds its resources to the outer one's moto (one mock
    serves both), as provisioning always did."""
    wanted = sandbox_env(names, env)
    saved = {k: os.environ.get(k) for k in wanted}
    endpoints = {k: v for k, v in os.environ.items() if k.startswith("AWS_ENDPOINT_URL")}
    os.environ.update(wanted)
    for key in endpoints:
        del os.environ[key]
    reset_process_state()
    make_dynamodb_atomic()
    try:
        with mock_aws():
            if _open:
                provision(names, with_intake=False)
            else:
                provisioned(names)
            _open.append(names)
            try:
                yield names
            finally:
                _open.pop()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        os.environ.update(endpoints)
        reset_process_state()


def sandbox_env(names: LocalNames, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment `moto_sandbox(names, env)` sets."""
    return {
        **FAKE_CREDENTIALS,
        "DOCFLOW_REPORTER": "inprocess",
        **names.settings_env(),
        **(env or {}),
    }


def refill(names: LocalNames, env: dict[str, str] | None = None) -> None:
    """Inside `moto_sandbox(names, env)`: moto as a new sandbox would give it, for a fraction of
    the cost. Every backend is emptied (what moto does whenever a mock starts: nothing of the
    last user's buckets, tables, mail or events is left) and the provisioned template put
    back, the sandbox's environment set again and the settings, runtime and source cache
    forgotten. What is kept is what holds no data: the mock itself and the boto3 clients, whose
    creation was most of a new sandbox's cost."""
    os.environ.update(sandbox_env(names, env))
    for key in [k for k in os.environ if k.startswith("AWS_ENDPOINT_URL")]:
        del os.environ[key]
    forget_settings()
    provisioned(names)


# The snapshot of moto right after provisioning, per set of names (LocalNames holds a dict, so
# it is keyed by its contents), taken by the first sandbox of those names in this process.
_provisioned: dict[tuple[str, tuple[tuple[str, str], ...]], moto_snapshot.Snapshot] = {}


def provisioned(names: LocalNames) -> None:
    """Inside a mock: moto holding the template's resources under `names` and nothing else,
    restored from this process's snapshot of them, provisioned (and the snapshot taken) the
    first time."""
    key = (names.prefix, tuple(sorted(names.overrides.items())))
    snapshot = _provisioned.get(key)
    if snapshot is not None:
        moto_snapshot.restore(snapshot)
        return
    moto_snapshot.empty()
    provision(names, with_intake=False)
    _provisioned[key] = moto_snapshot.take()


def forget_settings() -> None:
    """`reset_process_state` but the clients: the settings, the runtime and the source cache
    a test made are not the next test's."""
    load_settings.cache_clear()
    clear_source_cache()
    runtime = sys.modules.get("docflow.runtime")
    if runtime is not None:
        runtime.use_runtime(None)
