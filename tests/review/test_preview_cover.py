"""A preview covers what the reading found (#31.1): a scanned page whose text layer is only a
stamp (`p. 1`) is read by OCR; its preview is covered with that reading's word boxes, so the
picture shows no more than the text (which masks the card to its last four digits)."""

from __future__ import annotations

import base64
import io
import re

from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from docflow.readers.tesseract import TesseractReader
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.review_desk import call, open_desk

CARD = "4111 1111 1111 1111"
SCANNED = """PAYMENT AUTHORISATION
The cardholder authorises the payment below.
Card number: 4111 1111 1111 1111
Amount: 250.00 USD"""


def stamped_scan(text: str, stamp: str = "p. 1") -> bytes:
    """One scanned page (the text only in pixels) with a short text layer: a page stamp."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    c.drawImage(ImageReader(pdfs.page_image(text)), 0, 0, width=letter[0], height=letter[1])
    c.setFont("Helvetica", 9)
    c.drawString(letter[0] - 60, 30, stamp)
    c.showPage()
    c.save()
    return out.getvalue()


def test_a_card_only_in_pixels_is_covered_in_the_preview(stack: Stack) -> None:
    with open_desk(stack) as desk:
        doc = stack.upload("in/scan.pdf", stamped_scan(SCANNED))
        desk.start(doc)
        token = desk.links(doc)[0]
        page = call("GET", f"/review/{token}")["body"]
        assert "•••• 1111" in page and CARD not in page  # the text masks it
        preview = call("GET", f"/review/{token}/pages/1")
        assert preview["statusCode"] == 200
    seen, _ = TesseractReader().ocr_png(base64.b64decode(preview["body"]))
    assert "PAYMENT AUTHORISATION" in seen  # the rest of the page is readable
    groups = re.findall(r"\d{4}", seen)
    # No four-digit group of the card but the last shows (the text shows the last four too).
    assert groups.count("4111") == 0, seen
    assert groups.count("1111") <= 1, seen
