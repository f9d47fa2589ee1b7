"""What a source file imports, read from its syntax tree (nothing is imported to find out), and
the unit of the house each module belongs to: a handler package, `docflow`'s top-level package
or module (`review`, `pipeline`, `settings` ...), a room of the local stack (`local.tools`).

Each file is parsed once per process and version of the file (`_statements`): the house's
tests each read the whole repository, and parsing it again for every one of them was most of
their minute."""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
HANDLERS = (
    *("orchestrator", "starter", "callback_api", "status_recorder", "batcher"),
    "einvoice_rules",
)
PRODUCT = ("docflow", *HANDLERS, "conformance")
OURS = (*PRODUCT, "tests", "bench")


class _Statements(NamedTuple):
    """A file's import statements and the strings a loader could take for `tests.` modules."""

    imports: tuple[tuple[str, ...], ...]  # `import a, b.c`: ("a", "b.c")
    froms: tuple[tuple[str, tuple[str, ...]], ...]  # `from m import x, y` (absolute): (m, (x, y))
    test_strings: tuple[str, ...]  # "tests.kit.sandbox" and the like, as string constants


def _statements(path: Path) -> _Statements:
    stat = path.stat()
    return _parsed(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _parsed(path: Path, _mtime_ns: int, _size: int) -> _Statements:
    imports, froms, strings = [], [], []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imports.append(tuple(alias.name for alias in node.names))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            froms.append((node.module, tuple(alias.name for alias in node.names)))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("tests.")
            and " " not in node.value
        ):
            strings.append(node.value)
    return _Statements(tuple(imports), tuple(froms), tuple(strings))


def imported_modules(path: Path) -> set[str]:
    """Modules a file imports (deferred imports inside functions included), and the dotted
    names it hands to a loader as strings."""
    found = _statements(path)
    names: set[str] = {name for names in found.imports for name in names}
    for module, aliases in found.froms:
        if module == "docflow":  # `from docflow import aws`: the module is docflow.aws
            names |= {f"docflow.{alias}" for alias in aliases}
        else:
            names.add(module)
    return names | set(found.test_strings)


def unit(module: str) -> str:
    """`docflow.review.links` -> `review`; `docflow.local.tools.ports` -> `local.tools`;
    `callback_api.app` -> `callback_api`; `docflow` -> `docflow`."""
    parts = module.split(":", maxsplit=1)[0].split(".")
    if parts[0] != "docflow" or len(parts) == 1:
        return parts[0]
    if parts[1] == "local" and len(parts) > 2:
        return f"local.{parts[2]}"
    return parts[1]


def module_of(path: Path) -> str:
    dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return dotted.removesuffix(".__init__")


def unit_imports(tops: tuple[str, ...] = PRODUCT) -> dict[str, dict[str, set[str]]]:
    """{unit: {unit it imports: the files that do}} over every file under `tops`; only our own
    units (the product, tests, bench), never a unit's imports of itself."""
    graph: dict[str, dict[str, set[str]]] = {}
    for top in tops:
        for path in sorted((ROOT / top).rglob("*.py")):
            here = unit(module_of(path))
            graph.setdefault(here, {})
            for module in imported_modules(path):
                there = unit(module)
                if module.split(".")[0] in OURS and there != here:
                    name = str(path.relative_to(ROOT))
                    graph[here].setdefault(there, set()).add(name)
    return graph


def module_imports(tops: tuple[str, ...] = PRODUCT) -> dict[str, set[str]]:
    """{module: the product modules it imports} over every file under `tops`: deferred imports
    inside functions and `if TYPE_CHECKING:` imports included (a loop through either is still
    a loop a reader walks), `from package import module` read as the module."""
    files = {module_of(p): p for top in tops for p in sorted((ROOT / top).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for here, path in files.items():
        statements = _statements(path)
        found: set[str] = {name for names in statements.imports for name in names}
        for module, aliases in statements.froms:
            named = {f"{module}.{alias}" for alias in aliases}
            found |= (named & files.keys()) or {module}
        graph[here] = {m for m in found if m in files and m != here}
    return graph
