"""The order `make test` hands its modules to the workers: the longest first, each kept whole
(--dist loadfile: a module's live stack starts once), so that no long module starts last while
the other workers sit idle.

A module's seconds are those tests/durations.json recorded for it in a whole run (`make
test-durations` writes the file again), else what its `slow(seconds=N)` marker says (30 for a
bare `slow`), else none: a new module runs among the short ones until the file is written
again. The seconds only order the modules; nothing asserts them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DURATIONS = ROOT / "tests" / "durations.json"
# A module under this many seconds is left out of the file: its place in the order is noise.
RECORDED_FROM_S = 2.0


def recorded(path: Path = DURATIONS) -> dict[str, float]:
    """tests/durations.json: module path (from the repository's root) -> seconds."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in found.items()} if isinstance(found, dict) else {}


def longest_first(items: list[pytest.Item], durations: Path = DURATIONS) -> None:
    """Sort `items` by their module's seconds, longest first; in the collection's order
    otherwise (the sort is stable, so each module's tests keep theirs)."""
    seconds = recorded(durations)
    declared: dict[str, float] = {}
    for item in items:
        marker = item.get_closest_marker("slow")
        here = float(marker.kwargs.get("seconds", 30)) if marker else 0.0
        declared[module_of(item.nodeid)] = max(declared.get(module_of(item.nodeid), 0.0), here)
    weight = {module: seconds.get(module, s) for module, s in declared.items()}
    items.sort(key=lambda item: -weight[module_of(item.nodeid)])


def module_of(nodeid: str) -> str:
    """`tests/x/test_y.py::test_z[1]` -> `tests/x/test_y.py` (node ids are from the root)."""
    return nodeid.split("::", 1)[0]


class DurationRecorder:
    """`pytest --record-durations`: each module's seconds (its tests' setup, call and teardown,
    as their reports say) written to tests/durations.json when the session ends. Registered
    in the process that receives every report (xdist's controller, or the only process)."""

    def __init__(self, path: Path = DURATIONS) -> None:
        self.path = path
        self.seconds: Counter[str] = Counter()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[module_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        kept = {m: round(s) for m, s in sorted(self.seconds.items()) if s >= RECORDED_FROM_S}
        self.path.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
