"""The house's import rules for the whole product (docs/architecture.md, "House: what each
folder may import"), read from the source: imports run one way, downward.

The local stack's rooms are held to their own table in tests/local/test_local_rooms.py. Every
other unit of docflow has its row in HOUSE below (a unit added without one fails), and the
handlers, the local stack, the CLI and the tests are held to the rules after it; no two units,
and no two modules, import each other round a loop."""

from __future__ import annotations

import re
from graphlib import CycleError, TopologicalSorter

from tests.support.imports import (
    HANDLERS,
    ROOT,
    imported_modules,
    module_imports,
    module_of,
    unit,
    unit_imports,
)

GROUND = {
    *("aws", "settings", "ids", "errors", "observability", "cost", "storage", "pdf"),
    "telemetry",  # the run's trace context and the parts' spans (docflow/telemetry)
    "dynamo",  # every store's DynamoDB helper (conditional writes, typed items)
    "function_versions",  # which versions hold open executions (Lambda's answer)
    "converse",  # Bedrock Converse with one forced tool (extract, packets, enrich)
    "names",  # invisible characters, TR39 skeletons, mixed scripts, identity keys
    "accounts",  # bank accounts in any printed form (the stdlib, schwifty and stdnum only)
    "active_content",  # the kinds of active content a PDF may hold, and how each is said
    "pdf_actions",  # the bounded walk over a PDF's actions (pypdf)
    "document",  # the run's typed record of its document: summary, fields, checks
}
# What each of docflow's units may import of docflow (besides itself), from the House table.
HOUSE: dict[str, set[str]] = {
    **{floor: GROUND for floor in GROUND},
    # The one account reader imports nothing of docflow's: any room may read accounts.
    "accounts": set(),
    # The document's record is read by every room and owned by none.
    "document": set(),
    "executions": GROUND,
    "readmodel": GROUND,
    "events": GROUND | {"readmodel"},
    "reporting": GROUND | {"readmodel", "events"},
    # A run's history folded into a timeline, and why a quiet run is stuck.
    "trace": GROUND | {"readmodel"},
    # The widgets read the read model; the document page's fragment is the trace's.
    "ops": GROUND | {"readmodel", "trace"},
    # An S3 event to its run, and the starters (Lambda's; the local runner's is handed in by
    # the local functions' host, docflow/local/services/starter.py).
    "intake": GROUND,
    "readers": GROUND | {"readmodel"},
    "extract": GROUND | {"readers", "readmodel"},
    # EN 16931 e-invoices: detect, read, validate (libraries only; the pipeline calls it).
    "einvoice": GROUND,
    # The rules file's model and the detectors; it reads the [fields] table's model.
    "rules": GROUND | {"extract"},
    # The supplier registry and what extraction learns from it.
    "suppliers": GROUND | {"rules", "extract", "readmodel"},
    "classify": GROUND | {"rules", "extract", "readers", "readmodel"},
    "enrich": GROUND | {"rules", "classify", "extract", "readers", "readmodel"},
    "review": GROUND
    | {"rules", "readmodel", "reporting", "classify", "extract", "readers", "suppliers"},
    "piles": GROUND | {"enrich", "review", "intake", "readmodel"},
    # Page-level classification of packets: the rules, labels and layout, words, checked ids
    # (the suppliers room checks them).
    "packets": GROUND | {"rules", "extract", "readers", "suppliers"},
    "runtime": GROUND
    | {"rules", "readers", "classify", "extract", "enrich", "review", "reporting"}
    | {"packets", "intake"},
}
# The step bodies stand on everything above but the CLI and the local stack.
HOUSE["pipeline"] = set(HOUSE) | {"runtime"}
# The durable sub-flows run the step bodies: every durable operation is in them or in the
# orchestrator, none in `pipeline`.
HOUSE["flows"] = HOUSE["pipeline"] | {"pipeline"}
# The package's face (docflow/__init__.py) and the units held by the rules further down.
KNOWN = set(HOUSE) | {"cli", "local", "docflow"}


def _is_local(unit: str) -> bool:
    return unit == "local" or unit.startswith("local.")


def _docflow_units(graph: dict[str, dict[str, set[str]]]) -> set[str]:
    return {u for u in graph if u not in HANDLERS and u != "conformance"}


def test_each_docflow_unit_imports_only_what_the_house_allows() -> None:
    graph = unit_imports()
    wrong = {
        f"{here} -> {there}": sorted(files)
        for here, allowed in HOUSE.items()
        for there, files in graph.get(here, {}).items()
        if there not in allowed and there != "docflow"
    }
    assert wrong == {}


def test_every_unit_of_docflow_has_its_place_in_the_house() -> None:
    # A new package or module of docflow is placed in HOUSE (and in docs/architecture.md's
    # table) when it is added, so nothing it imports goes unchecked.
    graph = unit_imports()
    unplaced = sorted(u for u in _docflow_units(graph) if u not in KNOWN and not _is_local(u))
    assert unplaced == []


def test_handlers_import_docflow_but_not_the_local_stack_the_cli_or_each_other() -> None:
    graph = unit_imports()
    wrong = {
        f"{handler} -> {there}": sorted(files)
        for handler in HANDLERS
        for there, files in graph[handler].items()
        if there in HANDLERS or there in {"cli", "tests", "bench"} or _is_local(there)
    }
    assert wrong == {}
    assert all(any(u in KNOWN for u in graph[h]) for h in HANDLERS)  # each stands on docflow


