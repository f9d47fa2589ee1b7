"""How the `docflow` command prints: JSON, tables, progress, and quiet ends of pipes."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

# Exit status when the reader of stdout went away (`docflow pending | head`): what a
# process killed by SIGPIPE reports, as `cat` or `grep` would.
BROKEN_PIPE_EXIT = 141


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, sort_keys=True, default=str))


def print_json_line(value: Any) -> None:
    print(json.dumps(value, sort_keys=True, default=str), flush=True)


def table(rows: list[list[Any]], headers: list[str]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=False)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=False))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows]
    return "\n".join(out)


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
    """`docflow run`'s progress on stderr: redrawn in place on a terminal, otherwise one plain
    line each time a document's status changes (logs and CI read those)."""

    def __init__(self, stream: Any = None, enabled: bool = True) -> None:
        self.stream = stream or sys.stderr
        self.tty = enabled and bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self.drawn = 0
        self.last: dict[str, str] = {}

    def update(self, lines: list[tuple[str, str, str]], settled: int, total: int) -> None:
        """`lines`: (name, bar, status) per document."""
        if not self.enabled:
            return
        if self.tty:
            text = [f"{name[:32]:32} {progress} {status}" for name, progress, status in lines]
            text.append(f"settled {settled}/{total}")
            self.stream.write(("\x1b[F\x1b[K" * self.drawn) + "\n".join(text) + "\n")
            self.drawn = len(text)
        else:
            for name, _, status in lines:
                if self.last.get(name) != status:
                    self.last[name] = status
                    self.stream.write(f"{name}: {status} (settled {settled}/{total})\n")
        self.stream.flush()
