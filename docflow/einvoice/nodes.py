"""Reading values out of a parsed invoice by element local names.

UBL, CII and ZUGFeRD 1.0 name the same things in different namespaces (CII D16B against
ZUGFeRD 1.0's D12), so paths here are local names joined by `/`: one reader serves every
version of a syntax, and no namespace map can drift from the document's."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from functools import cache

from lxml import etree


@cache
def _xpath(path: str) -> etree.XPath:
    steps = []
    for step in path.split("/"):
        name, _, pred = step.partition("[")
        test = f"*[local-name()='{name}']"
        steps.append(test + (f"[{pred}" if pred else ""))
    return etree.XPath("./" + "/".join(steps))


def all_of(node: etree._Element | None, path: str) -> list[etree._Element]:
    if node is None:
        return []
    return list(_xpath(path)(node))


def first(node: etree._Element | None, path: str) -> etree._Element | None:
    found = all_of(node, path)
    return found[0] if found else None


def text(node: etree._Element | None, path: str | None = None) -> str | None:
    """The stripped text at `path` (the node itself without one), None when absent or empty."""
    target = node if path is None else first(node, path)
    if target is None or target.text is None:
        return None
    value = " ".join(target.text.split())
    return value or None


def first_text(nodes: list[etree._Element], path: str) -> str | None:
    """The first of `nodes` that has text at `path` (a payee's BIC among payment means)."""
    return next((found for node in nodes if (found := text(node, path))), None)


def amount(node: etree._Element | None, path: str | None = None) -> str | None:
    """A decimal as the document wrote it (`1300`, `1300.00`), normalized only of blanks and a
    leading `+`, so Decimal(value) is exact and nothing is rounded."""
    raw = text(node, path)
    if raw is None:
        return None
    try:
        return str(Decimal(raw.replace(" ", "").lstrip("+")))
    except InvalidOperation:
        return raw


def date(node: etree._Element | None, path: str) -> str | None:
    """An ISO date from UBL's `YYYY-MM-DD` or CII's format 102 `YYYYMMDD`."""
    raw = text(node, path)
    if raw is None:
        return None
    digits = raw.replace("-", "")
    if len(digits) == 8 and digits.isdigit():
        return f"{digits[:4]}-{digits[4:6]}-{digits[6:]}"
    return raw
