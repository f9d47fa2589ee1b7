"""Page-level classification behind one interface: each page of a packet gets a type and a
"starts a document" score, 0..1, with the reasons (codes, never values) that made it.

Two engines: `rules` (docflow's own signals, `rules_engine.py`) and `bedrock` (a model in AWS,
`bedrock_engine.py`; the local Converse emulator stands in for it, as for extraction).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypedDict

from docflow.readers.base import Word


@dataclass(frozen=True)
class PacketPage:
    """What an engine reads of one page: its text and words (as the page batch stored them),
    its size in points, and whether PDFium could load it at all."""

    page: int
    text: str
    words: tuple[Word, ...] = field(default=(), repr=False)
    size: tuple[float, float] = (0.0, 0.0)
    readable: bool = True


class PageCallJson(TypedDict):
    """A page call as the packet's `pages.json` and the plan's checkpoint keep it."""

    page: int
    docType: str
    start: float
    reasons: list[str]


@dataclass(frozen=True)
class PageCall:
    """An engine's call on one page: its type ("" when none fits), how sure it is that the page
    starts a document (page 1 always does), and why, as reason codes (`title`,
    `counter-restart`, `same-number`, ...)."""

    page: int
    doc_type: str
    start: float
    reasons: tuple[str, ...] = ()

    def to_json(self) -> PageCallJson:
        return {
            "page": self.page,
            "docType": self.doc_type,
            "start": round(self.start, 4),
            "reasons": list(self.reasons),
        }

    @classmethod
    def from_json(cls, raw: PageCallJson) -> PageCall:
        return cls(
            int(raw["page"]),
            str(raw.get("docType", "")),
            float(raw["start"]),
            tuple(str(r) for r in raw.get("reasons", [])),
        )


@dataclass(frozen=True)
class EngineAnswer:
    calls: tuple[PageCall, ...]
    usage: dict[str, int] = field(default_factory=dict)  # a model's tokens


class PageEngine(Protocol):
    name: str

    def classify(self, pages: Sequence[PacketPage]) -> EngineAnswer:
        """One call per page, in page order; page 1 scores 1.0."""
        ...
