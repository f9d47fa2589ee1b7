"""Mutation testing of the controls: does a test fail when the code that decides whether a
document skips a person, or whether money goes out, is changed?

    python bench/mutation.py              the score of the last run, read from mutants/
    python bench/mutation.py --run        mutmut first (`make mutation`): the mutants not yet
                                          tested, and the survivors again (a test added since
                                          may kill them); --modules "docflow/names.py ..."
                                          re-tests those modules' mutants only
    python bench/mutation.py --hand       the hand-made mutants (bench/mutation_hand.toml)
    python bench/mutation.py --survivors  each unexplained survivor's diff, to write its test
    python bench/mutation.py --smoke      under 60 s: both lists' shape, one hand mutant run,
                                          and the last results' shape when there are any

mutmut 3 (`[tool.mutmut]` in pyproject.toml: the modules it mutates and the control tests it
runs) mutates the body of every function and method; it cannot mutate module constants,
class attributes or decorated functions (`@property`, `@durable_step`), so the tolerances,
windows and verdict sets that live there are hand-made mutants, each applied to a copy of
the project and run against the tests named for it. A surviving mutant is either killed by a
test or listed in bench/mutation_equivalents.toml with why no test can tell it from the code
(matched by function and diff, so the list outlives renumbering). Neither run is part of
`make test` or CI: the whole set takes hours on two cores (bench/README.md).

The last line of stdout is one JSON object: {"date", "tool", "goal", "modules": {path:
{"mutants", "killed", "timeout", "equivalent", "survived", "notChecked", "score"}}, "total":
{the same}, "hand": {"mutants", "killed", "survived": [names]} (with --hand or --smoke),
"ok"}. `killed` counts mutants a test failed on, a type check refused, or that crashed;
`score` is (killed + timeout) / (mutants - notChecked); `survived` is what no test killed and
the equivalents list does not explain (a mutant with no test that runs it included).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import _common
from _mutation_lists import Equivalent, HandMutant, Known, Rule, load_hand, load_known

ROOT = _common.ROOT
MUTANTS = ROOT / "mutants"
EQUIVALENTS = ROOT / "bench" / "mutation_equivalents.toml"
HAND = ROOT / "bench" / "mutation_hand.toml"
GOAL = 0.85
MUTMUT = Path(sys.executable).with_name("mutmut")
# mutmut's exit codes by verdict (mutmut/stats.py `status_by_exit_code`).
KILLED = {1, 3, 37, -11, -9}  # a test failed, pytest broke, the type check refused, a crash
TIMEOUT = {36, -24, 24, 152, 255}
SURVIVED = {0, 5, 33, 35}  # passed, or no test ran it (5, 33), or suspicious
# What a hand-made mutant's copy of the project needs (the tests import these).
COPIED = (
    "docflow",
    "tests",
    "orchestrator",
    "callback_api",
    "status_recorder",
    "starter",
    "batcher",
    "einvoice_rules",
    "conformance",
    "samples",
    "docs",
    "template.yaml",
    "pyproject.toml",
    "bench/_mutation_plugin.py",
)
PYTEST_ARGS = ("-x", "-q", "-p", "no:cacheprovider", "-p", "bench._mutation_plugin", "-n", "0")


def mutated_modules() -> list[str]:
    """The files `[tool.mutmut] only_mutate` names, expanded."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    out: list[str] = []
    for pattern in config["only_mutate"]:
        out += sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(pattern) if p.is_file())
    return list(dict.fromkeys(out))


# -- mutmut's results -------------------------------------------------------------------


def diff_of(mutant: str, path: str) -> str:
    """mutmut's diff of one mutant against its function (read from mutants/)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    cwd = os.getcwd()
    os.chdir(ROOT)  # mutmut reads mutants/<path> relative to the project
    try:
        return get_diff_for_mutant(mutant, path=path)
    finally:
        os.chdir(cwd)


def results(modules: Iterable[str]) -> Iterator[tuple[str, dict[str, int | None]]]:
    """Each module's {mutant: exit code} from the last run (`mutants/<path>.meta`)."""
    for module in modules:
        meta = MUTANTS / f"{module}.meta"
        if meta.exists():
            yield module, json.loads(meta.read_text("utf-8"))["exit_code_by_key"]


def score(modules: list[str], known: Known) -> dict[str, Any]:
    """Per module and in total: mutants, killed, timeout, equivalent, survived."""
    per: dict[str, dict[str, Any]] = {}
    total: Counter[str] = Counter()
    used: set[Equivalent | Rule] = set()
    for module, codes in results(modules):
        counts: Counter[str] = Counter(mutants=len(codes))
        for mutant, code in codes.items():
            if code is None:
                counts["notChecked"] += 1
            elif code in KILLED:
                counts["killed"] += 1
            elif code in TIMEOUT:
                counts["timeout"] += 1
            else:
                hit = known.explain(mutant, diff_of(mutant, module))
                counts["equivalent" if hit else "survived"] += 1
                used |= {hit} if hit else set()
        per[module] = _with_score(counts)
        total.update(counts)
    # Only the entries of modules with results can be stale (a smoke run, or a run of some
    # modules, leaves the others' mutants unchecked).
    scored = {
        m.removesuffix(".py").replace("/", ".")
        for m, c in per.items()
        if c["notChecked"] < c["mutants"]
    }
    stale = [
        f"{e.function}: {e.before}"
        for e in known.equivalents
        if e not in used and e.function.rpartition(".")[0] in scored
    ]
    return {"modules": per, "total": _with_score(total), "staleEquivalents": stale}


