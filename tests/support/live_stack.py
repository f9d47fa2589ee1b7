"""The real local stack for end-to-end tests: started in a temporary folder with the process's
environment saved and restored around it, and the calls a person (or a browser) makes to it."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.config import StackConfig
from docflow.local.stack import control
from docflow.local.tools.ports import FLOOR, free_port_base
from docflow.local.tools.uploads import put_document
from docflow.local.versions.deploy import ensure_deployed
from docflow.local.versions.snapshot import checkout_root, digest
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit.mailbox import wait_for_links
from tests.kit.sandbox import reset_process_state
from tests.support import markers


@contextlib.contextmanager
def running_stack(config: StackConfig, rules: Path | None = None) -> Iterator[StackConfig]:
    """`docflow up` on `config` with the rules file `rules` (None: the shipped rules), this
    process pointed at it; afterwards `docflow down` and the environment and cached clients as
    they were before."""
    markers.require("slow", "a live local stack")
    saved = dict(os.environ)
    # Named here, never inherited: an in-process test's rules left in this process's environment
    # must not become the stack's (an empty value means the shipped rules).
    os.environ["DOCFLOW_RULES_PATH"] = str(rules) if rules else ""
    config.save()
    with_published_checkout(config.state)
    control.up(config.state)
    control.use_stack(config.state)
    try:
        yield config
    finally:
        control.down(config.state)
        os.environ.clear()
        os.environ.update(saved)
        reset_process_state()


# This process's own publish of the checkout as version 1, by the code's digest (its versions
# folder, in a temporary folder removed when the process ends).
_published: dict[str, Path] = {}
_workspace: list[tempfile.TemporaryDirectory[str]] = []


def with_published_checkout(state: Path) -> None:
    """A new state folder given what a first `docflow up` publishes there, version 1 of this
    checkout, copied from this process's one publish of the same code: publishing copies and
    fsyncs four hundred files and imports every handler in a child process, half of a stack's
    start. The copy is the product's own publish (`ensure_deployed`), files and modes as it
    wrote them; a folder that holds versions already is left as it is."""
    if (state / "versions").exists():
        return
    code = digest(checkout_root())
    versions = _published.get(code)
    if versions is None:
        if not _workspace:
            _workspace.append(tempfile.TemporaryDirectory(prefix="docflow-published-"))
        folder = Path(_workspace[0].name) / code
        ensure_deployed(folder, dict(os.environ))
        versions = _published[code] = folder / "versions"
    shutil.copytree(versions, state / "versions", symlinks=True)


LEGAL_ONLY = """SERVICES AGREEMENT
This agreement is made between the parties named below.
The parties hereby agree to the terms and conditions. Governing law: Delaware."""


def free_base() -> int:
    """A free block of ports for one stack, searched from a start of this process's own, so
    two test sessions at once do not race for the same block."""
    return free_port_base(FLOOR + (os.getpid() % 1000) * 20)


def fast_config(state: Path, port_base: int, **env: str) -> StackConfig:
    """A stack whose template schedules run every few seconds, so a test sees the reconcile
    pass act."""
    return StackConfig(
        state=state, port_base=port_base, extra_env=env, schedule_every_s=3, reconcile_quiet_s=5
    )


def upload(config: StackConfig, key: str, data: bytes) -> tuple[str, str]:
    doc = upload_doc(config, key, data)
    return doc.document_id, doc.run_id


def upload_doc(config: StackConfig, key: str, data: bytes) -> DocumentRef:
    return put_document(config.names("DocumentBucket"), key, data)


def wait_for(
    document_id: str, statuses: set[str], run_id: str | None = None, timeout: float = 90
) -> dict:
    model = ReadModel(load_settings().table_name)
    deadline = time.monotonic() + timeout
    state: dict = {}
    while time.monotonic() < deadline:
        state = model.show(document_id)["state"] or {}
        if state.get("status") in statuses and (run_id is None or state.get("runId") == run_id):
            return state
        time.sleep(0.3)
    raise AssertionError(f"{document_id} never reached {statuses}: {state}")


def http(method: str, url: str, data: dict | None = None) -> tuple[int, str]:
    body = urlencode(data).encode() if data else None
    request = urllib.request.Request(url, data=body, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def review_url(config: StackConfig, run_id: str, stage: int = 0, n: int = 0) -> str:
    """A reviewer's link, from the mail the stack's SES accepted (the read model has none)."""
    links = wait_for_links(config.state, n + 1, run_id=run_id, stage_index=stage)
    assert len(links) > n, f"no link {n} for stage {stage} of {run_id}"
    return links[n].url


def history(document_id: str) -> list[dict]:
    return ReadModel(load_settings().table_name).show(document_id)["history"]


def intake_drained(config: StackConfig) -> bool:
    """No intake message waiting or in flight: every event that reached the queue has been
    through the starter (moto delivers S3 -> EventBridge -> SQS inside the PutObject call)."""
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=config.names("IntakeQueue"))["QueueUrl"]
    attributes = sqs.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) == 0 and (
        int(attributes["ApproximateNumberOfMessagesNotVisible"]) == 0
    )


def executions_named(name: str) -> list[dict[str, Any]]:
    """The durable runner's executions of the orchestrator with this execution name."""
    answer = aws.client("lambda").list_durable_executions_by_function(
        FunctionName="docflow-orchestrator", DurableExecutionName=name
    )
    return [e for e in answer["DurableExecutions"] if e.get("DurableExecutionName") == name]


def docflow_cli(config: StackConfig, *args: str) -> subprocess.CompletedProcess[str]:
    """The `docflow` command on this test's own stack, as a user runs it (a process apart)."""
    return subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(config.state), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
