"""`auto`: the text layer where a page has usable text, OCR where it does not."""

from __future__ import annotations

from docflow.pdf import OpenPdf
from docflow.readers.base import PageReader, PageText
from docflow.readers.textlayer import TextLayerReader


class AutoReader:
    name = "auto"

    def __init__(self, ocr: PageReader, min_chars: int) -> None:
        self.text_layer = TextLayerReader()
        self.ocr = ocr
        self.min_chars = min_chars

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        layer = self.text_layer.read(pdf, page)
        if layer.chars >= self.min_chars:
            return layer
        return self.ocr.read(pdf, page)
