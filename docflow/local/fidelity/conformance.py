"""AWS's durable-execution conformance requirements, run against the local stack.

The PyPI package `aws-durable-execution-conformance-tests` ships the requirements (YAML) and
the validator that checks them through the Lambda API. Its command line deploys with SAM; here
it is used as a library: `validate_description` gets

- an invoker (`invoke`, `invoke_async`, `stack_name`) that starts each execution through the
  local durable runner's own start route (the runner has no Invoke route), waiting for the end
  on a synchronous invoke as Lambda's RequestResponse does;
- a Lambda client pointed at the runner (history, execution, callbacks);
- the local twins of the two other services it reads, named as such: `LocalStackResources`
  answers CloudFormation's describe_stack_resource (the local host names functions by their
  logical id), and `CapturedLogs` answers CloudWatch Logs' filter_log_events from the JSON
  log lines the requirement handlers append to a file (conformance/handlers/_support.py).

Used by bench/conformance.py (every requirement) and tests/live/test_conformance.py (the ones for
the operations the orchestrator uses).
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypedDict, cast

import boto3
from botocore.config import Config

from conformance import HANDLERS, function_name
from docflow.local.config import ACCOUNT_ID, StackConfig

if TYPE_CHECKING:
    from mypy_boto3_lambda.type_defs import GetDurableExecutionResponseTypeDef

PACKAGE = "aws_durable_execution_conformance_tests"
TERMINAL = frozenset({"SUCCEEDED", "FAILED", "TIMED_OUT", "STOPPED", "CANCELLED"})
SYNC_INVOKE_TIMEOUT_S = 180.0
# The host hosts requirement 1-7's handler as "conformance-1-7" (conformance/handlers).
FUNCTION_PREFIX = function_name("")
# Where the conformance stack starts looking for a free block of ports.
FIRST_PORT = int(os.environ.get("DOCFLOW_CONFORMANCE_PORT_BASE", "23000"))


def stack_config(state: Path, port_base: int, faithful: bool = True) -> Any:
    """The local stack's configuration with the requirement handlers added to its host;
    `faithful=False` leaves the runner's histories as the testing package builds them."""

    root = Path(__file__).resolve().parents[3]
    return StackConfig(
        state=state,
        port_base=port_base,
        extra_env={
            "DOCFLOW_LOCAL_EXTRA_FUNCTIONS": HANDLERS,
            "PYTHONPATH": str(root),
            "DOCFLOW_CONFORMANCE_LOG": str(state / "conformance-logs.jsonl"),
            "DOCFLOW_CONFORMANCE_STATE": str(state / "conformance-markers"),
            "DOCFLOW_LOCAL_HISTORY_FIDELITY": "on" if faithful else "off",
        },
    )


def requirements_dir() -> Path:
    # installed apart (`make conformance-deps`): loaded when a conformance run starts
    from aws_durable_execution_conformance_tests.config import TESTS_DIR

    return Path(TESTS_DIR)


def requirement_files(suites: Iterable[str]) -> dict[str, tuple[str, Path]]:
    """requirement id -> (suite, YAML file), in the suites' natural order."""
    root = requirements_dir()
    found: dict[str, tuple[str, Path]] = {}
    for suite in suites:
        files = sorted((root / suite).glob("*.yaml"), key=lambda p: int(p.stem.split("-")[-1]))
        for path in files:
            found[path.stem] = (suite, path)
    return found


class InvokeOutput(TypedDict, total=False):
    """What a `sam local invoke` printed, as the validator reads it: Lambda's Invoke answer."""

    StatusCode: int
    Payload: str
    DurableExecutionArn: str
    FunctionError: str


