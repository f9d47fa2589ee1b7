"""The end-to-end tests' one local stack: `live_stack`, the real `docflow up` in a temporary
folder on a free block of ports, one per module, stopped after the module's last test.

A module shapes its stack with the `live_stack` marker, e.g.
`pytestmark = [pytest.mark.slow, pytest.mark.live_stack(fast=True, env={...})]`:

    fast     the template's schedules every few seconds (`fast_config`), so a test sees the
             reconcile pass act (default False: the stack as `docflow up` starts it)
    env      environment variables for the stack's functions
    rules    a function (folder -> rules file path) writing the rules file the stack starts with
             (default: the shipped rules)
    anything else: a `StackConfig` field (`pile_poll_s=5`, ...)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from docflow.local.config import StackConfig
from tests.support.live_stack import fast_config, free_base, running_stack


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A live stack takes tens of seconds: `make test-fast` must never start one.
    for item in items:
        if "live_stack" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "slow"
        ):
            raise pytest.UsageError(f"{item.nodeid} uses live_stack: mark it slow")


@pytest.fixture(scope="module")
def live_stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StackConfig]:
    marker = request.node.get_closest_marker("live_stack")
    options: dict[str, Any] = dict(marker.kwargs) if marker else {}
    fast: bool = options.pop("fast", False)
    env: dict[str, str] = options.pop("env", {})
    write_rules: Callable[[Path], Path] | None = options.pop("rules", None)
    state = tmp_path_factory.mktemp("live-stack")
    base = free_base()
    config = fast_config(state, base, **env) if fast else StackConfig(state, port_base=base)
    if not fast and env:
        config = replace(config, extra_env=env)
    config = replace(config, **options)
    rules = write_rules(tmp_path_factory.mktemp("rules")) if write_rules else None
    with running_stack(config, rules=rules) as running:
        yield running
