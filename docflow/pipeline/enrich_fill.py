"""Declared fields the enrich pass fills where the field engine found no label: a contract's
parties and its dates.

A contract seldom prints `Parties:` or `Effective date:` as a label; the enrich pass names the
document's parties and its dated events (`keyDates`, each with the words before it). A declared
`party` field the engine did not find takes the parties (when the type has exactly one such
field: with two, which party is which is a person's call), and a declared `date` field takes the
key date whose words match the field's labels or name (`effective_date` <- "effective as of").

A filled value was not read by a label, so it is never trusted alone: it carries `from:
"enrich"` and a low confidence, and a `low-confidence` check names it, which routes the document
to the `fields` stage. Pure, on checkpointed values (the extract step's fields, the enrich
step's answer), so a replay fills the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from docflow.document import Check, Field
from docflow.extract.declarations.kinds import DATE, PARTY
from docflow.extract.declarations.labels import READ_AS
from docflow.extract.declarations.model import FieldDecl, TypeDecl
from docflow.extract.declarations.parse import fold
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime

FILLED = 0.5
# The enrich step's answer keeps this many parties and dates for the fill (`enrich_steps.shown`).
KEPT = 8
_WORD = re.compile(r"[a-z]{3,}")
_COMMON = {"date", "the", "and", "day", "dated", "this", "from", "with"}


def _words(text: str) -> set[str]:
    return set(_WORD.findall(fold(text).lower())) - _COMMON


def _date_for(decl: FieldDecl, key_dates: Sequence[Mapping[str, Any]]) -> str | None:
    wanted = _words(decl.name.replace("_", " "))
    for label in decl.all_labels():
        wanted |= _words(label)
    matches = {str(d.get("date")) for d in key_dates if wanted & _words(str(d.get("label", "")))}
    return matches.pop() if len(matches) == 1 else None


def fill_from_enrichment(
    fields: Mapping[str, Field], decl: TypeDecl | None, found: Mapping[str, Any] | None
) -> tuple[dict[str, Field], list[Check]]:
    """(the fields with the filled ones added, a check per filled field)."""
    out = dict(fields)
    if decl is None or not found:
        return out, []
    missing = [f for f in decl.fields if f.name not in fields and f.name not in READ_AS]
    filled: dict[str, str] = {}
    parties = [str(p) for p in found.get("parties") or [] if str(p).strip()]
    party_fields = [f for f in missing if f.kind == PARTY]
    if parties and len([f for f in decl.fields if f.kind == PARTY]) == 1 and party_fields:
        filled[party_fields[0].name] = "; ".join(parties)[:200]
    for spec in missing:
        if spec.kind == DATE and (date := _date_for(spec, found.get("keyDates") or [])):
            filled[spec.name] = date
    checks: list[Check] = []
    for name, value in filled.items():
        out[name] = Field(value, FILLED, 0, None, more={"from": "enrich"})
        message = f"{name} filled from the enrich pass ({value!r}): no label on the page names it"
        checks.append(Check("low-confidence", message, field=name))
    return out, checks


def fields_stage(stages: Sequence[RoutedStage]) -> list[RoutedStage]:
    """The rules file's `fields` stage, unless the route has it already."""
    rules = runtime().rules
    name = rules.fields.stage
    if not name or name not in rules.stages or any(s.stage.name == name for s in stages):
        return []
    return [RoutedStage.of(rules.stages[name], "fields")]