class RunnerInvoker:
    """The invoker the package's validator calls, over the local runner's start route."""

    stack_name = "docflow-local"

    def __init__(self, runner_url: str, lambda_client: Any) -> None:
        if not runner_url.startswith(("http://127.", "http://localhost")):
            raise ValueError("the local runner must be on this machine")
        self.runner_url = runner_url
        self.lambda_client = lambda_client

    def _start(self, function_name: str, event_file_path: str | None) -> str:
        payload: Any = None
        if event_file_path is not None:
            event = json.loads(Path(event_file_path).read_text())
            payload = event.get("Input") if isinstance(event, dict) else event
        body = {
            "AccountId": ACCOUNT_ID,
            "FunctionName": function_name,
            "FunctionQualifier": "$LATEST",
            "ExecutionName": f"{function_name}-{uuid.uuid4().hex[:12]}",
            "ExecutionTimeoutSeconds": 3600 * 2,
            "ExecutionRetentionPeriodDays": 1,
            "Input": json.dumps(payload),
        }
        request = urllib.request.Request(  # noqa: S310 - loopback, checked in __init__
            f"{self.runner_url}/start-durable-execution",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310
            return json.loads(answer.read())["ExecutionArn"]

    def _result(self, function_name: str, output: InvokeOutput) -> Any:
        # installed apart (`make conformance-deps`): loaded when a conformance run starts
        from aws_durable_execution_conformance_tests.sam import InvocationResult

        return InvocationResult(
            success=True,
            command=f"local start {function_name}",
            output=json.dumps(output),
            stderr="",
            function_name=function_name,
        )

    def invoke(
        self,
        function_name: str,
        event_file_path: str | None = None,
        parameters: list[str] | None = None,
    ) -> Any:
        arn = self._start(function_name, event_file_path)
        deadline = time.monotonic() + SYNC_INVOKE_TIMEOUT_S
        # none read yet (a deadline already past): `.get` finds nothing
        execution = cast("GetDurableExecutionResponseTypeDef", {})
        while time.monotonic() < deadline:
            execution = self.lambda_client.get_durable_execution(DurableExecutionArn=arn)
            if execution.get("Status") in TERMINAL:
                break
            time.sleep(0.25)
        output: InvokeOutput = {
            "StatusCode": 200,
            "Payload": execution.get("Result") or "",
            "DurableExecutionArn": arn,
        }
        if execution.get("Status") != "SUCCEEDED":
            output["FunctionError"] = "Unhandled"
        return self._result(function_name, output)

    def invoke_async(self, function_name: str, event_file_path: str | None = None) -> Any:
        arn = self._start(function_name, event_file_path)
        return self._result(function_name, {"StatusCode": 202, "DurableExecutionArn": arn})


class LocalStackResources:
    """CloudFormation's describe_stack_resource, locally: a function's physical name is its
    logical id (the host hosts "conformance-1-7" under that name)."""

    def describe_stack_resource(self, StackName: str, LogicalResourceId: str) -> dict:
        return {"StackResourceDetail": {"PhysicalResourceId": LogicalResourceId}}


_ARN_IN_PATTERN = re.compile(r'\$\.(?:durableExecutionArn|executionArn) = "([^"]+)"')


class LogEvent(TypedDict, total=False):
    """A captured log line (and a FilteredLogEvent of CloudWatch Logs' answer)."""

    logStreamName: str
    timestamp: int
    message: str
    ingestionTime: int
    eventId: str


class FilteredLogEvents(TypedDict):
    events: list[LogEvent]


class CapturedLogs:
    """CloudWatch Logs' filter_log_events over the handlers' captured JSON log lines. Supports
    the one filter pattern the validator sends: records of one execution ARN."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def filter_log_events(self, **kwargs: Any) -> FilteredLogEvents:
        start, end = kwargs.get("startTime", 0), kwargs.get("endTime", 1 << 62)
        wanted = set(_ARN_IN_PATTERN.findall(kwargs.get("filterPattern") or ""))
        events: list[LogEvent] = []
        lines = self.path.read_text().splitlines() if self.path.exists() else []
        for line in lines:
            event = cast("LogEvent", json.loads(line))
            if not start <= event["timestamp"] <= end:
                continue
            record = json.loads(event["message"])
            arn = record.get("durableExecutionArn") or record.get("executionArn")
            if wanted and arn not in wanted:
                continue
            events.append({**event, "ingestionTime": event["timestamp"]})
        return {"events": events}


def local_clients(lambda_client: Any, log_file: Path) -> Any:
    # installed apart (`make conformance-deps`): loaded when a conformance run starts
    from aws_durable_execution_conformance_tests.clients import AwsClients

    return AwsClients(
        MappingProxyType(
            {
                "lambda": lambda_client,
                "cloudformation": LocalStackResources(),
                "logs": CapturedLogs(log_file),
            }
        )
    )


@dataclass
class RequirementResult:
    requirement: str
    suite: str
    passed: bool
    skipped: str | None = None
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    execution_arn: str | None = None


# Requirements the local stack cannot run, with the reason; empty while every one runs.
SKIPS: dict[str, str] = {}


def run_requirements(
    ids: dict[str, tuple[str, Path]],
    runner_url: str,
    log_file: Path,
    work_dir: Path,
    workers: int = 4,
) -> list[RequirementResult]:
    """Validate each requirement with the package's own validator, a few at a time."""
    from aws_durable_execution_conformance_tests.validate import validate_description

    lambda_client = boto3.client(
        "lambda",
        endpoint_url=runner_url,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",  # noqa: S106 - loopback
        config=Config(
            retries={"mode": "standard", "max_attempts": 5}, max_pool_connections=workers * 4
        ),
    )
    invoker = RunnerInvoker(runner_url, lambda_client)
    clients = local_clients(lambda_client, log_file)
    work_dir.mkdir(parents=True, exist_ok=True)

    def one(requirement: str) -> RequirementResult:
        suite, path = ids[requirement]
        if requirement in SKIPS:
            return RequirementResult(requirement, suite, passed=False, skipped=SKIPS[requirement])
        began = time.monotonic()
        try:
            result = validate_description(
                function_name=FUNCTION_PREFIX + requirement,
                description_id=requirement,
                test_file=str(path),
                invoker=invoker,
                tmp_dir=str(work_dir),
                region="us-east-1",
                aws_clients=clients,
                output_dir=str(work_dir / "histories"),
            )
            passed, errors, arn = result.passed, list(result.errors), result.execution_arn
        except Exception as exc:  # one broken requirement must not stop the run
            passed, errors, arn = False, [f"{type(exc).__name__}: {exc}"], None
        took = time.monotonic() - began
        return RequirementResult(requirement, suite, passed, None, errors, took, arn)

    # Longest first, so the slow ones (timeouts, retries, log reads) overlap the rest.
    order = sorted(ids, key=lambda r: -_expected_seconds(ids[r][1]))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(one, order))
    rank = {r: i for i, r in enumerate(ids)}
    return sorted(results, key=lambda o: rank[o.requirement])


