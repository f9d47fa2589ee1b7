"""A PDF page's printed text, character by character, as the variant generator needs it:
lines with each character's box, baseline and font, and the edits to make (a printed value,
the text to print in its place)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pymupdf


class Skip(Exception):
    """Why a document or a variant cannot be made (counted, never emitted half-changed)."""


@dataclass
class Char:
    c: str
    bbox: pymupdf.Rect
    origin: tuple[float, float]
    span: dict[str, Any]


@dataclass
class Line:
    page: int
    chars: list[Char]
    text: str = ""

    def __post_init__(self) -> None:
        self.text = "".join(c.c for c in self.chars)


GLUED = set("().,;:*-")  # punctuation glued to a value is re-printed with it


CURRENCY_AFTER = re.compile(r"[ \u00a0]?(?:€|EUR|\$|USD|GBP|£|BRL|ARS|CHF)(?![A-Za-z])")


@dataclass
class Edit:
    """One printed value to replace: chars `start:end` of `line` become `new`."""

    line: Line
    start: int
    end: int
    new: str
    figure: bool  # an amount: flush right in a column, flush left after its label
    key: bool = True  # a truth field's value: the text check looks for it
    old: str = ""
    right: bool = False
    rect: pymupdf.Rect = field(default_factory=pymupdf.Rect)

    def __post_init__(self) -> None:
        chars = self.line.chars
        while self.start > 0 and chars[self.start - 1].c in GLUED:
            self.start -= 1
            self.new = chars[self.start].c + self.new
        while self.end < len(chars) and chars[self.end].c in GLUED:
            self.new += chars[self.end].c
            self.end += 1
        # A currency printed after a figure moves with it (`496,00 €` grows to the right).
        after = CURRENCY_AFTER.match(self.line.text, self.end)
        if self.figure and after:
            self.new += after.group()
            self.end = after.end()
        self.old = self.line.text[self.start : self.end]
        self.rect = pymupdf.Rect()
        for c in chars[self.start : self.end]:
            self.rect |= c.bbox
        size = float(chars[self.start].span["size"])
        before = [c for c in chars[: self.start] if c.c.strip()]
        near = bool(before) and self.rect.x0 - before[-1].bbox.x1 < size * 0.6
        self.right = self.figure and not near


def lines_of(page: pymupdf.Page, number: int) -> list[Line]:
    """The page's horizontal lines, char by char; a gap between two spans with no space
    printed reads as a space (a table's columns are not one token)."""
    out = []
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            if abs(line["dir"][0] - 1) > 1e-3:
                continue
            chars: list[Char] = []
            for span in line["spans"]:
                info = {k: span[k] for k in ("font", "size", "color", "flags")}
                for ch in span["chars"]:
                    box = pymupdf.Rect(ch["bbox"])
                    if (
                        chars
                        and chars[-1].c != " "
                        and box.x0 - chars[-1].bbox.x1 > span["size"] / 4
                    ):
                        chars.append(Char(" ", pymupdf.Rect(), ch["origin"], info))
                    chars.append(Char(ch["c"], box, ch["origin"], info))
            if chars:
                out.append(Line(number, chars))
    return out


def find(lines: list[Line], pattern: str) -> list[tuple[Line, int, int]]:
    return [(ln, m.start(), m.end()) for ln in lines for m in re.finditer(pattern, ln.text)]


def spaced(text: str) -> str:
    """The text with its no-break and thin spaces as plain spaces (as the text layer reads)."""
    return text.replace("\u00a0", " ").replace("\u202f", " ")
