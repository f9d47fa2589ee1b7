"""Record the histories the replay test resumes: `make histories` (one set per release).

    python -m tests.support.record_histories [--release R] [--only NAME ...]

Each scenario runs the real orchestrator on the durable testing runner (moto in-process, the
Converse emulator for the budget wait) until the execution is suspended at its kind of wait,
then writes the execution's checkpointed operations to tests/data/histories/<release>/<name>.json
with the release they came from. Nothing is decided: the run is left waiting and dropped.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.local.resources import LocalNames
from docflow.rules.model import DEFAULT_RULES
from docflow.runtime import runtime, use_runtime
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.kit.sandbox import moto_sandbox
from tests.support.aws import TEST_ENV, Stack
from tests.support.replay import HISTORIES

A, B, BOSS = "a@example.com", "b@example.com", "boss@example.com"
CONTRACT = "SERVICES AGREEMENT\nThe parties hereby agree. Governing law: Delaware."
TYPES = """
[[document_types]]
name = "contract"
keywords = ["agreement", "hereby", "parties", "governing law"]
min_hits = 2
stages = ["legal"]

[[document_types]]
name = "report"
keywords = ["quarterly report", "findings", "revenue"]
min_hits = 2
stages = []
"""
STATEMENT = """Northwind Traders Ltd
Statement of account
Document number: NW-5521
Issue date: 2026-03-04
Net amount: 200.00 GBP"""
REPORT = (
    "QUARTERLY REPORT 1\nSummary of the findings and analysis for the quarter.\n"
    "Revenue grew in the north region; the appendix lists the figures."
)
MODEL = "test.enrich-model-v1"


@dataclass(frozen=True)
class Scenario:
    name: str
    rules: str | None  # a rules file's text; None: the shipped rules
    key: str
    text: str
    waits_at: str  # the operation the execution is suspended on
    env: dict[str, str]
    skip_time: bool = True
    setup: Callable[[], None] | None = None


def legal(stage: str) -> str:
    return f"{TYPES}\n[stages.legal]\ntimeout_seconds = 600\n{stage}\n"


def spend_budget() -> None:
    """Other executions spent this minute's tokens: the next call waits for the next one."""
    from docflow.enrich.budget import TokenBudget

    budget = TokenBudget(load_settings().reader_lease_table, MODEL, 20_000)
    assert budget.admit(19_000).admitted
    use_runtime(runtime().with_(token_budget=budget))


SCENARIOS = [
    Scenario(
        "review-stage",
        legal(f'reviewers = ["{A}"]'),
        "in/agreement.pdf",
        CONTRACT,
        "review-0 submitter",
        {},
    ),
    Scenario(
        "quorum-reminder",
        legal(
            f'reviewers = ["{A}", "{B}"]\nquorum = 2\nremind_after_seconds = 1\nmax_reminders = 1'
        ),
        "in/agreement.pdf",
        CONTRACT,
        "review-0-r1 submitter",
        {},
    ),
    Scenario(
        "escalation",
        legal(
            f'reviewers = ["{A}"]\nremind_after_seconds = 1\nmax_reminders = 1\n'
            f'escalate_after_seconds = 2\nescalate_to = ["{BOSS}"]'
        ),
        "in/agreement.pdf",
        CONTRACT,
        "review-0-r2 submitter",
        {},
    ),
    Scenario(
        "triage",
        None,
        "in/statement.pdf",
        STATEMENT,
        "review-0 submitter",
        {"DOCFLOW_STAGE_TIMEOUT_S": "600"},
    ),
    Scenario(
        "pile-batch",
        legal(f'reviewers = ["{A}"]'),
        "backfill/report.pdf",
        REPORT,
        "enrich batch submitter",
        {
            "DOCFLOW_PILE_ROLE_ARN": "arn:aws:iam::123456789012:role/docflow-batch-inference",
            "DOCFLOW_PILE_MAX_WAIT_SECONDS": "600",
        },
    ),
    Scenario(
        "budget-wait",
        legal(f'reviewers = ["{A}"]'),
        "in/report.pdf",
        REPORT,
        "enrich budget wait 1.0",
        {"DOCFLOW_ENRICH_ENGINE": "bedrock", "DOCFLOW_ENRICH_MODEL_ID": MODEL},
        skip_time=False,
        setup=spend_budget,
    ),
]