def _with_score(counts: Mapping[str, int]) -> dict[str, Any]:
    keys = ("mutants", "killed", "timeout", "equivalent", "survived", "notChecked")
    out: dict[str, Any] = {k: int(counts.get(k, 0)) for k in keys}
    checked = out["mutants"] - out["notChecked"]
    out["score"] = round((out["killed"] + out["timeout"]) / checked, 4) if checked else None
    return out


def survivors(modules: list[str], known: Known) -> Iterator[tuple[str, str]]:
    """(mutant, diff) of every survivor the equivalents list does not explain."""
    for module, codes in results(modules):
        for mutant, code in sorted(codes.items()):
            if code is not None and code not in KILLED | TIMEOUT:
                diff = diff_of(mutant, module)
                if known.explain(mutant, diff) is None:
                    yield mutant, diff


def retest_survivors(modules: Iterable[str]) -> int:
    """Mark every survivor unchecked, so the next `mutmut run` tests it again (mutmut keeps
    a verdict until the function changes; a test added since may kill it)."""
    reset = 0
    for module in modules:
        meta = MUTANTS / f"{module}.meta"
        if not meta.exists():
            continue
        data = json.loads(meta.read_text("utf-8"))
        codes = data["exit_code_by_key"]
        for mutant, code in codes.items():
            if code in SURVIVED:
                codes[mutant] = None
                reset += 1
        meta.write_text(json.dumps(data, indent=4), "utf-8")
    return reset


def run_mutmut(modules: list[str] | None, max_children: int) -> None:
    """`mutmut run`: every mutant not yet tested (survivors included, `retest_survivors`),
    or with `modules` all of theirs."""
    names = [m.removesuffix(".py").replace("/", ".") for m in modules or []]
    if not names:
        retest_survivors(mutated_modules())
    globs = [f"{n}.*" for n in names]
    command = [str(MUTMUT), "run", "--max-children", str(max_children), *globs]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=sys.stderr)


# -- hand-made mutants ------------------------------------------------------------------


def _copy_project(into: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", ".hypothesis", "screenshots")
    for name in COPIED:
        source, target = ROOT / name, into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, target)


def run_hand(mutants: list[HandMutant]) -> dict[str, Any]:
    """Apply each mutant to a copy of the project and run its tests: killed when they fail."""
    verdicts: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="docflow-hand-") as tmp:
        copy = Path(tmp)
        _copy_project(copy)
        env = {**os.environ, "PYTHONPATH": str(copy)}
        for mutant in mutants:
            target = copy / mutant.file
            original = target.read_text("utf-8")
            target.write_text(original.replace(mutant.find, mutant.replace, 1), "utf-8")
            try:
                done = subprocess.run(
                    [sys.executable, "-m", "pytest", *PYTEST_ARGS, *mutant.tests],
                    cwd=copy,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
            finally:
                target.write_text(original, "utf-8")
            # 1: a test failed. 0: every test passed. Anything else: the run itself broke.
            verdicts[mutant.name] = {0: "survived", 1: "killed"}.get(done.returncode, "error")
            print(f"{verdicts[mutant.name]:9} {mutant.name}", file=sys.stderr)
            if verdicts[mutant.name] == "error":
                print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)
    by = defaultdict(list)
    for name, verdict in verdicts.items():
        by[verdict].append(name)
    return {
        "mutants": len(mutants),
        "killed": len(by["killed"]),
        "survived": sorted(by["survived"]),
        "errors": sorted(by["error"]),
    }


# -- the command ------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="shapes and one hand mutant")
    parser.add_argument("--run", action="store_true", help="run mutmut first")
    parser.add_argument("--modules", default="", help="with --run: only these files' mutants")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--hand", action="store_true", help="run the hand-made mutants")
    parser.add_argument("--only", default="", help="with --hand: only the mutants so named")
    parser.add_argument("--survivors", action="store_true", help="print unexplained survivors")
    args = parser.parse_args()
    began = time.monotonic()
    modules = mutated_modules()
    known = load_known(EQUIVALENTS)
    hand = load_hand(HAND, ROOT)
    if args.survivors:
        for mutant, diff in survivors(modules, known):
            print(f"# {mutant}\n{diff}\n")
        return
    if args.run:
        wanted = args.modules.split()
        unknown = sorted(set(wanted) - set(modules))
        if unknown:
            parser.error(f"not in [tool.mutmut] only_mutate: {unknown}")
        run_mutmut(wanted, args.max_children)
    out: dict[str, Any] = {
        "date": dt.date.today().isoformat(),
        "tool": _mutmut_version(),
        "goal": GOAL,
    }
    if args.smoke:
        picked = [m for m in hand if m.smoke][:1]
        out["hand"] = run_hand(picked)
        out["ok"] = out["hand"]["killed"] == len(picked) == 1
        if MUTANTS.exists():
            out.update(score(modules[:1], known))
    else:
        if args.hand:
            only, files = set(args.only.split()), set(args.modules.split())
            picked = [m for m in hand if (not only or m.name in only)]
            out["hand"] = run_hand([m for m in picked if not files or m.file in files])
        out.update(score(modules, known))
        total = out["total"]
        unexplained = total["survived"] + total["notChecked"]
        out["ok"] = bool(total["mutants"]) and unexplained == 0 and (total["score"] or 0) >= GOAL
        if "hand" in out:
            out["ok"] = out["ok"] and not out["hand"]["survived"] and not out["hand"]["errors"]
    out["seconds"] = round(time.monotonic() - began, 1)
    _common.emit(out)


def _mutmut_version() -> str:
    from importlib.metadata import version

    return f"mutmut {version('mutmut')}"


if __name__ == "__main__":
    main()
