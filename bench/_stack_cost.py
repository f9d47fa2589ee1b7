"""What one one-page document costs the local stack: CPU seconds of its processes (from their own
counters in /proc) and AWS requests by service and operation (from `docflow status`'s
stats.awsRequests), for bench/throughput.py.

The stack is warm (documents went through it, so the functions' worker has started and
imported). An idle window measures what the stack's pollers and schedules cost with no
document in it, and a run of one-page documents what they cost with them; the idle rate times
the run's length is taken off the run's requests ("net"), and both are reported. `docflow run`
itself is a client of the same moto and its requests are counted too: one PutObject per
document, and one BatchGetItem per half second for the documents not yet settled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

IDLE_S = 6.0
_TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """User plus system CPU seconds of a live process (its own threads, not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


def _tree_cpu(pid: int) -> float:
    """A process and every live descendant (the host's router and its version workers)."""
    total = 0.0
    for p in [pid, *_children(pid)]:
        try:
            total += _cpu(p) if p == pid else _tree_cpu(p)
        except OSError:
            continue
    return total


def _fresh_stats(state: Path) -> dict[str, Any]:
    """stats.json once the stack has written it anew (it does every two seconds)."""
    path = state / "stats.json"
    seen = path.stat().st_mtime_ns if path.exists() else 0
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_mtime_ns != seen:
            try:
                return dict(json.loads(path.read_text()))
            except ValueError:  # caught between write and rename: the next one
                pass
        time.sleep(0.05)
    raise SystemExit("the stack did not refresh stats.json")


def _reading(state: Path) -> dict[str, Any]:
    stats = _fresh_stats(state)
    supervisor = int((state / "stackd.pid").read_text())
    host = int((state / "host.pid").read_text())
    return {
        "at": time.monotonic(),
        "supervisor": _cpu(supervisor),
        "host": _tree_cpu(host),
        "requests": stats.get("awsRequests", {}),
    }


def _minus(after: dict[str, dict[str, int]], before: dict[str, dict[str, int]]) -> dict:
    return {
        service: {op: n - before.get(service, {}).get(op, 0) for op, n in ops.items()}
        for service, ops in after.items()
    }


def run(state: Path, folder: Path) -> list[dict[str, Any]]:
    command = [sys.executable, "-m", "docflow.cli", "--state", str(state), "run", str(folder)]
    done = subprocess.run(
        [*command, "--json", "--timeout", "600"],
        capture_output=True,
        text=True,
        check=False,
    )
    rows = list(json.loads(done.stdout))
    if any(r["status"] != "finalized" for r in rows):
        raise SystemExit(f"the stack did not finalize every document: {rows}")
    return rows


def one_page_cost(
    make_corpus: Callable[[Path, int], list[Path]],
    tmp: Path,
    state: Path,
    count: int,
    idle_s: float = IDLE_S,
) -> dict[str, Any]:
    """On a running stack that has run documents already (warm): an idle window, then
    `count` one-page documents through `docflow run`."""
    measured = tmp / "one-page"
    measured.mkdir(parents=True)
    make_corpus(measured, count)
    idle_from = _reading(state)
    time.sleep(idle_s)
    idle_to = _reading(state)
    began = _reading(state)
    run(state, measured)
    ended = _reading(state)
    idle_s = idle_to["at"] - idle_from["at"]
    run_s = ended["at"] - began["at"]
    idle = _minus(idle_to["requests"], idle_from["requests"])
    used = _minus(ended["requests"], began["requests"])
    per_doc: dict[str, dict[str, float]] = {}
    for service, ops in used.items():
        for op, n in ops.items():
            net = n - idle.get(service, {}).get(op, 0) * run_s / idle_s
            if n and round(net / count, 2) > 0:
                per_doc.setdefault(service, {})[op] = round(net / count, 2)
    supervisor = (ended["supervisor"] - began["supervisor"]) / count
    host = (ended["host"] - began["host"]) / count
    idle_cpu = (
        idle_to["supervisor"] - idle_from["supervisor"] + idle_to["host"] - idle_from["host"]
    ) / idle_s
    return {
        "documents": count,
        "seconds": round(run_s, 2),
        "cpu_s_per_document": {
            "supervisor": round(supervisor, 3),
            "host": round(host, 3),
            "total": round(supervisor + host, 3),
        },
        "idle_cpu_s_per_s": round(idle_cpu, 3),
        "requests_per_document": per_doc,
        "requests_per_document_by_service": {
            service: round(sum(ops.values()), 1) for service, ops in per_doc.items()
        },
        "idle_requests_per_s": {
            service: round(sum(ops.values()) / idle_s, 2) for service, ops in idle.items()
        },
    }
