"""The page reader interface and its result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from docflow.pdf import OpenPdf


@dataclass(frozen=True)
class PageText:
    page: int
    text: str
    engine: str
    # Mean word confidence, 0-100. A text layer is exact, so it reports 100.
    confidence: float

    @property
    def chars(self) -> int:
        return len(self.text.strip())


class PageReader(Protocol):
    name: str

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        """Read one page (1-based). Raise on failure; throttles are retried by the caller."""
        ...
