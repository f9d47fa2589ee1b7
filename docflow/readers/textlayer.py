"""Born-digital pages: the text layer, free and exact."""

from __future__ import annotations

from docflow.pdf import OpenPdf
from docflow.readers.base import PageText


class TextLayerReader:
    name = "textlayer"

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        text = pdf.text(page)
        return PageText(page, text, self.name, 100.0 if text.strip() else 0.0)