def test_docflow_never_imports_a_handler_outside_the_local_stack() -> None:
    # The local stack hosts the handlers (its function host, the pile harness); the product,
    # the CLI included, never reaches up to them.
    graph = unit_imports()
    wrong = {
        f"{here} -> {there}": sorted(files)
        for here in _docflow_units(graph)
        if not _is_local(here)
        for there, files in graph[here].items()
        if there in HANDLERS
    }
    assert wrong == {}


def test_only_the_cli_and_the_local_stack_import_the_local_stack() -> None:
    graph = unit_imports()
    wrong = {
        f"{here} -> {there}": sorted(files)
        for here, imports in graph.items()
        if not _is_local(here) and here != "cli"
        for there, files in imports.items()
        if _is_local(there)
    }
    assert wrong == {}


def test_nothing_in_the_product_imports_the_cli() -> None:
    graph = unit_imports()
    wrong = {
        f"{here} -> cli": sorted(imports["cli"])
        for here, imports in graph.items()
        if here != "cli" and "cli" in imports
    }
    assert wrong == {}


def test_the_product_never_imports_the_tests_or_the_benchmarks() -> None:
    graph = unit_imports((*HANDLERS, "docflow", "conformance", "bench"))
    wrong = {
        f"{here} -> {there}": sorted(files)
        for here, imports in graph.items()
        for there, files in imports.items()
        if (there == "tests" and here != "bench") or (there == "bench" and here != "bench")
    }
    assert wrong == {}


def test_the_benchmarks_import_only_the_test_kit_of_the_tests() -> None:
    # The kit (tests/kit) is the tests' and benchmarks' shared tools; the rest of tests/ is tests.
    wrong = {
        str(path.relative_to(ROOT)): sorted(
            m for m in imported_modules(path) if unit(m) == "tests" and not _in_kit(m)
        )
        for path in sorted((ROOT / "bench").rglob("*.py"))
    }
    assert {here: there for here, there in wrong.items() if there} == {}


def test_the_test_kit_imports_nothing_else_of_the_tests() -> None:
    wrong = {
        str(path.relative_to(ROOT)): sorted(
            m for m in imported_modules(path) if unit(m) == "tests" and not _in_kit(m)
        )
        for path in sorted((ROOT / "tests" / "kit").rglob("*.py"))
    }
    assert {here: there for here, there in wrong.items() if there} == {}


def _in_kit(module: str) -> bool:
    return module == "tests.kit" or module.startswith("tests.kit.")


def test_conformance_needs_only_the_sdk() -> None:
    assert unit_imports().get("conformance", {}) == {}


def test_docflows_units_import_each_other_without_a_cycle() -> None:
    graph = unit_imports()
    units = _docflow_units(graph)
    sorter = TopologicalSorter({u: set(graph[u]) & units for u in units})
    try:
        sorter.prepare()
    except CycleError as cycle:
        raise AssertionError(f"imports go round: {' -> '.join(cycle.args[1])}") from None


def test_no_two_modules_of_the_product_import_each_other_round_a_loop() -> None:
    # Finer than the units' check above: inside one unit too (cli/queries.py and cli/stuck.py,
    # review/stage/decision.py and review/stage/triage.py once did), a deferred or a
    # TYPE_CHECKING import included. What both sides of a loop need belongs below both.
    graph = module_imports()
    sorter = TopologicalSorter(graph)
    try:
        sorter.prepare()
    except CycleError as cycle:
        raise AssertionError(f"imports go round: {' -> '.join(cycle.args[1])}") from None


def test_no_test_module_imports_another_test_module() -> None:
    # What two test modules share is a support module (tests/support) or a sibling helper
    # module (tests/suppliers/papers.py): importing a test module runs its tests' collection
    # twice and ties one test's edits to another's.
    test_module = re.compile(r"(^|\.)test_[^.]*$")
    wrong = {
        str(path.relative_to(ROOT)): sorted(
            m for m in imported_modules(path) if test_module.search(m)
        )
        for path in sorted((ROOT / "tests").rglob("*.py"))
    }
    assert {here: there for here, there in wrong.items() if there} == {}


# What each room of docflow/extract may import of docflow/extract (docs/architecture.md, each
# room's __init__): factory -> engines -> rules_engine -> base -> declarations; checks ->
# declarations.
EXTRACT_ROOMS: dict[str, set[str]] = {
    "declarations": set(),
    "base": {"declarations"},
    "checks": {"declarations"},
    "rules_engine": {"declarations", "base"},
    "engines": {"declarations", "base", "rules_engine"},
    "factory": {"base", "rules_engine", "engines"},
}


def _extract_room(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["docflow", "extract"] or len(parts) < 3:
        return None
    return parts[2]


def test_the_rooms_of_extract_import_downward() -> None:
    extract = ROOT / "docflow" / "extract"
    rooms = {p.stem if p.suffix else p.name for p in extract.iterdir() if p.name != "__pycache__"}
    assert rooms - {"__init__"} == set(EXTRACT_ROOMS)  # a new room is placed when added
    wrong = {}
    for path in sorted(extract.rglob("*.py")):
        here = _extract_room(module_of(path))
        if here is None or here == "__init__":
            continue
        used = {_extract_room(m) for m in imported_modules(path)} - {None, here}
        if used - EXTRACT_ROOMS[here]:
            wrong[str(path.relative_to(ROOT))] = sorted(str(u) for u in used - EXTRACT_ROOMS[here])
    assert wrong == {}
