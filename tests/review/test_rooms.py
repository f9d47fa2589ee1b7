"""The review room's import plan, read from the source: its four rooms and the door import only
downward (what each `__init__` says), the whole room stays off the pipeline, the runtime, the
local stack and the handlers, and the rules file's ground floor imports no feature room."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REVIEW = ROOT / "docflow" / "review"

# Who may import whom inside docflow/review; "door" is desk.py and the modules beside it.
MAY_IMPORT = {
    "stage": {"stage"},
    "access": {"stage", "access"},
    "notify": {"stage", "access", "notify"},
    "door": {"stage", "access", "door"},
    "web": {"stage", "access", "door", "web"},
}
DOOR = {"desk", "votes", "decision_form", "link_view"}
NEVER = ("docflow.pipeline", "docflow.runtime", "docflow.local", "callback_api", "orchestrator")


def _imports(path: Path) -> set[str]:
    """Absolute modules a file imports, at the top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            # `from docflow.review.web import forms` imports a room's module by name.
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def _room_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["docflow", "review"] or len(parts) < 3:
        return None
    return "door" if parts[2] in DOOR else parts[2] if parts[2] in MAY_IMPORT else None


def _files() -> dict[str, list[Path]]:
    rooms = {room: sorted((REVIEW / room).rglob("*.py")) for room in MAY_IMPORT if room != "door"}
    rooms["door"] = [REVIEW / f"{name}.py" for name in sorted(DOOR)]
    return rooms


def test_the_review_rooms_import_downward() -> None:
    wrong = {}
    for room, paths in _files().items():
        for path in paths:
            used = {r for m in _imports(path) if (r := _room_of(m))}
            if used - MAY_IMPORT[room]:
                wrong[str(path.relative_to(ROOT))] = sorted(used - MAY_IMPORT[room])
    assert wrong == {}


def test_the_review_room_is_four_rooms_and_a_door() -> None:
    rooms = {p.name for p in REVIEW.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert rooms == set(MAY_IMPORT) - {"door"}
    flat = {p.stem for p in REVIEW.glob("*.py")} - {"__init__"}
    assert flat == DOOR
    for room in rooms:
        init = ast.parse((REVIEW / room / "__init__.py").read_text(encoding="utf-8"))
        assert ast.get_docstring(init), f"review/{room}/__init__.py says what it holds"


def test_the_review_room_never_reaches_up_to_its_callers() -> None:
    wrong = {
        str(path.relative_to(ROOT)): sorted(m for m in _imports(path) if m.startswith(NEVER))
        for path in REVIEW.rglob("*.py")
    }
    assert {k: v for k, v in wrong.items() if v} == {}


def test_the_rules_ground_floor_imports_no_feature_room() -> None:
    # docflow.names: the ground floor's invisible characters and identity keys ([people]);
    # docflow.accounts: the one account reader the IBAN detector uses.
    allowed = (
        "docflow.rules",
        "docflow.settings",
        "docflow.extract.checks.spec",
        "docflow.names",
        "docflow.accounts",
    )
    wrong = {
        str(path.relative_to(ROOT)): sorted(
            m for m in _imports(path) if m.startswith("docflow") and not m.startswith(allowed)
        )
        for path in (ROOT / "docflow" / "rules").rglob("*.py")
    }
    assert {k: v for k, v in wrong.items() if v} == {}
