"""The local stack's metrics as the dashboard charts them: the data points
`docflow.observability.record_local` appends to the state folder's metrics.jsonl, read back, and
summed into per-minute series over the dashboard's window."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypedDict, cast

WINDOW_MIN = 60  # the minutes a chart shows


class Point(TypedDict):
    """A data point as `docflow.observability.record_local` writes it to metrics.jsonl."""

    t: float  # epoch seconds
    ns: str  # the metric's namespace
    name: str
    value: float
    dims: dict[str, str]


def read_points(path: Path, since: float = 0.0) -> list[Point]:
    if not path.exists():
        return []
    points = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                point = cast("Point", json.loads(line))
            except ValueError:
                continue  # a line cut short by a crash mid-write
            if point.get("t", 0) >= since:
                points.append(point)
    return points


def series(
    points: Iterable[Point],
    start: float,
    pick: Callable[[Point], str | None],
    how: str = "sum",
    buckets: int = WINDOW_MIN,
) -> dict[str, list[float]]:
    """Per-minute buckets since `start`, one series per name `pick` gives (None: skip).

    `sum` adds counts up; `max` and `mean` are gauges (a depth, an age, a duration): a minute
    with no sample keeps the previous minute's value, so the line's end is the latest reading.
    """
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0] * buckets)
    counts: dict[str, list[int]] = defaultdict(lambda: [0] * buckets)
    for point in points:
        name = pick(point)
        index = int((point["t"] - start) // 60)
        if name is None or not 0 <= index < buckets:
            continue
        value = float(point["value"])
        if how == "max":
            sums[name][index] = max(sums[name][index], value)
        else:
            sums[name][index] += value
        counts[name][index] += 1
    if how == "sum":
        return dict(sums)
    out: dict[str, list[float]] = {}
    for name, values in sums.items():
        latest, filled = 0.0, []
        for value, n in zip(values, counts[name], strict=True):
            if n:
                latest = value / n if how == "mean" else value
            filled.append(latest)
        out[name] = filled
    return out
