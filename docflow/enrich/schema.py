"""The enrichment's JSON schema: what every engine answers and what S3 keeps.

    summary  title, abstract (at most 600 characters), parties, keyDates [{label, date}]
    risk     level (low | medium | high), reasons [{code, message, page}]

The same schema is the forced tool's input schema on-demand and the shape a batch answer's
prompted JSON must have; `validate_enrichment` holds every answer to it, whoever wrote it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, TypedDict

from docflow.document.shown import KeyDate
from docflow.extract.engines.schema import JsonSchema

ABSTRACT_MAX = 600


class Summary(TypedDict):
    title: str
    abstract: str
    parties: list[str]
    keyDates: list[KeyDate]


class RiskReason(TypedDict):
    code: str  # kebab-case
    message: str
    page: int


class Risk(TypedDict):
    level: str  # one of RISK_LEVELS
    reasons: list[RiskReason]


class Enrichment(TypedDict):
    """An answer that `validate_enrichment` passed: the shape SCHEMA describes."""

    summary: Summary
    risk: Risk


RISK_LEVELS = ("low", "medium", "high")

SCHEMA: JsonSchema = {
    "type": "object",
    "additionalProperties": False,
    "required": ["summary", "risk"],
    "properties": {
        "summary": {
            "type": "object",
            "additionalProperties": False,
            "required": ["title", "abstract", "parties", "keyDates"],
            "properties": {
                "title": {"type": "string", "minLength": 1, "maxLength": 200},
                "abstract": {"type": "string", "maxLength": ABSTRACT_MAX},
                "parties": {
                    "type": "array",
                    "maxItems": 20,
                    "items": {"type": "string", "minLength": 1, "maxLength": 200},
                },
                "keyDates": {
                    "type": "array",
                    "maxItems": 20,
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["label", "date"],
                        "properties": {
                            "label": {"type": "string", "minLength": 1, "maxLength": 100},
                            "date": {
                                "type": "string",
                                "pattern": r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$",
                            },
                        },
                    },
                },
            },
        },
        "risk": {
            "type": "object",
            "additionalProperties": False,
            "required": ["level", "reasons"],
            "properties": {
                "level": {"enum": list(RISK_LEVELS)},
                "reasons": {
                    "type": "array",
                    "maxItems": 20,
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["code", "message", "page"],
                        "properties": {
                            "code": {
                                "type": "string",
                                "pattern": r"^[a-z][a-z0-9-]{0,39}$",
                            },
                            "message": {"type": "string", "minLength": 1, "maxLength": 300},
                            "page": {"type": "integer", "minimum": 1},
                        },
                    },
                },
            },
        },
    },
}


@lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(SCHEMA)
    return Draft202012Validator(SCHEMA)


def validate_enrichment(obj: Any) -> list[str]:
    """Every way `obj` breaks the schema, as short messages with their path ([] = valid)."""
    problems = []
    for error in sorted(_validator().iter_errors(obj), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        problems.append(f"{where}: {error.message[:200]}")
    return problems
