"""Blank pages: a page with no ink is not read by OCR, and says it is blank.

A scan of an empty sheet costs tesseract seconds (Textract a billed call) to find nothing, and
its confidence of 0 then drags the document's OCR confidence down, so that a document with a
few blank pages went to triage for "low OCR confidence". The page is rendered small and its
dark pixels counted: fewer than a character's worth of ink is blank. The bar is deliberately
low (a page with one short word is not blank), so a speckled scan still goes to OCR as before.
"""

from __future__ import annotations

from docflow.pdf import OpenPdf
from docflow.readers.base import PageReader, PageText

BLANK = "blank"  # the engine name a blank page reports (pages by engine, cost, `docflow show`)
# 100 dpi: a letter-size page is 850 x 1100 pixels, a 10 pt character about 15 dark pixels.
INK_DPI = 100
# Darker than mid-grey counts as ink; a page with at most this many such pixels is blank.
INK_LEVEL = 128
MAX_BLANK_INK_PIXELS = 20


def ink_pixels(pdf: OpenPdf, page: int, dpi: int = INK_DPI) -> int:
    """Pixels darker than INK_LEVEL on the page rendered in grayscale at `dpi`."""
    histogram = pdf.render_gray(page, dpi).convert("L").histogram()
    return sum(histogram[:INK_LEVEL])


def is_blank(pdf: OpenPdf, page: int) -> bool:
    return ink_pixels(pdf, page) <= MAX_BLANK_INK_PIXELS


class BlankPageSkipper:
    """An OCR reader that is not called for a page without ink."""

    def __init__(self, ocr: PageReader) -> None:
        self.ocr = ocr
        self.name = ocr.name

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        if is_blank(pdf, page):
            # Exact, as a text layer is: there is nothing on the page to misread.
            return PageText(page, "", BLANK, 100.0)
        return self.ocr.read(pdf, page)
