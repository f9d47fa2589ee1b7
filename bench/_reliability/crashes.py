"""Crashes: the process hosting every function is killed with SIGKILL at random moments while
documents are in flight; the stack's supervisor starts a new one each time.

Expect every document finalized, archived, failed or pending review; no finalize record or
review e-mail twice; and no document in a non-terminal state without a running execution
behind it. Pending reviews are then approved, to show that the waiting runs are alive.
"""

from __future__ import annotations

import random
import time
import urllib.request
from typing import Any

from _reliability.corpus import contract, invoice
from _reliability.harness import TERMINAL, Stack, approve_pending_and_count, statuses_of
from docflow.readmodel.transitions import STATUSES

SEED = 20261129


def run(smoke: bool) -> dict[str, Any]:
    count, kills_wanted = (4, 2) if smoke else (20, 6)
    rng = random.Random(SEED)
    # The recorder's reconcile pass on a short schedule, so the crash loop's casualties show.
    with Stack.running(schedule_every_s=5, reconcile_quiet_s=10) as stack:
        files = [
            (f"crash/doc-{n:03d}.pdf", contract(n) if n % 5 == 2 else invoice(n, 4, scanned=True))
            for n in range(count)
        ]
        docs = stack.upload_all(files)
        if smoke:
            # In the smoke the kills begin once every run has started: a kill that lands while
            # the starter holds a batch costs the intake queue's visibility timeout (180 s,
            # as a crashed Lambda's would) before the redelivery, more than CI should wait;
            # the full size keeps that chance.
            stack.wait_settled(docs, 120, frozenset(STATUSES))
        kills: list[float] = []
        began = time.monotonic()
        while len(kills) < kills_wanted:
            time.sleep(rng.uniform(1.0, 5.0))
            unsettled = [
                d for d in docs if stack.state(d).get("status") not in (*TERMINAL, "pending-review")
            ]
            if not unsettled:
                break
            stack.kill_host()
            kills.append(round(time.monotonic() - began, 1))
            _wait_healthy(stack)
        # A kill while the starter holds a batch: its messages come back after the intake
        # queue's visibility timeout (180 s, as in the template); the full size's wait covers it.
        states = stack.wait_settled(docs, timeout_s=240 if smoke else 600)
        settled = approve_pending_and_count(stack, docs, states, 120)
        storm = crash_loop(stack, 2 if smoke else 3)
        restarts = stack.stats().get("hostRestarts", 0)

    outcome = statuses_of(states, docs)
    report = {
        "documents": count,
        "kills": len(kills),
        "kill_times_s": kills,
        "seed": SEED,
        "host_restarts": restarts,
        "outcomes": dict(outcome),
        "settled": sum(outcome[s] for s in (*TERMINAL, "pending-review")),
        "in_progress_without_a_live_execution": settled.orphans,
        "pending_approved_and_finalized": settled.pending_finalized,
        "approvals_accepted": settled.approvals.count(200),
        "runs_finalized_twice": settled.runs_finalized_twice,
        "finalize_records": settled.finalize_records,
        "finalized_runs": settled.finalized_runs,
        "review_emails": settled.review_emails,
        "review_emails_sent_twice": settled.review_emails_sent_twice,
        "crash_loop": storm,
    }
    report["passed"] = (
        report["settled"] == count
        and not settled.orphans
        and report["pending_approved_and_finalized"] == len(settled.pending)
        and report["runs_finalized_twice"] == 0
        and report["finalize_records"] == report["finalized_runs"]
        and report["review_emails_sent_twice"] == 0
        and report["host_restarts"] >= len(kills)
        and len(kills) >= min(kills_wanted, 2)
        and storm["passed"]
    )
    return report


def crash_loop(stack: Stack, count: int) -> dict[str, Any]:
    """A host that dies again and again (a bad deploy): the runner gives up on the executions
    it was running after five failed invocations in a row, outside any handler. The recorder's
    reconcile pass must then record those documents failed rather than leave them reading."""
    docs = stack.upload_all(
        [(f"crash/loop-{n}.pdf", invoice(100 + n, 12, scanned=True)) for n in range(count)]
    )
    stack.wait_settled(docs, 120, frozenset({"reading"}))
    kills, began = 0, time.monotonic()
    while time.monotonic() - began < 90:
        executions = stack.executions()
        if all(executions.get(d.execution_name) == "FAILED" for d in docs):
            break
        stack.kill_host()
        kills += 1
        time.sleep(0.7)
    _wait_healthy(stack)
    ended = stack.executions()
    # Generous: on a loaded machine (CI runs this beside the tests) the host's restarts and the
    # recorder's schedule both wait for a core.
    states = stack.wait_settled(docs, 240, frozenset({"failed"}))
    reasons = [states[d.run_id].get("reason") for d in docs]
    return {
        "documents": count,
        "kills": kills,
        "executions_failed_by_runner": sum(ended.get(d.execution_name) == "FAILED" for d in docs),
        "recorded_failed": reasons,
        "recorded_status": [states[d.run_id].get("status") for d in docs],
        "passed": reasons == ["execution-failed"] * count,
    }


def _wait_healthy(stack: Stack, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(stack.config.host_url + "/health", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the function host did not come back")
