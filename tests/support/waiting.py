"""Waiting for a condition instead of sleeping: a test that asserts "nothing more happened" must
first know that everything that could happen has had its turn."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(
    check: Callable[[], bool], timeout: float = 30, interval: float = 0.05, what: str = ""
) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting{': ' + what if what else ''}"
        time.sleep(interval)