def release_name() -> str:
    with (Path(__file__).resolve().parents[2] / "pyproject.toml").open("rb") as f:
        version = tomllib.load(f)["project"]["version"]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return f"{version}-{commit}"


@contextmanager
def sandbox(scenario: Scenario, folder: Path) -> Iterator[None]:
    env = {**TEST_ENV, **scenario.env}
    if scenario.rules is not None:
        path = folder / f"{scenario.name}.toml"
        path.write_text(scenario.rules)
        env["DOCFLOW_RULES_PATH"] = str(path)
    else:
        env["DOCFLOW_RULES_PATH"] = str(DEFAULT_RULES)
    with ExitStack() as stack:
        if "DOCFLOW_ENRICH_ENGINE" in scenario.env:
            from docflow.local.emulators.bedrock import BedrockEmulator

            server = BedrockEmulator().start()
            stack.callback(server.stop)
            env["AWS_ENDPOINT_URL_BEDROCK_RUNTIME"] = server.url
        saved = {k: os.environ.get(k) for k in env}
        stack.callback(lambda: [_restore(k, v) for k, v in saved.items()])
        stack.enter_context(moto_sandbox(LocalNames(prefix="h"), env))
        os.environ.update(env)  # the sandbox dropped endpoints it did not set
        aws.reset_clients()
        load_settings.cache_clear()
        use_runtime(None)
        stack.callback(use_runtime, None)
        yield


def _restore(key: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = value


def suspended(runner: DurableFunctionTestRunner, arn: str, waits_at: str) -> list[Any]:
    """The execution's operations once it waits at `waits_at` and nothing else is moving."""
    deadline = time.monotonic() + 120
    last: list[Any] = []
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        operations = list(runner._store.load(arn).operations)
        target = [op for op in operations if op.name == waits_at]
        states = [(op.operation_id, op.status.value) for op in operations]
        if states != [(op.operation_id, op.status.value) for op in last]:
            last, quiet_since = operations, time.monotonic()
        settled = all(
            op.status.value in ("SUCCEEDED", "FAILED")
            for op in operations
            if op.operation_type.value == "STEP"
        )
        wanted = "STARTED" if target and target[0].operation_type.value == "WAIT" else "SUCCEEDED"
        quiet = time.monotonic() - quiet_since > 1.0
        if target and target[0].status.value == wanted and settled and quiet:
            return operations
        time.sleep(0.1)
    raise RuntimeError(f"the execution never settled at {waits_at!r}: {[o.name for o in last]}")


def record(scenario: Scenario, folder: Path, release: str) -> dict[str, Any]:
    with sandbox(scenario, folder):
        if scenario.setup:
            scenario.setup()
        stack = Stack(LocalNames(prefix="h"))
        doc = stack.upload(scenario.key, pdfs.text_pdf(scenario.text))
        with DurableFunctionTestRunner(
            handler=handler, poll_interval=0.1, skip_time=scenario.skip_time
        ) as runner:
            arn = runner.run_async(input=stack.event(doc), execution_timeout=3600)
            operations = suspended(runner, arn, scenario.waits_at)
    return {
        "release": release,
        "recordedAt": datetime.now(UTC).isoformat(timespec="seconds"),
        "scenario": scenario.name,
        "waitsAt": scenario.waits_at,
        "function": "docflow-orchestrator",
        "executionArn": arn,
        "operations": [op.to_json_dict() for op in operations],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", default=None)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    release = args.release or release_name()
    target = HISTORIES / release
    target.mkdir(parents=True, exist_ok=True)
    scratch = target / ".rules"
    scratch.mkdir(exist_ok=True)
    try:
        for scenario in SCENARIOS:
            if args.only and scenario.name not in args.only:
                continue
            history = record(scenario, scratch, release)
            path = target / f"{scenario.name}.json"
            path.write_text(json.dumps(history, indent=1, sort_keys=True) + "\n")
            size = path.stat().st_size
            print(f"{scenario.name}: {len(history['operations'])} operations, {size} bytes")
    finally:
        for leftover in scratch.glob("*"):
            leftover.unlink()
        scratch.rmdir()


if __name__ == "__main__":
    main()
