"""A declared type's `duplicate_key`: the fields whose values make two of its documents one
bill (docs/fields.md "A type's duplicate key"; the duplicate check claims the key,
docs/payment-controls.md "Duplicates").

    [fields.types.receipt]
    duplicate_key = ["merchant", "date", "total"]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from docflow.extract.declarations.toml_lines import Lines


class Declared(Protocol):
    """What the check needs of a declared field (`declarations.FieldDecl`)."""

    @property
    def name(self) -> str: ...

    @property
    def is_table(self) -> bool: ...


def parse_duplicate_key(
    raw: Any, fields: Sequence[Declared], at: str, where: Lines
) -> tuple[str, ...]:
    """`duplicate_key = [...]` (None: `()`): two or more of the type's own scalar `fields`,
    each once, or a `DeclarationError` naming its line. One value alone (a date, a total)
    would call every document that shares it a duplicate."""
    if raw is None:
        return ()
    near = "duplicate_key"
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        raise where.error(at, "duplicate_key: a list of the type's field names", near)
    if len(raw) < 2:
        raise where.error(at, "duplicate_key names at least two fields", near)
    if len(set(raw)) != len(raw):
        raise where.error(at, "duplicate_key names each field once", near)
    tables = {f.name: f.is_table for f in fields}
    for name in raw:
        if name not in tables:
            raise where.error(at, f"duplicate_key names {name!r}: no field of this type", near)
        if tables[name]:
            raise where.error(at, f"duplicate_key names {name!r}: a table, not a value", near)
    return tuple(raw)
