"""How the `docflow` command prints: JSON, tables, progress, and quiet ends of pipes."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from docflow.cli.exits import BROKEN_PIPE as BROKEN_PIPE_EXIT
from docflow.readmodel.transitions import AWAITING_MATCH, PENDING_REVIEW, TERMINAL

# Where `docflow run` stops waiting on a document: an end, a person's turn, or an invoice's
# wait for its order or goods receipt (another document's run ends it: docs/matching.md).
SETTLED = frozenset({*TERMINAL, PENDING_REVIEW, AWAITING_MATCH})


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, sort_keys=True, default=str))


def print_json_line(value: Any) -> None:
    print(json.dumps(value, sort_keys=True, default=str), flush=True)


def width(text: str) -> int:
    """Columns `text` takes on a terminal: a CJK character takes two, a combining mark none
    (wcwidth); a character it cannot measure (a control character) counts as one."""
    from wcwidth import wcswidth

    measured = wcswidth(text)
    return measured if measured >= 0 else sum(max(0, wcswidth(c)) or 1 for c in text)


def pad(text: str, columns: int) -> str:
    return text + " " * max(0, columns - width(text))


def clip(text: str, columns: int) -> str:
    """`text` in at most `columns` characters, cut at a word and marked with `…` when it is
    longer: a cell of a table never ends mid-word."""
    text = " ".join(str(text).split())
    if len(text) <= columns:
        return text
    cut = text[: columns - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > columns // 2 else cut).rstrip(" ,;:") + "\u2026"


def count_of(n: int, noun: str) -> str:
    """`1 row`, `3 rows`: a count with its noun in the number it takes."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def table(rows: list[list[Any]], headers: list[str]) -> str:
    """Columns aligned by display width, so `請求書.pdf` lines up with `invoice.pdf`. The last
    column is not padded (no trailing blanks)."""
    cells = [[str(c) for c in row] for row in [headers, *rows]]
    widths = [max(width(c) for c in col) for col in zip(*cells, strict=False)]
    lines = ["  ".join(pad(c, w) for c, w in zip(r, widths, strict=False)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def stdout_closed() -> int:
    """Called on BrokenPipeError: end quietly, as `cat` does when `head` has had enough.

    Python would otherwise print a second error while flushing stdout at exit; pointing
    stdout at /dev/null first is the way the Python documentation gives for this.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    return BROKEN_PIPE_EXIT


def bar(done: int, total: int | None, width: int = 20) -> str:
    if not total:
        return "[" + "." * width + "]"
    filled = int(width * min(done, total) / total)
    return "[" + "#" * filled + "." * (width - filled) + f"] {done}/{total}"


class Progress:
    """`docflow run`'s progress on stderr: redrawn in place on a terminal; otherwise one plain
    line each time a document's status changes, and, while a document has not settled, a
    line for it every `every_s` seconds with its pages read (logs and CI read those: a long
    scan is not silent for minutes)."""

    def __init__(
        self,
        stream: Any = None,
        enabled: bool = True,
        every_s: float = 60.0,
        clock: Any = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.tty = enabled and bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self.drawn = 0
        self.last: dict[str, str] = {}
        self.every_s = every_s
        self.clock = clock
        self.said_at: dict[str, float] = {}

    def update(self, lines: list[tuple[str, str, str]], settled: int, total: int) -> None:
        """`lines`: (name, progress, status) per document; progress is a bar on a terminal,
        otherwise words such as `120/300 pages` (or "")."""
        if not self.enabled:
            return
        if self.tty:
            text = [f"{pad(name[:32], 32)} {progress} {status}" for name, progress, status in lines]
            text.append(f"settled {settled}/{total}")
            self.stream.write(("\x1b[F\x1b[K" * self.drawn) + "\n".join(text) + "\n")
            self.drawn = len(text)
        else:
            now = self.clock()
            for name, progress, status in lines:
                changed = self.last.get(name) != status
                due = status not in SETTLED and now - self.said_at.get(name, now) >= self.every_s
                if changed or due:
                    self.last[name] = status
                    self.said_at[name] = now
                    shown = f"{status}, {progress}" if progress and due else status
                    self.stream.write(f"{name}: {shown} (settled {settled}/{total})\n")
        self.stream.flush()
