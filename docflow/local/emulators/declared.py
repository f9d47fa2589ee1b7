"""The declaration an emulator answers by, rebuilt from what the request carries.

A real model or Textract reads any field it is asked for; the emulators answer with docflow's
rules engine, which reads by a declaration (`TypeDecl`). The request says which fields and
what shape (a Converse tool's JSON schema; AnalyzeDocument's query aliases), not their printed
labels: those come from the rules file the stack runs with (`DOCFLOW_RULES_PATH`, else the
shipped one), as the functions' own engines would read them.

A schema gives each field's kind by its value's form: an enum's values, else the pattern of a
kind's normal form (`kinds.VALUE_PATTERNS`); text, party and enum share a pattern, so the rules
file's kind for the name (or the rules engine's built-in one) decides between them. A `rows`
array is a table, its items' properties the columns.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from docflow.extract.declarations.kinds import ENUM, TABLE, TEXT, VALUE_PATTERNS
from docflow.extract.declarations.labels import BUILTIN_KINDS
from docflow.extract.declarations.model import Column, FieldDecl, TypeDecl
from docflow.rules.model import DEFAULT_RULES, load_rules

# A kind by its normal form's pattern; text, party and enum share one (the first wins here).
_BY_PATTERN = {pattern: kind for kind, pattern in reversed(VALUE_PATTERNS.items())}


def rules_path() -> str:
    return os.environ.get("DOCFLOW_RULES_PATH", "").strip() or str(DEFAULT_RULES)


@lru_cache(maxsize=4)
def _declared_in(path: str) -> dict[str, FieldDecl]:
    """Every field the rules file declares, by name (one name, one kind: the loader holds
    that); the first type's declaration of a name gives its labels."""
    out: dict[str, FieldDecl] = {}
    for decl in load_rules(path).fields.types.values():
        for spec in decl.fields:
            out.setdefault(spec.name, spec)
    return out


def rules_fields() -> dict[str, FieldDecl]:
    return _declared_in(rules_path())


def kind_of(name: str) -> str:
    """The rules file's kind for a name, else the built-in one, else text."""
    known = rules_fields().get(name)
    return known.kind if known else BUILTIN_KINDS.get(name, TEXT)


def from_queries(aliases: Sequence[str]) -> TypeDecl:
    """AnalyzeDocument's queries as a declaration: each alias a field, declared as the rules
    file declares that name (its labels with it), else a text field."""
    known = rules_fields()
    fields = []
    for alias in dict.fromkeys(aliases):
        spec = known.get(alias)
        if spec is None or spec.is_table:
            spec = FieldDecl(alias, BUILTIN_KINDS.get(alias, TEXT))
        fields.append(spec)
    return TypeDecl("*", tuple(fields))


def from_schema(schema: Mapping[str, Any]) -> TypeDecl:
    """A Converse tool's input schema (`schema.field_schema`'s shape) as a declaration."""
    known = rules_fields()
    fields: list[FieldDecl] = []
    for name, body in (schema.get("properties") or {}).items():
        props = body.get("properties") or {}
        spec = known.get(name)
        description = str(body.get("description", ""))
        if "rows" in props:
            row = (props["rows"].get("items") or {}).get("properties") or {}
            required = set((props["rows"].get("items") or {}).get("required") or ())
            labels = {c.name: c for c in spec.columns} if spec and spec.is_table else {}
            columns = tuple(
                _column(col, value, col in required, labels.get(col)) for col, value in row.items()
            )
            fields.append(
                FieldDecl(
                    name,
                    TABLE,
                    description,
                    spec.labels if spec else {},
                    columns=columns,
                    checks=spec.checks if spec and spec.is_table else (),
                )
            )
            continue
        value = props.get("value") or {}
        kind = _kind(value, spec.kind if spec else BUILTIN_KINDS.get(name))
        fields.append(
            FieldDecl(
                name,
                kind,
                description,
                spec.labels if spec else {},
                pattern=spec.pattern if spec else None,
                values=tuple(value.get("enum") or ()),
            )
        )
    return TypeDecl("*", tuple(fields))


def _column(name: str, value: Mapping[str, Any], required: bool, known: Column | None) -> Column:
    kind = _kind(value, known.kind if known else None)
    return Column(
        name,
        kind,
        str(value.get("description", "")),
        known.labels if known else {},
        known.pattern if known else None,
        required,
        tuple(value.get("enum") or ()),
    )


def _kind(value: Mapping[str, Any], declared: str | None) -> str:
    """A value schema's kind: an enum by its values; else by its pattern, where a kind the
    rules file (or the built-in labels) names wins among the kinds that share a pattern."""
    if value.get("enum"):
        return ENUM
    pattern = value.get("pattern")
    if declared and declared != ENUM and VALUE_PATTERNS.get(declared) == pattern:
        return declared
    return _BY_PATTERN.get(str(pattern), TEXT)
