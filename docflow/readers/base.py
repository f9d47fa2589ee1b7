"""The page reader interface and its result.

A reader returns a page's text and, where its engine has them, the page's words with their
boxes. A box is `(x0, y0, x1, y1)` in page-relative units 0..1 with the origin at the page's
top-left corner (y grows downwards), whatever the engine's own units (PDF points from the
bottom, image pixels, Textract's ratios): so extraction and the review page never need the
page size. A word's confidence is the OCR engine's own, 0..100; a text layer is exact and
says None.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from docflow.pdf import OpenPdf
from docflow.readers.languages import LanguageChoice


@dataclass(frozen=True)
class Word:
    text: str
    box: tuple[float, float, float, float]  # x0, y0, x1, y1; 0..1, top-left origin
    confidence: float | None = None  # 0..100 for OCR; None for a text layer

    def to_row(self) -> list[Any]:
        """The compact form stored in S3: `[text, x0, y0, x1, y1, confidence]`."""
        return [self.text, *(round(v, 4) for v in self.box), self.confidence]

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Word:
        text, x0, y0, x1, y1, conf = row
        return cls(str(text), (float(x0), float(y0), float(x1), float(y1)), conf)


@dataclass(frozen=True)
class PageText:
    page: int
    text: str
    engine: str
    # Mean word confidence, 0-100. A text layer is exact, so it reports 100.
    confidence: float
    # The page's words in reading order; empty where the engine gives no positions.
    words: tuple[Word, ...] = field(default=(), repr=False)
    # Tesseract's: the languages the words were read with and why (readers/languages).
    ocr: LanguageChoice | None = None

    @property
    def chars(self) -> int:
        return len(self.text.strip())


def clamp_box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
    """A box kept inside the page, corners in order."""
    xs = sorted((min(1.0, max(0.0, x0)), min(1.0, max(0.0, x1))))
    ys = sorted((min(1.0, max(0.0, y0)), min(1.0, max(0.0, y1))))
    return (xs[0], ys[0], xs[1], ys[1])


class PageReader(Protocol):
    name: str

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        """Read one page (1-based): its text and, where the engine has them, its words with
        page-relative boxes (0..1, top-left origin) and OCR confidences. Raise on failure;
        throttles are retried by the caller."""
        ...
