"""The two checked-in lists bench/mutation.py reads: the mutants no test can tell from the code
(bench/mutation_equivalents.toml) and the hand-made mutants (bench/mutation_hand.toml)."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


def squeeze(text: str) -> str:
    return " ".join(text.split())


def function_of(mutant: str) -> str:
    """mutmut's key of a mutant's function: the mutant's name without its number."""
    return mutant.partition("__mutmut_")[0]


def changed_lines(diff: str) -> tuple[str, str]:
    """The removed and the added lines of a mutant's diff (mutmut's unified diff of the
    function), each squeezed to one line."""
    body = [ln for ln in diff.splitlines()[2:] if ln[:1] in "-+"]
    before = "\n".join(ln[1:] for ln in body if ln.startswith("-"))
    after = "\n".join(ln[1:] for ln in body if ln.startswith("+"))
    return squeeze(before), squeeze(after)


@dataclass(frozen=True)
class Equivalent:
    """One equivalent mutant: its function and its change."""

    function: str  # mutmut's key without the mutant's number: `docflow.names.x_identity_key`
    before: str  # the changed line(s) as the code has them, squeezed
    after: str  # as the mutant has them
    why: str


@dataclass(frozen=True)
class Rule:
    """A kind of mutant that is equivalent wherever mutmut makes it: `match` is fullmatched
    against "<line before> => <line after>" (squeezed)."""

    name: str
    match: re.Pattern[str]
    why: str


@dataclass(frozen=True)
class Known:
    """The equivalents list: single mutants, and kinds of mutant."""

    equivalents: tuple[Equivalent, ...] = ()
    rules: tuple[Rule, ...] = ()

    def explain(self, mutant: str, diff: str) -> Equivalent | Rule | None:
        before, after = changed_lines(diff)
        function = function_of(mutant)
        for e in self.equivalents:
            if e.function == function and e.before == before and e.after == after:
                return e
        for rule in self.rules:
            if rule.match.fullmatch(f"{before} => {after}"):
                return rule
        return None


def load_known(path: Path) -> Known:
    raw = tomllib.loads(path.read_text("utf-8")) if path.exists() else {}
    equivalents = []
    for n, entry in enumerate(raw.get("equivalent", []), 1):
        missing = {"function", "from", "to", "why"} - set(entry)
        if missing:
            raise ValueError(f"{path.name}: equivalent {n} lacks {sorted(missing)}")
        if len(str(entry["why"]).split()) < 4:
            raise ValueError(f"{path.name}: equivalent {n} ({entry['function']}): say why")
        equivalents.append(
            Equivalent(
                str(entry["function"]),
                squeeze(str(entry["from"])),
                squeeze(str(entry["to"])),
                str(entry["why"]),
            )
        )
    rules = []
    for n, entry in enumerate(raw.get("rule", []), 1):
        missing = {"name", "match", "why"} - set(entry)
        if missing:
            raise ValueError(f"{path.name}: rule {n} lacks {sorted(missing)}")
        rules.append(Rule(str(entry["name"]), re.compile(str(entry["match"])), str(entry["why"])))
    return Known(tuple(equivalents), tuple(rules))


@dataclass(frozen=True)
class HandMutant:
    name: str
    file: str
    find: str  # must occur once in `file`
    replace: str
    tests: tuple[str, ...]  # pytest node ids or files: at least one must fail
    why: str
    smoke: bool = False  # the one `--smoke` runs


def load_hand(path: Path, root: Path) -> list[HandMutant]:
    """The hand-made mutants, each checked against the code it changes."""
    out = []
    for n, entry in enumerate(tomllib.loads(path.read_text("utf-8"))["mutant"], 1):
        missing = {"name", "file", "find", "replace", "tests", "why"} - set(entry)
        if missing:
            raise ValueError(f"{path.name}: mutant {n} lacks {sorted(missing)}")
        mutant = HandMutant(
            str(entry["name"]),
            str(entry["file"]),
            str(entry["find"]),
            str(entry["replace"]),
            tuple(str(t) for t in entry["tests"]),
            str(entry["why"]),
            bool(entry.get("smoke", False)),
        )
        found = (root / mutant.file).read_text("utf-8").count(mutant.find)
        if found != 1:
            raise ValueError(
                f"{path.name}: {mutant.name}: {mutant.find!r} is in {mutant.file} {found} "
                "times, not once"
            )
        for test in mutant.tests:
            if not (root / test.split("::")[0]).exists():
                raise ValueError(f"{path.name}: {mutant.name}: no test {test}")
        out.append(mutant)
    twice = [name for name, count in Counter(m.name for m in out).items() if count > 1]
    if twice:
        raise ValueError(f"{path.name}: a name used twice: {twice[0]}")
    return out
