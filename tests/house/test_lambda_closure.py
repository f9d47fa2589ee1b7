"""No Lambda function's code reaches the local stack.

The Makefile's `lambda_build` leaves `docflow/local` out of every function's artifact, so a
handler whose imports reached it (the local runner's starter, once in `docflow/intake.py`, which
every function loads) would fail to load in AWS or carry the local stack's code there. Each
handler the template deploys is followed through every import of the product (deferred and
`TYPE_CHECKING` ones included), read from the syntax tree; that reading is the whole closure
because nothing in it imports a module by a name computed at run time (the last test holds it
so)."""

from __future__ import annotations

import ast
import re
from collections import deque
from pathlib import Path

from tests.support.imports import ROOT, module_imports

TEMPLATE = ROOT / "template.yaml"
_HANDLER = re.compile(r"^\s+Handler:\s*([\w.]+)\.\w+\s*$", re.MULTILINE)


def deployed_handlers() -> list[str]:
    """The module of every function template.yaml deploys (`Handler: starter.app.handler`)."""
    return sorted(set(_HANDLER.findall(TEMPLATE.read_text(encoding="utf-8"))))


def closure(module: str, graph: dict[str, set[str]]) -> set[str]:
    seen, todo = {module}, deque([module])
    while todo:
        for there in graph.get(todo.popleft(), set()) - seen:
            seen.add(there)
            todo.append(there)
    return seen


def _is_local(module: str) -> bool:
    return module == "docflow.local" or module.startswith("docflow.local.")


def test_the_artifact_leaves_the_local_stack_out() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    build = makefile.split("define lambda_build", 1)[1].split("endef", 1)[0]
    assert "--exclude='docflow/local'" in build


def test_every_deployed_handler_is_followed() -> None:
    handlers = deployed_handlers()
    graph = module_imports()
    assert {"starter.app", "orchestrator.app", "batcher.schedule"} <= set(handlers)
    assert all(h in graph for h in handlers)  # each names a module of the product


def test_no_lambda_handlers_import_closure_touches_the_local_stack() -> None:
    graph = module_imports()
    wrong = {
        handler: sorted(m for m in closure(handler, graph) if _is_local(m))
        for handler in deployed_handlers()
    }
    assert {h: local for h, local in wrong.items() if local} == {}


def test_nothing_in_the_closures_imports_by_a_computed_name() -> None:
    graph = module_imports()
    reached = set().union(*(closure(h, graph) for h in deployed_handlers()))
    dynamic = {
        module: sorted(_dynamic_imports(_path_of(module)))
        for module in sorted(reached)
        if _dynamic_imports(_path_of(module))
    }
    assert dynamic == {}


def _path_of(module: str) -> Path:
    base = ROOT.joinpath(*module.split("."))
    package = base / "__init__.py"
    return package if package.is_file() else base.with_suffix(".py")


def _dynamic_imports(path: Path) -> set[str]:
    """Calls that load a module by a name: importlib.import_module, __import__."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            if name in {"import_module", "__import__"}:
                found.add(f"line {node.lineno}: {name}")
    return found
