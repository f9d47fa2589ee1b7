"""One starter builder, read from Settings, for the starter Lambda, a packet's parts, the piles'
batcher and the CLI: Lambda's invoke without a runner URL; with one, the local stack's starter,
which only the local functions' host hands in (no Lambda package carries docflow/local)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from docflow import intake
from docflow.intake import LambdaStarter, build_starter, use_local_starters
from docflow.local.services import host
from docflow.local.services.starter import LocalRunnerStarter
from docflow.settings import Settings, SettingsError

LOCAL = Settings.from_env(
    {
        "DOCFLOW_LOCAL_RUNNER_URL": "http://127.0.0.1:9/",
        "DOCFLOW_START_CLAIMS_TABLE": "claims",
        "DOCFLOW_EXECUTION_TIMEOUT_S": "600",
    }
)


@pytest.fixture
def handed_in() -> Iterator[None]:
    """Whatever this process had handed in is put back after the test."""
    before = intake._local_starters
    yield
    use_local_starters(before)


def test_without_a_runner_url_executions_start_by_lambda_invoke() -> None:
    settings = Settings.from_env({"DOCFLOW_ORCHESTRATOR_FUNCTION": "arn:fn:live"})
    made = build_starter(settings.orchestrator_function, settings)
    assert isinstance(made, LambdaStarter) and made.function == "arn:fn:live"


def test_a_runner_url_with_no_local_starter_handed_in_is_refused(handed_in: None) -> None:
    # Lambda's invoke on a stack whose runner does not de-duplicate names would start a
    # document twice: a process the local host did not set up refuses instead.
    use_local_starters(None)
    with pytest.raises(SettingsError, match="no local starter was handed in"):
        build_starter("docflow-batcher", LOCAL)


def test_the_local_host_hands_in_the_stacks_starter_before_it_loads_a_function(
    handed_in: None,
) -> None:
    use_local_starters(None)
    assert host.handler_for("docflow-starter") is not None

    made = build_starter("docflow-batcher", LOCAL)
    assert isinstance(made, LocalRunnerStarter)
    assert (made.runner_url, made.function, made.claims_table, made.timeout) == (
        "http://127.0.0.1:9",
        "docflow-batcher",
        "claims",
        600,
    )
    with pytest.raises(SettingsError, match="DOCFLOW_START_CLAIMS_TABLE"):
        build_starter("f", Settings.from_env({"DOCFLOW_LOCAL_RUNNER_URL": "http://127.0.0.1:9"}))
