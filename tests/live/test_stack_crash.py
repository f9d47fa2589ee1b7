"""The whole local stack killed with SIGKILL while documents flow, then `docflow up`: every
document whose upload the stack acknowledged settles as it would have without the crash."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from docflow import aws
from docflow.local.config import StackConfig
from docflow.local.durability import runner_view
from docflow.local.stack import control
from docflow.local.tools.uploads import put_document
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit.mailbox import wait_for_links
from tests.kit.pdfgen import fresh_invoice, make_pdf
from tests.kit.sandbox import reset_process_state

pytestmark = [pytest.mark.slow, pytest.mark.live_stack]

CONTRACT = """SERVICES AGREEMENT No. 7
This agreement is made between the parties named below.
The parties hereby agree to the terms and conditions. Governing law: Delaware."""


def _kill_every_process(config: StackConfig) -> None:
    pids = [int((config.state / name).read_text()) for name in ("stackd.pid", "host.pid")]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    while control.running_pid(config.state):
        time.sleep(0.05)


def _states(ids: list[str]) -> dict[str, dict]:
    model = ReadModel(load_settings().table_name)
    return {i: model.show(i)["state"] or {} for i in ids}


def _wait(ids: list[str], wanted: dict[str, set[str]], timeout: float) -> dict[str, dict]:
    deadline = time.monotonic() + timeout
    while True:
        states = _states(ids)
        if all(states[i].get("status") in wanted[i] for i in ids) or time.monotonic() > deadline:
            return states
        time.sleep(0.5)


def test_every_acknowledged_document_settles_after_the_stack_is_killed(
    live_stack: StackConfig,
) -> None:
    bucket = live_stack.names("DocumentBucket")
    files = [
        (f"crash/inv-{n}.pdf", make_pdf([f"{fresh_invoice()}\nReference {n}"])) for n in range(6)
    ]
    scanned = fresh_invoice()  # one invoice, its second page a scan
    files.append(("crash/scan.pdf", make_pdf([scanned, ("scan", f"{scanned}\nPage two")])))
    files.append(("crash/contract.pdf", make_pdf([CONTRACT])))
    docs = [put_document(bucket, key, data) for key, data in files]  # each one acknowledged
    ids = [d.document_id for d in docs]
    review = docs[-1].document_id

    # Mid-flow: some documents under way, not all of them done.
    deadline = time.monotonic() + 60
    while not any(s.get("status") for s in _states(ids).values()):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    _kill_every_process(live_stack)

    up = subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(live_stack.state), "up"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "not stopped cleanly" in up.stdout and "executions resumed" in up.stdout
    reset_process_state()

    wanted = {i: {"finalized"} for i in ids} | {review: {"pending-review"}}
    states = _wait(ids, wanted, timeout=180)
    assert {i: states[i].get("status") for i in ids} == {
        i: next(iter(w)) for i, w in wanted.items()
    }
    # The review still resumes its run after the crash.
    from urllib.parse import urlencode
    from urllib.request import Request, urlopen

    with urlopen(
        Request(
            wait_for_links(live_stack.state, 1, run_id=states[review]["runId"])[0].url,
            urlencode({"decision": "approve"}).encode(),
        ),
        timeout=30,
    ) as answer:
        assert answer.status == 200
    assert _wait([review], {review: {"finalized"}}, 60)[review]["status"] == "finalized"

    executions = dict(map(runner_view.name_and_status, runner_view.executions(live_stack.state)))
    assert {d.execution_name for d in docs} == set(executions)
    finals = aws.client("s3").list_objects_v2(
        Bucket=live_stack.names("ArtifactBucket"), Prefix="docs/"
    )["Contents"]
    assert sum(o["Key"].endswith("/final.json") for o in finals) == len(docs)
    model = ReadModel(load_settings().table_name)
    for i in ids:  # one finalize per run, none failed on the way (source-missing and the like)
        statuses = [h["status"] for h in model.show(i)["history"]]
        assert statuses.count("finalized") == 1 and "failed" not in statuses
