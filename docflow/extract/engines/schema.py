"""The JSON schema a model's answer must match, built from a type's declaration.

Each scalar field is `{value, page, confidence}` with the value held to its kind's normal form
(an enum's to its values, a declared pattern's too); a table field is `{rows, page,
confidence}`, each row an object of its columns. Descriptions are the declaration's: they are
what the model is told each field means. A field the model cannot find is left out.
"""

from __future__ import annotations

from typing import TypedDict

from docflow.extract.base import Wanted, declared
from docflow.extract.declarations.kinds import ENUM, VALUE_PATTERNS
from docflow.extract.declarations.model import Column, FieldDecl


class JsonSchema(TypedDict, total=False):
    """The part of JSON Schema (draft 2020-12) docflow's schemas use: these field schemas and
    the enrichment's (`docflow.enrich.schema`)."""

    type: str
    description: str
    properties: dict[str, JsonSchema]
    required: list[str]
    additionalProperties: bool
    items: JsonSchema
    maxItems: int
    enum: list[str]
    pattern: str
    minLength: int
    maxLength: int
    minimum: int
    maximum: int


def _value(spec: FieldDecl | Column) -> JsonSchema:
    out: JsonSchema = {"type": "string", "pattern": VALUE_PATTERNS[spec.kind]}
    if spec.kind == ENUM:
        out = {"type": "string", "enum": list(spec.values)}
    if spec.description:
        out["description"] = spec.description
    return out


def _where() -> dict[str, JsonSchema]:
    return {
        "page": {"type": "integer", "minimum": 1},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    }


def _field(spec: FieldDecl) -> JsonSchema:
    if spec.is_table:
        row: JsonSchema = {
            "type": "object",
            "properties": {c.name: _value(c) for c in spec.columns},
            "required": [c.name for c in spec.columns if c.required],
            "additionalProperties": False,
        }
        body: dict[str, JsonSchema] = {"rows": {"type": "array", "items": row}, **_where()}
        required = ["rows", "page", "confidence"]
    else:
        value = _value(spec)
        value.pop("description", None)
        body = {"value": value, **_where()}
        required = ["value", "page", "confidence"]
    out: JsonSchema = {
        "type": "object",
        "properties": body,
        "required": required,
        "additionalProperties": False,
    }
    if spec.description:
        out["description"] = spec.description
    return out


def field_schema(wanted: Wanted) -> JsonSchema:
    """One object per field the document type declares."""
    return {
        "type": "object",
        "properties": {f.name: _field(f) for f in declared(wanted)},
        "additionalProperties": False,
    }
