"""What the README tells a newcomer, read as data, so a test can do it and compare: the table
`make run` ends with, the review links it prints, the first review's commands and the values a
person types (`tests/browser/test_readme_walkthrough.py`). Each reader fails with the README's
words when the text no longer has the shape it reads, rather than reading something else."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def readme() -> str:
    return README.read_text(encoding="utf-8")


def blocks(text: str) -> list[str]:
    """The README's fenced code blocks, in order, without their fences."""
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M)


def parse_table(text: str) -> list[dict[str, str]]:
    """A table as `docflow.cli.output.table` prints it: the header, a line of dashes whose
    runs give the columns, then a row a line, until the first line that is not one."""
    lines = text.splitlines()
    (at,) = [i for i, line in enumerate(lines) if re.fullmatch(r"-+(  -+)*", line)][:1]
    spans = [m.span() for m in re.finditer(r"-+", lines[at])]
    names = [lines[at - 1][a:b].strip() for a, b in spans]
    names[-1] = lines[at - 1][spans[-1][0] :].strip()
    rows = []
    for line in lines[at + 1 :]:
        if not line.startswith("d-"):
            break
        cells = [line[a:b].strip() for a, b in spans[:-1]] + [line[spans[-1][0] :].strip()]
        rows.append(dict(zip(names, cells, strict=True)))
    return rows


@dataclass(frozen=True)
class RunTable:
    """The block that shows what `make run` ends with."""

    rows: list[dict[str, str]]
    links: list[tuple[str, str]]  # (key, reviewer) of each review link printed
    failed_line: str


def run_table(text: str | None = None) -> RunTable:
    text = text if text is not None else readme()
    (shown,) = [b for b in blocks(text) if b.startswith("document ")]
    links = re.findall(r"^review (\S+) \((\S+@\S+)\): http", shown, flags=re.M)
    failed = [line for line in shown.splitlines() if line.startswith("docflow: ")]
    assert len(failed) == 1, f"README's run table has no `docflow: ... failed` line:\n{shown}"
    return RunTable(parse_table(shown), links, failed[0])


def run_links(printed: str) -> list[tuple[str, str]]:
    """The (key, reviewer) of each review link `docflow run` printed."""
    return re.findall(r"^review (\S+) \((\S+@\S+)\): http", printed, flags=re.M)


def same_bytes_again(text: str | None = None) -> list[str]:
    """The samples the README says a second `make run` leaves alone (same bytes, no run)."""
    text = " ".join((text if text is not None else readme()).split())
    (sentence,) = [s for s in re.split(r"(?<=[.;])\s", text) if "start no run" in s]
    return re.findall(r"`([\w.-]+\.(?:pdf|xml|txt))`", sentence)


@dataclass(frozen=True)
class Walkthrough:
    """The first review, as the README's block says it: the commands in order, how many
    documents `pending` lists, whose link to which file, what is typed where, which button,
    and what `show` then says."""

    commands: list[list[str]]
    pending: int
    reviewer: str
    document: str
    typed: str
    label: str
    button: str
    status: str
    field: str
    value: str
    corrected_by: str
    history: bool
    cost: bool


def walkthrough(text: str | None = None) -> Walkthrough:
    text = text if text is not None else readme()
    (block,) = [b for b in blocks(text) if "docflow pending" in b and "docflow show" in b]
    # One line of words: the comment marks dropped, so a sentence may run over several lines.
    joined = " ".join(block.replace("#", " ").split())

    def said(pattern: str) -> re.Match[str]:
        found = re.search(pattern, joined)
        assert found, f"README's first review no longer says {pattern!r}:\n{block}"
        return found

    commands = [
        line.split("#", 1)[0].split()[1:]
        for line in block.splitlines()
        if line.startswith(".venv/bin/docflow ")
    ]
    pending = said(r"docflow pending\s+the (\w+) documents? waiting")
    link = said(r"open (\S+@\S+)'s link to ([\w-]+\.(?:pdf|xml))")
    typed = said(r'type (\S+) in "([^"]+)", press "([^"]+)"')
    shown = said(r"docflow show \S+\s+(\w[\w-]*), (\w+) (\S+) corrected by ([^\s;,]+)")
    after = joined[shown.end() :]
    return Walkthrough(
        commands=commands,
        pending=NUMBERS[pending.group(1)],
        reviewer=link.group(1),
        document=link.group(2),
        typed=typed.group(1),
        label=typed.group(2),
        button=typed.group(3),
        status=shown.group(1),
        field=shown.group(2),
        value=shown.group(3),
        corrected_by=shown.group(4),
        history="history" in after,
        cost="cost" in after,
    )


def mailed_link(printed: str, reviewer: str, key: str) -> str:
    """The review link in `docflow mail`'s text for `reviewer` and the document `key`."""
    for message in printed.split("-" * 60):
        if f"To: {reviewer}" in message and f"Document: {key}\n" in message:
            found = re.search(r"\((http://\S+/review/\S+)\)", message)
            if found:
                return found.group(1)
    raise AssertionError(f"`docflow mail` has no link for {reviewer} to {key}:\n{printed}")
