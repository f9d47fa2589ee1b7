"""AWS's conformance requirements for the durable operations the orchestrator relies on, run on
the local stack (its durable runner and Invoke host) with the package's own validator.

The full set (97 requirements in six suites) is bench/conformance.py; this is the part that
guards what docflow's claims rest on: a FLAT map with a concurrency cap and a whole-result
serializer, wait_for_callback with a timeout, a heartbeat timeout and a retried submitter, and
step retries. Each requirement's handler is in conformance/handlers/.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from conformance import SUITES
from docflow.local.fidelity import conformance as runner
from docflow.local.stack import control
from docflow.local.tools.ports import free_port_base

pytestmark = pytest.mark.slow

ORCHESTRATOR_REQUIREMENTS = {
    "9-8": "map: every item runs, failures tolerated",
    "9-11": "map: max concurrency 2, results in index order",
    "9-12": "map: FLAT nesting, max concurrency 1",
    "9-19": "map: whole-result serializer",
    "9-20": "map: whole-result serializer read back on replay",
    "7-1": "wait_for_callback: completed with success",
    "7-5": "wait_for_callback: timeout",
    "7-7": "wait_for_callback: submitter retried, then fails",
    "7-12": "wait_for_callback: heartbeat timeout",
    "7-13": "wait_for_callback: heartbeat keeps it alive",
    "7-14": "wait_for_callback: timeout caught by the handler",
    "1-11": "step: fails, retried, succeeds",
    "1-12": "step: retries exhausted",
    "1-14": "step: retry delays with backoff",
    "1-19": "step: no retry",
}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict]]:
    state = tmp_path_factory.mktemp("conformance")
    config = runner.stack_config(state, free_port_base(runner.FIRST_PORT))
    config.save()
    control.up(state)
    try:
        wanted = {
            rid: found
            for rid, found in runner.requirement_files(SUITES).items()
            if rid in ORCHESTRATOR_REQUIREMENTS
        }
        results = runner.run_requirements(
            wanted, config.runner_url, state / "conformance-logs.jsonl", state / "work"
        )
        yield config, {o.requirement: o for o in results}
    finally:
        control.down(state)


@pytest.mark.parametrize("requirement", list(ORCHESTRATOR_REQUIREMENTS))
def test_requirement(local_run: tuple[Any, dict], requirement: str) -> None:
    _, results = local_run
    result = results[requirement]
    assert result.passed, f"{requirement} ({ORCHESTRATOR_REQUIREMENTS[requirement]}): " + (
        "; ".join(result.errors)
    )


def test_history_includes_execution_data_unless_asked_not_to(local_run: tuple[Any, dict]) -> None:
    """AWS's GetDurableExecutionHistory defaults IncludeExecutionData to true."""
    config, results = local_run
    arn = results["1-19"].execution_arn
    assert arn, "requirement 1-19 ran no execution"

    def started(query: str) -> dict[str, Any]:
        url = f"{config.runner_url}/2025-12-01/durable-executions/{_quote(arn)}/history{query}"
        with urllib.request.urlopen(url, timeout=10) as answer:
            events = json.loads(answer.read())["Events"]
        return next(e for e in events if e["EventType"] == "ExecutionStarted")

    assert "Payload" in started("")["ExecutionStartedDetails"]["Input"]
    assert (
        "Payload" not in started("?IncludeExecutionData=false")["ExecutionStartedDetails"]["Input"]
    )


def _quote(arn: str) -> str:
    from urllib.parse import quote

    return quote(arn, safe="")
