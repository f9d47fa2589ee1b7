"""One starter builder, read from Settings, for the starter Lambda, the piles' batcher and the
CLI: the local runner's when the settings name one, else Lambda's invoke."""

from __future__ import annotations

import pytest

from docflow.intake import LambdaStarter, LocalRunnerStarter, build_starter
from docflow.settings import Settings, SettingsError


def test_without_a_runner_url_executions_start_by_lambda_invoke() -> None:
    settings = Settings.from_env({"DOCFLOW_ORCHESTRATOR_FUNCTION": "arn:fn:live"})
    made = build_starter(settings.orchestrator_function, settings)
    assert isinstance(made, LambdaStarter) and made.function == "arn:fn:live"


def test_the_local_stacks_settings_pick_the_local_runner() -> None:
    settings = Settings.from_env(
        {
            "DOCFLOW_LOCAL_RUNNER_URL": "http://127.0.0.1:9/",
            "DOCFLOW_START_CLAIMS_TABLE": "claims",
            "DOCFLOW_EXECUTION_TIMEOUT_S": "600",
        }
    )
    made = build_starter("docflow-batcher", settings)
    assert isinstance(made, LocalRunnerStarter)
    assert (made.runner_url, made.function, made.claims_table, made.timeout) == (
        "http://127.0.0.1:9",
        "docflow-batcher",
        "claims",
        600,
    )
    with pytest.raises(SettingsError, match="DOCFLOW_START_CLAIMS_TABLE"):
        build_starter("f", Settings.from_env({"DOCFLOW_LOCAL_RUNNER_URL": "http://127.0.0.1:9"}))
