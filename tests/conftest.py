"""Shared fixtures: moto for AWS with the template's resources (`tests.support.aws`), and the
read model's tables (`tests.support.read_model` builds the reports)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from docflow import aws
from docflow.local.resources import LocalNames, _table, load_template
from docflow.local.tools.sandbox import moto_sandbox
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from tests.support import markers
from tests.support.aws import TEST_ENV, Stack


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    markers.set_current(item)  # before its fixtures, which may start a stack or a browser


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    markers.set_current(None)


@pytest.fixture
def stack() -> Iterator[Stack]:
    with moto_sandbox(LocalNames(prefix="t"), TEST_ENV) as names:
        yield Stack(names)


@pytest.fixture(scope="module")
def moto_once() -> Iterator[Stack]:
    """One moto for the module: starting it is most of a test's cost."""
    with moto_sandbox(LocalNames(prefix="rm"), TEST_ENV) as names:
        yield Stack(names)


@pytest.fixture
def shared(moto_once: Stack) -> Iterator[Stack]:
    """A fresh read-model table per test (moto copies every table on each transaction, so a
    table that kept growing would slow every later test down)."""
    spec = load_template()["Resources"]["ReadModelTable"]["Properties"]
    name = f"rm-status-{uuid.uuid4().hex[:8]}"
    _table(name, spec)
    os.environ["DOCFLOW_TABLE_NAME"] = name
    load_settings.cache_clear()
    yield moto_once
    aws.client("dynamodb").delete_table(TableName=name)
    os.environ["DOCFLOW_TABLE_NAME"] = moto_once.names("ReadModelTable")
    load_settings.cache_clear()


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
