"""Where a key is in the rules file, so a refused declaration names its line (tomllib keeps no
positions)."""

from __future__ import annotations

import re


class DeclarationError(ValueError):
    """A declaration the loader refuses; its message names the line."""


class Lines:
    """Where a key is in the rules file, for messages a person can act on (tomllib keeps no
    positions): the line of the key's own table header, or of a word near it inside."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def line(self, at: str, near: str = "", occurrence: int = 1) -> int | None:
        parts = at.split(".")
        for depth in range(len(parts), 1, -1):
            prefix = ".".join(parts[:depth])
            header = re.compile(rf"^\s*\[\s*{re.escape(prefix)}\s*\]")
            for number, line in enumerate(self.lines, 1):
                if header.match(line):
                    return self._near(number, near, occurrence) if near else number
        return None

    def _near(self, start: int, word: str, occurrence: int) -> int:
        pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")
        for number in range(start, len(self.lines) + 1):
            line = self.lines[number - 1]
            if number > start and line.lstrip().startswith("["):
                break
            if pattern.search(line):
                occurrence -= 1
                if occurrence == 0:
                    return number
        return start

    def error(self, at: str, message: str, near: str = "", occurrence: int = 1) -> DeclarationError:
        number = self.line(at, near, occurrence)
        where = f"line {number}: " if number else ""
        return DeclarationError(f"{where}{at}: {message}")
