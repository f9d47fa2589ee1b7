"""The `bedrock` engine: Bedrock Runtime Converse with one forced tool whose input schema is
the document type's declared fields (`schema.field_schema`), so the model answers JSON, not
prose. A table field is answered as `rows` (objects of its columns): kept row by row
(`answer_rows.py`), so one misread cell drops its row, listed as rejected, not the table.

The answer is held to the schema with `jsonschema`: a field that violates it is dropped and
listed as rejected, never raised, and the checks send the document to a person. A model's own
confidence is taken as given but never above 0.95. Tokens in and out are returned for cost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from docflow import aws
from docflow.converse import forced_tool_request, tool_input, usage_of
from docflow.extract.base import Extraction, FoundField, PageInput, Wanted, declared
from docflow.extract.declarations.model import FieldDecl
from docflow.extract.declarations.values import normalize
from docflow.extract.engines.answer_rows import kept_rows
from docflow.extract.engines.schema import JsonSchema, field_schema
from docflow.readers.throttling import ThrottlePolicy

TOOL = "record_fields"
MAX_CHARS = 24_000  # a few pages of text; the step reads only the first pages anyway
MAX_TOKENS = 1024
# A table's rows cost output tokens per cell: room for some dozens of rows of a few columns.
TABLE_TOKENS = 2048
SYSTEM = (
    "You read business documents and record their key fields with the record_fields tool. "
    "Use only what the document says. Leave out a field the document does not state. "
    "Dates as YYYY-MM-DD, amounts with two decimals and a dot, currency as an ISO 4217 code. "
    "confidence is how sure you are, 0 to 1; page is the page the value is printed on."
)


def prompt(pages: Sequence[PageInput]) -> str:
    parts = [f"--- page {p.page} ---\n{p.text}" for p in pages]
    return "Record the fields of this document.\n\n" + "\n".join(parts)[:MAX_CHARS]


class BedrockEngine:
    name = "bedrock"

    def __init__(self, model_id: str, policy: ThrottlePolicy) -> None:
        self.model_id, self.policy = model_id, policy

    def extract(self, pages: Sequence[PageInput], wanted: Wanted) -> Extraction:
        decl = declared(wanted)
        schema = field_schema(decl)
        request = forced_tool_request(
            model_id=self.model_id,
            system=SYSTEM,
            prompt=prompt(pages),
            tool=TOOL,
            description="Record the document's key fields.",
            schema=schema,
            max_tokens=MAX_TOKENS + (TABLE_TOKENS if decl.tables else 0),
        )
        answer = self.policy.call(lambda: aws.client("bedrock-runtime").converse(**request))
        result = Extraction(engine=self.name, usage=usage_of(answer))
        given = tool_input(answer, TOOL)
        if not isinstance(given, dict):
            result.rejected.append({"field": "*", "reason": "the model called no tool"})
            return result
        bad = _schema_violations(schema, given, {t.name for t in decl.tables})
        known_pages = {p.page for p in pages}
        for name, entry in given.items():
            spec = decl.get(name)
            if spec is None:
                continue
            if name in bad:
                result.rejected.append({"field": name, "reason": bad[name]})
                continue
            page = entry["page"] if entry["page"] in known_pages else min(known_pages, default=1)
            confidence = min(float(entry["confidence"]), 0.95)
            if spec.is_table:
                found = _table(spec, entry["rows"], confidence, page, result)
                if found is not None:
                    result.fields[name] = found
                continue
            value, error = normalize(spec.kind, entry["value"], spec.values, spec.pattern)
            if error or value is None:
                result.rejected.append({"field": name, "reason": error or "empty"})
                continue
            result.fields[name] = FoundField(value, confidence, page, raw=entry["value"])
        return result


def _table(
    spec: FieldDecl, rows: Any, confidence: float, page: int, result: Extraction
) -> FoundField | None:
    """The table's rows that normalize; each dropped row is listed as rejected. No row kept:
    no field (the checks then report it missing)."""
    kept, dropped = kept_rows(spec.columns, rows)
    result.rejected.extend({"field": spec.name, "reason": reason} for reason in dropped)
    if not kept:
        return None
    return FoundField(f"{len(kept)} rows", confidence, page, rows=tuple(kept))


def _schema_violations(
    schema: JsonSchema, value: Mapping[str, object], tables: AbstractSet[str] = frozenset()
) -> dict[str, str]:
    """Field name -> what is wrong with it ("*" when the object itself is wrong); `value`: the
    model's answer, any JSON until this holds it to `schema`. Inside a table's rows nothing is
    reported here: each row is held to its columns on its own."""
    from jsonschema import Draft202012Validator  # only the bedrock engine pays its import

    bad: dict[str, str] = {}
    for error in Draft202012Validator(schema).iter_errors(value):
        path = list(error.absolute_path)
        if len(path) >= 3 and path[0] in tables and path[1] == "rows":
            continue
        key = str(path[0]) if path else "*"
        bad.setdefault(key, error.message[:200])
    if "*" in bad:  # e.g. an unknown property: drop only what the message names
        for name in value:
            if f"'{name}'" in bad["*"]:
                bad.setdefault(name, bad["*"])
    return bad
