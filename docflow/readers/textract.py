"""Scanned pages in AWS: Amazon Textract DetectDocumentText on the rendered page."""

from __future__ import annotations

from docflow import aws
from docflow.pdf import OpenPdf
from docflow.readers.base import PageText


class TextractReader:
    name = "textract"

    def __init__(self, dpi: int = 200) -> None:
        self.dpi = dpi

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        png = pdf.render_png(page, self.dpi)
        answer = aws.client("textract").detect_document_text(Document={"Bytes": png})
        blocks = answer.get("Blocks", [])
        lines = [b.get("Text", "") for b in blocks if b.get("BlockType") == "LINE"]
        words = [float(b["Confidence"]) for b in blocks if b.get("BlockType") == "WORD"]
        confidence = round(sum(words) / len(words), 2) if words else 0.0
        return PageText(page, "\n".join(lines), self.name, confidence)
