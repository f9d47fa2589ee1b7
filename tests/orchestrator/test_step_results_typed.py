"""The orchestrator reads its step results as attributes of typed records (docs/records.md):
no `split["ok"]`-style subscript of anything a `context.step(...)` returned, read from the
source, in orchestrator/app.py and in the pipeline's control flow that runs beside it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONTROL_FLOW = (
    "orchestrator/app.py",
    "orchestrator/endings.py",
    "orchestrator/packet_run.py",
    "docflow/pipeline/triage.py",
)


def _step_results(tree: ast.AST) -> dict[str, int]:
    """Names bound to `context.step(...)` (or `ctx.step`) and where."""
    names: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Attribute) and func.attr == "step":
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        names[target.id] = node.lineno
    return names


def _subscripted(tree: ast.AST, names: set[str]) -> list[str]:
    found = []
    for node in ast.walk(tree):
        value = getattr(node, "value", None)
        if isinstance(node, ast.Subscript) and isinstance(value, ast.Name) and value.id in names:
            found.append(f"{value.id}[...] line {node.lineno}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if node.func.attr == "get" and isinstance(owner, ast.Name) and owner.id in names:
                found.append(f"{owner.id}.get(...) line {node.lineno}")
    return found


def test_no_step_result_is_read_by_a_string_key() -> None:
    wrong = {}
    for name in CONTROL_FLOW:
        tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
        # A step that answers a bare bool (still_latest) is not a record; subscripts catch dicts.
        found = _subscripted(tree, set(_step_results(tree)))
        if found:
            wrong[name] = found
    assert wrong == {}
