"""Invocations side by side, as Lambda runs them: the testing runner's invocation pool widened.

The testing runner invokes handlers on a pool of `min(32, cores + 4)` threads: six on two
cores. Lambda runs up to the account's concurrency (1,000 by default) at once, and an
orchestrator invocation spends most of its time waiting on its own steps' round trips, not on
a core. With six threads a burst of one-page documents queued behind six invocations while
both cores were half idle; the pool is widened to what the local host can hold.
"""

from __future__ import annotations

from typing import Any

INVOCATION_WORKERS = 48


def widen_invocation_pool(executor: Any, workers: int = INVOCATION_WORKERS) -> int:
    """Give the runner's executor an invocation pool of `workers` threads; returns the size
    it had. Call before the runner serves its first request (the old pool is idle then)."""
    from aws_durable_execution_sdk_python_testing.threads import DaemonThreadPool

    old = executor._invocation_pool
    before = int(old.max_workers)
    if before >= workers:
        return before
    executor._invocation_pool = DaemonThreadPool(
        max_workers=workers, thread_name_prefix="durable-invocation"
    )
    old.shutdown(wait=False)
    return before
