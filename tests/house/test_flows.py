"""Durable control flow lives in one place (issue 58): every durable operation a run makes
(`step`, `map`, `wait_for_callback`, `wait`, child contexts, ...) is called from a handler
(`orchestrator/`, `batcher/`) or from a `docflow/flows` module, where a reader sees a sub-flow's
replay contract (its operations' names and order) on one screen. The step bodies below
(`docflow/pipeline`, and every other room) make no durable call."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DURABLE = {
    "step",
    "map",
    "parallel",
    "wait",
    "wait_for_callback",
    "wait_for_condition",
    "create_callback",
    "run_in_child_context",
    "invoke",
}
# Where a durable operation may be called from.
FLOWS = ("orchestrator/", "batcher/", "docflow/flows/")


def durable_calls(path: Path) -> list[str]:
    """`context.<op>(...)` and `ctx.<op>(...)` calls in `path`, as `line: op`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value
        named = isinstance(owner, ast.Name) and owner.id in ("context", "ctx")
        if named and node.func.attr in DURABLE:
            found.append(f"{node.lineno}: {node.func.attr}")
    return found


def test_every_durable_call_is_in_a_handler_or_a_flow() -> None:
    product = [
        p
        for folder in ("docflow", "orchestrator", "batcher", "starter", "callback_api")
        for p in (ROOT / folder).rglob("*.py")
        if "docflow/local" not in p.as_posix()
    ]
    elsewhere = {
        str(p.relative_to(ROOT)): calls
        for p in product
        if (calls := durable_calls(p)) and not str(p.relative_to(ROOT)).startswith(FLOWS)
    }
    assert elsewhere == {}


def test_the_check_finds_a_durable_call() -> None:
    """The rule above can fail: a step body that waited would be found."""
    sample = ROOT / "docflow" / "flows" / "review.py"
    assert any("wait_for_callback" in c for c in durable_calls(sample))