def _expected_seconds(path: Path) -> int:
    text = path.read_text()
    weight = 0
    weight += 20 if "ExpectedLogs" in text else 0
    weight += 15 if "Timeout" in text or "timeout" in text else 0
    weight += 10 if "RetryDetails" in text else 0
    return weight + text.count("InvocationCompleted")


class Unmet(TypedDict):
    id: str
    reason: str


class ConformanceSummary(TypedDict):
    """bench/conformance.py's JSON: totals, counts by suite, the failures and skips."""

    total: int
    passed: int
    failed: int
    skipped: int
    suites: dict[str, dict[str, int]]
    failures: list[Unmet]
    skips: list[Unmet]
    seconds: float


def summary(results: list[RequirementResult], seconds: float) -> ConformanceSummary:
    """The benchmark's JSON shape (in bench/conformance.py --help and docs/platform-notes.md)."""
    suites: dict[str, dict[str, int]] = {}
    for o in results:
        counts = suites.setdefault(o.suite, {"passed": 0, "failed": 0, "skipped": 0})
        counts["skipped" if o.skipped else "passed" if o.passed else "failed"] += 1
    return {
        "total": len(results),
        "passed": sum(o.passed for o in results),
        "failed": sum(not o.passed and not o.skipped for o in results),
        "skipped": sum(bool(o.skipped) for o in results),
        "suites": suites,
        "failures": [
            {"id": o.requirement, "reason": "; ".join(o.errors)[:600]}
            for o in results
            if not o.passed and not o.skipped
        ],
        "skips": [{"id": o.requirement, "reason": o.skipped} for o in results if o.skipped],
        "seconds": round(seconds, 1),
    }
