"""Reviewers' corrections: validated and put in normal form before they can decide anything.

Pure, so the review page (before it sends a decision) and the orchestrator (reading the
decision back, defensively) run the same rules. A typed text (an id, a text, a party, an
address, and a table's cells of those kinds) holding a character that renders as nothing is
refused (`docflow.names.format_chars`): a right-to-left override before `HbmG lawualB` shows
a registered supplier's name, a zero-width space makes `INV-42` another number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from docflow.extract.declarations.kinds import ADDRESS, ID, PARTY, TEXT
from docflow.extract.declarations.labels import BUILTIN_KINDS
from docflow.extract.declarations.model import FieldDecl, TypeDecl
from docflow.extract.declarations.values import MASK, normalize, normalize_rows
from docflow.names import describe, format_chars

__all__ = ["MASK", "describe_corrections", "normalize", "validate_corrections"]

MAX_CORRECTIONS = 20
# The kinds whose value is the text a person typed, kept as typed.
TYPED_TEXT = (ID, TEXT, PARTY, ADDRESS)


# A correction: a scalar field's value in normal form, or a table's rows.
Correction = str | list[dict[str, str]]


def validate_corrections(
    fields: Mapping[str, Any], corrections: Mapping[str, Any], decl: TypeDecl | None = None
) -> tuple[dict[str, Correction], dict[str, str]]:
    """(normalized values, errors), both keyed by field name.

    `fields` is the document's current `{name: {value, confidence, page}}`; a correction equal
    to the current value is no correction and is left out. Any field the type declares (`decl`;
    without one, the fields the rules engine knows) may be corrected, including one the engine
    did not find; a table field's correction is its rows, each cell checked by its column.
    """
    normalized: dict[str, Correction] = {}
    errors: dict[str, str] = {}
    if not isinstance(corrections, Mapping):
        return {}, {"corrections": "must be an object of field names to values"}
    if len(corrections) > MAX_CORRECTIONS:
        return {}, {"corrections": f"at most {MAX_CORRECTIONS} corrections"}
    for key, raw in corrections.items():
        name = str(key)
        declared = decl.get(name) if decl is not None else None
        kind = declared.kind if declared is not None else None
        if decl is None:
            kind = BUILTIN_KINDS.get(name)
        if kind is None:
            errors[name[:64]] = "not a field this document has"
            continue
        value, error = _corrected(kind, declared, raw, fields.get(name, {}))
        if error is not None:
            errors[name] = error
        elif value is not None:
            normalized[name] = value
    return normalized, errors


def _corrected(
    kind: str, declared: FieldDecl | None, raw: Any, current: Any
) -> tuple[Correction | None, str | None]:
    """One field's correction in normal form (None: no change), or why it is refused."""
    current = current if isinstance(current, Mapping) else {}
    if declared is not None and declared.is_table:
        rows, error = normalize_rows(declared.columns, raw)
        error = error or _hidden_in_rows(declared, raw)
        return (rows if rows != current.get("rows") and not error else None), error
    if not isinstance(raw, str):
        return None, "must be text"
    if kind in TYPED_TEXT and (hidden := hidden_in(raw)):
        return None, hidden
    if current.get("masked") and raw.strip() == current.get("value"):
        return None, None  # a masked field sent back untouched: no correction, the mask no value
    values = declared.values if declared is not None else ()
    pattern = declared.pattern if declared is not None else None
    value, error = normalize(kind, raw, values, pattern)
    return (value if value != current.get("value") else None), error


def hidden_in(typed: str) -> str:
    """The message for a typed text holding a character that renders as nothing ("" when it
    holds none)."""
    found = format_chars(typed)
    if not found:
        return ""
    return (
        f"remove the invisible character {describe(found[0])}: it makes the value read "
        "otherwise than it is"
    )


def _hidden_in_rows(declared: FieldDecl, rows: Any) -> str | None:
    """The first typed-text cell of a table's rows (already shaped: `normalize_rows` passed)
    that holds an invisible character, as `row N, column: message`."""
    texts = [c.name for c in declared.columns if c.kind in TYPED_TEXT]
    for number, row in enumerate(rows, 1):
        for name in texts:
            cell = row.get(name)
            if isinstance(cell, str) and (hidden := hidden_in(cell)):
                return f"row {number}, {name}: {hidden}"
    return None


class CorrectionSaid(TypedDict, total=False):
    """A correction as the history keeps it: the new value (a table's: how many rows, and
    `rows`), and what it replaced (`original`: the value read, or the rows a table had)."""

    value: str
    rows: list[dict[str, str]]
    original: Any  # as the field held it: a value, rows, or None


def describe_corrections(
    fields: Mapping[str, Any], corrections: Mapping[str, Correction] | None
) -> dict[str, CorrectionSaid]:
    """For the history: each corrected field's new value and the value it replaced (a table:
    its rows, and the rows it had)."""
    said: dict[str, CorrectionSaid] = {}
    for name, value in sorted((corrections or {}).items()):
        old = fields.get(name) or {}
        if isinstance(value, list):
            said[name] = {"value": f"{len(value)} rows", "rows": value, "original": old.get("rows")}
        else:
            said[name] = {"value": value, "original": old.get("value")}
    return said
