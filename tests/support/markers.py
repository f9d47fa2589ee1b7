"""The markers that keep `make test-fast` fast, held by the code that makes a test slow: the
test being set up is remembered here (a hook in tests/conftest.py), and what starts a live
stack or a browser refuses to run under a test that lacks the marker `make test-fast`
deselects (`slow`, `browser`)."""

from __future__ import annotations

import pytest

_current: list[pytest.Item] = []


def set_current(item: pytest.Item | None) -> None:
    _current[:] = [item] if item is not None else []


def require(marker: str, what: str) -> None:
    """Fail the current test (or fixture) if it is not marked `marker`: `what` would make the
    fast loop slow. Outside pytest (a benchmark using the same helpers) there is no test."""
    if _current and _current[0].get_closest_marker(marker) is None:
        pytest.fail(f"{_current[0].nodeid} starts {what}: mark it @pytest.mark.{marker}")
