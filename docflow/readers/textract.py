"""Scanned pages in AWS: Amazon Textract DetectDocumentText on the rendered page.

Textract's WORD blocks carry `Geometry.BoundingBox` as ratios of the page from its top-left
corner (Left, Top, Width, Height), which is already the readers' page-relative box.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docflow import aws
from docflow.pdf import OpenPdf
from docflow.readers.base import PageText, Word, clamp_box

if TYPE_CHECKING:
    from mypy_boto3_textract.type_defs import BlockTypeDef


class TextractReader:
    name = "textract"

    def __init__(self, dpi: int = 200) -> None:
        self.dpi = dpi

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        png = pdf.render_png(page, self.dpi)
        answer = aws.client("textract").detect_document_text(Document={"Bytes": png})
        blocks = answer.get("Blocks", [])
        lines = [b.get("Text", "") for b in blocks if b.get("BlockType") == "LINE"]
        word_blocks = [b for b in blocks if b.get("BlockType") == "WORD"]
        scores = [float(b["Confidence"]) for b in word_blocks]
        confidence = round(sum(scores) / len(scores), 2) if scores else 0.0
        words = tuple(w for b in word_blocks if (w := _word(b)))
        return PageText(page, "\n".join(lines), self.name, confidence, words)


def _word(block: BlockTypeDef) -> Word | None:
    box = (block.get("Geometry") or {}).get("BoundingBox")
    text = str(block.get("Text", "")).strip()
    if not text or not isinstance(box, dict):
        return None
    left, top = float(box.get("Left", 0)), float(box.get("Top", 0))
    right, bottom = left + float(box.get("Width", 0)), top + float(box.get("Height", 0))
    return Word(text, clamp_box(left, top, right, bottom), float(block.get("Confidence", 0)))
