"""One interface for enrichment engines, and what they take and give back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from docflow.enrich.schema import Enrichment


@dataclass(frozen=True)
class PageText:
    page: int
    text: str


@dataclass(frozen=True)
class EnrichInput:
    """A document as the engines see it: some of its pages' text and what classify found."""

    pages: Sequence[PageText]
    doc_type: str = "unknown"
    # The classifier's detector counts (never the values), and the ones that route to review.
    sensitive: Mapping[str, int] = field(default_factory=dict)
    review_on: tuple[str, ...] = ()
    page_count: int = 0


@dataclass
class EnrichAnswer:
    """An engine's answer: the enrichment when it matched the schema, else the problems."""

    engine: str
    enrichment: Enrichment | None
    problems: list[str] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)  # inputTokens, outputTokens

    @property
    def valid(self) -> bool:
        return self.enrichment is not None and not self.problems


class Enricher(Protocol):
    name: str

    def enrich(self, document: EnrichInput) -> EnrichAnswer:
        """Summary and risk for one document; a schema-invalid answer is returned, not raised."""
        ...
