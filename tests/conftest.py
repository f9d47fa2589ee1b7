"""Shared fixtures: moto for AWS with the template's resources (`tests.support.aws`), the
read model's tables (`tests.support.read_model` builds the reports), and `live_stack`: the real
`docflow up` in a temporary folder on a free block of ports, one per module, stopped after the
module's last test.

A module shapes its live stack with the `live_stack` marker, e.g.
`pytestmark = [pytest.mark.slow, pytest.mark.live_stack(fast=True, env={...})]`:

    fast     the template's schedules every few seconds (`fast_config`), so a test sees the
             reconcile pass act (default False: the stack as `docflow up` starts it)
    env      environment variables for the stack's functions
    rules    a function (folder -> rules file path) writing the rules file the stack starts with
             (default: the shipped rules)
    anything else: a `StackConfig` field (`pile_poll_s=5`, ...)

Every test runs apart from the user's own stack (`own_environment`): whatever `DOCFLOW_*` and
`AWS_ENDPOINT_URL*` variables the shell exported, and whatever stack runs in `.docflow/`, a
test and every `docflow` call it makes see only the stacks and sandboxes the tests start.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from docflow.local.config import StackConfig
from docflow.local.resources import LocalNames
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from tests.kit.sandbox import forget_settings, moto_sandbox, refill, reset_process_state
from tests.support import markers
from tests.support.aws import TEST_ENV, Stack
from tests.support.live_stack import fast_config, free_base, running_stack
from tests.support.ordering import DurationRecorder, longest_first

# Hypothesis's per-example deadline (200 ms) is a wall-clock assertion: on a loaded CI machine
# an example that takes 20 ms idle took 315 ms and failed a test whose behaviour was right.
# Tests check behaviour; the benchmarks check speed.
settings.register_profile("docflow", deadline=None)
settings.load_profile("docflow")

# The test kit's own switches, kept: where screenshots go (tests/support/screenshots.py).
KEPT = frozenset({"DOCFLOW_SCREENSHOTS"})


@pytest.fixture(scope="session", autouse=True)
def own_environment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test reaches a stack it did not start. A user's shell may point docflow at their own
    stack (`docflow status` prints the exports) or at AWS (DOCFLOW_TABLE_NAME), and `make run`
    leaves a stack running in `.docflow/`, the folder a `docflow` call uses when it names none:
    those variables are dropped for the session, and the default state folder is an empty one
    of the session's own, so a CLI call that names no folder finds no stack there."""
    inherited = [
        k
        for k in os.environ
        if (k.startswith("DOCFLOW_") and k not in KEPT) or k.startswith("AWS_ENDPOINT_URL")
    ]
    state = tmp_path_factory.mktemp("no-stack") / ".docflow"
    with pytest.MonkeyPatch.context() as patch:
        for key in inherited:
            patch.delenv(key)
        patch.setenv("DOCFLOW_STATE", str(state))
        reset_process_state()
        yield
    reset_process_state()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    markers.set_current(item)  # before its fixtures, which may start a stack or a browser


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    markers.set_current(None)


@pytest.fixture(scope="module")
def moto_module() -> Iterator[LocalNames]:
    """The module's moto for its `stack` tests: the mock, the environment and the boto3
    clients made once (`stack` puts the provisioned template back for each test)."""
    with moto_sandbox(LocalNames(prefix="t"), TEST_ENV) as names:
        yield names


@pytest.fixture
def stack(moto_module: LocalNames) -> Iterator[Stack]:
    """moto with the template's resources, empty for each test: the module's moto refilled
    (every backend emptied, the provisioned template restored from this worker's snapshot of
    it, settings and runtime read again), as temporal's samples share one environment and
    give each test its own queue. A test sees nothing another test wrote."""
    refill(moto_module, TEST_ENV)
    yield Stack(moto_module)
    forget_settings()


@pytest.fixture
def shared(stack: Stack) -> Stack:
    """The read model's tests' name for `stack`. It used to share one moto across a module and
    give each test only a table of its own, when provisioning per test cost more than that;
    restoring the snapshot costs less, and isolates everything."""
    return stack


@pytest.fixture
def shipped_rules(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The shipped rules file (with its [fields] table), with waits short enough for a test."""
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(DEFAULT_RULES))
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "30")
    load_settings.cache_clear()
    from docflow.runtime import use_runtime

    use_runtime(None)
    yield
    use_runtime(None)


TESTS = Path(__file__).parent
LIVE, BROWSER = TESTS / "live", TESTS / "browser"


def _misplaced(item: pytest.Item) -> str | None:
    """Where a test lives says what it needs: a live stack (`tests/live/`, marked slow),
    Chromium (`tests/browser/`, marked browser, some on a live stack too), or neither (the
    folder of the code it tests)."""
    slow, browser = item.get_closest_marker("slow"), item.get_closest_marker("browser")
    folder = item.path.parent
    if browser and folder != BROWSER:
        return "drives Chromium: move it under tests/browser/"
    if slow and folder not in (LIVE, BROWSER):
        return "starts a live stack: move it under tests/live/"
    if folder in (LIVE, BROWSER) and not (slow or browser):
        return "needs neither a live stack nor Chromium: move it beside the code it tests"
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A live stack takes tens of seconds: `make test-fast` must never start one.
    for item in items:
        if "live_stack" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "slow"
        ):
            raise pytest.UsageError(f"{item.nodeid} uses live_stack: mark it slow")
        if problem := _misplaced(item):
            raise pytest.UsageError(f"{item.nodeid} {problem}")
    # The longest modules first (tests/support/ordering.py): a two-minute module handed out
    # last is a two-minute tail with the other workers idle.
    longest_first(items)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help="write each module's seconds to tests/durations.json (make test-durations)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # xdist's workers each see their own tests; the controller sees every report.
    if config.getoption("--record-durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationRecorder(), "docflow-durations")


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
