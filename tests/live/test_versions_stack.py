"""Deploying while a document waits in review, on the real local stack: the waiting run
finishes on the version it started on, new runs start on the new one, and a version is pruned
only once nothing holds it. The new version renames a step before the review wait, so a
resume on it would fail the document (NonDeterministicExecutionError): a finalized document
proves its resume ran the old code."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from docflow.local.config import StackConfig
from docflow.local.stack import control
from docflow.local.versions.store import VersionStore
from tests.kit.pdfgen import fresh_invoice, make_pdf
from tests.support.checkouts import copy_checkout
from tests.support.live_stack import (
    LEGAL_ONLY,
    executions_named,
    http,
    review_url,
    upload,
    upload_doc,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.live_stack(fast=True)]
RENAMED = ('name="split"', 'name="split pages"')


def docflow(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(state), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def kill_stack(config: StackConfig) -> None:
    """SIGKILL the supervisor and the functions' host, as a crash would."""
    for name in ("stackd.pid", "host.pid"):
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int((config.state / name).read_text()), signal.SIGKILL)
    while control.running_pid(config.state):
        time.sleep(0.05)


def versions(state: Path) -> list[dict[str, Any]]:
    done = docflow(state, "versions", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_waiting_run_finishes_on_its_version_and_new_runs_on_the_new_one(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    state = live_stack.state
    assert [(v["version"], v["live"]) for v in versions(state)] == [(1, True)]
    waiting, waiting_run = upload(live_stack, "incoming/legal.pdf", make_pdf([LEGAL_ONLY]))
    assert wait_for(waiting, {"pending-review"}, waiting_run)["functionVersion"] == "1"

    done = docflow(state, "deploy", "--source", str(copy_checkout(tmp_path / "v2", RENAMED)))
    assert done.returncode == 0, done.stderr
    assert [(v["version"], v["live"], v["openExecutions"]) for v in versions(state)] == [
        (1, False, 1),
        (2, True, 0),
    ]
    refused = docflow(state, "versions", "prune", "--version", "1")
    assert refused.returncode == 2 and "held by 1 open execution" in refused.stderr

    # Killed, then started again: the versions, the alias and the waiting run's pin survive.
    kill_stack(live_stack)
    control.up(state)
    control.use_stack(state)
    assert [(v["version"], v["live"], v["openExecutions"]) for v in versions(state)] == [
        (1, False, 1),
        (2, True, 0),
    ]

    assert http("POST", review_url(live_stack, waiting_run), {"decision": "approve"})[0] == 200
    finished = wait_for(waiting, {"finalized", "failed"}, waiting_run)
    assert (finished["status"], finished["functionVersion"]) == ("finalized", "1")

    fresh = upload_doc(live_stack, "incoming/invoice.pdf", make_pdf([fresh_invoice()]))
    state_of_fresh = wait_for(fresh.document_id, {"finalized", "failed"}, fresh.run_id)
    assert (state_of_fresh["status"], state_of_fresh["functionVersion"]) == ("finalized", "2")
    ran = executions_named(fresh.execution_name)
    assert ran and all(e["FunctionArn"].endswith(":2") for e in ran)

    assert [(v["version"], v["openExecutions"]) for v in versions(state)] == [(1, 0), (2, 0)]
    pruned = docflow(state, "versions", "prune", "--json")
    assert pruned.returncode == 0, pruned.stderr
    assert json.loads(pruned.stdout) == [
        {"version": 1, "removed": True, "reason": ""},
        {"version": 2, "removed": False, "reason": "live"},
    ]
    assert [v["version"] for v in versions(state)] == [2]


def test_a_deploy_that_is_not_a_checkout_or_does_not_import_is_refused(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    live = VersionStore(live_stack.state).live()
    (tmp_path / "empty").mkdir()
    done = docflow(live_stack.state, "deploy", "--source", str(tmp_path / "empty"))
    assert done.returncode == 2 and "is not a docflow checkout" in done.stderr
    future = "from __future__ import annotations"
    broken = copy_checkout(tmp_path / "broken", (future, f"{future}\nimport no_such_module"))
    done = docflow(live_stack.state, "deploy", "--source", str(broken))
    assert done.returncode == 2, done.stdout
    assert "does not import" in done.stderr and "no_such_module" in done.stderr
    assert VersionStore(live_stack.state).live() == live
    assert max(v["version"] for v in versions(live_stack.state)) == live


def test_a_deploy_racing_a_resume_leaves_the_run_on_its_version(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    before = VersionStore(live_stack.state).live()
    doc = upload_doc(live_stack, "incoming/racing.pdf", make_pdf([LEGAL_ONLY + "\nRacing."]))
    wait_for(doc.document_id, {"pending-review"}, doc.run_id)
    url = review_url(live_stack, doc.run_id)
    copy = copy_checkout(tmp_path / "racing", RENAMED)
    answers: list[subprocess.CompletedProcess[str]] = []
    deploying = threading.Thread(
        target=lambda: answers.append(docflow(live_stack.state, "deploy", "--source", str(copy)))
    )
    deploying.start()
    assert http("POST", url, {"decision": "approve"})[0] == 200
    deploying.join()
    assert answers[0].returncode == 0, answers[0].stderr
    finished = wait_for(doc.document_id, {"finalized", "failed"}, doc.run_id)
    assert (finished["status"], finished["functionVersion"]) == ("finalized", str(before))
    ran = executions_named(doc.execution_name)
    assert [e["FunctionArn"].rsplit(":", 1)[-1] for e in ran] == [str(before)]
