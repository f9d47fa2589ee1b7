"""The durable runner's executions as a stack's folder holds them, read from outside while
the stack runs: for the tests and benchmarks that judge a stack by where effects land."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from docflow.local.durability.execution_store import read_executions, status_of


def executions(state: Path) -> list[dict[str, Any]]:
    """Every execution, in the runner's to_json_dict form: from the journal store, or from the
    SDK's sqlite store of a stack started with `runner_store="sqlite"`."""
    if (state / "executions").is_dir():
        return read_executions(state / "executions")
    path = state / "executions.sqlite"
    if not path.exists():
        return []
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return [json.loads(data) for (data,) in db.execute("SELECT data FROM executions")]


def function_of(data: dict[str, Any]) -> str:
    return str(data["StartInput"]["FunctionName"])


def name_and_status(data: dict[str, Any]) -> tuple[str, str]:
    return str(data["StartInput"]["ExecutionName"]), status_of(data)
