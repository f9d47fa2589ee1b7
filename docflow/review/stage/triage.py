"""A reviewer's pick of a document's type at the `triage` stage, checked the same way on the
review page, in the callback API (pages and machine callbacks) and where the orchestrator reads
the decision back, so an unchecked type can never route or finalize a document.

The stage's `choices` (the rules file's type names when the document was classified) travel
in the review link's summary as `typeChoices`; a pick is one of them, or `unclassifiable`
("none of these"), which archives the document.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

UNCLASSIFIABLE = "unclassifiable"
NONE_OF_THESE = "None of these: archive it as unclassifiable"
CHOICES_KEY = "typeChoices"


def choices_of(summary: Mapping[str, Any] | None) -> list[str]:
    """The types a triage link offers (empty for any other stage's link)."""
    raw = (summary or {}).get(CHOICES_KEY) or []
    return [str(c) for c in raw] if isinstance(raw, list) else []


def type_problem(value: Any, choices: Collection[str], allow_none: bool = True) -> str:
    """What is wrong with a picked type, or "" when it is one of `choices` (or, with
    `allow_none`, `unclassifiable`). The message is written for the reviewer."""
    if not isinstance(value, str) or not value.strip():
        return "Choose the document's type"
    if value in choices or (allow_none and value == UNCLASSIFIABLE):
        return ""
    return "Choose one of the document types listed"
