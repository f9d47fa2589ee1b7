"""Small pictures on a typed page (docflow/readers/pictures.py, issue 56): one at a payment line
is OCR'd (real tesseract) whatever its size, a logo far from any payment line is not (the
cost stays bounded), and one OCR reads nothing in is reported unread."""

from __future__ import annotations

import io

from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from docflow.pdf import open_pdf
from docflow.readers.pictures import (
    MAX_PAYMENT_PICTURES,
    PictureReader,
    picture_boxes,
    small_boxes,
)
from docflow.readers.tesseract import TesseractReader
from docflow.readers.textlayer import TextLayerReader
from tests.suppliers.printed import (
    blank_picture,
    invoice_with_picture,
    line_picture,
)

PAY_TO = "Bitte überweisen Sie den Betrag auf folgendes Konto:"
IBAN_LINE = "IBAN: GB82 WEST 1234 5698 7654 32"


def reader() -> PictureReader:
    return PictureReader(TesseractReader(), 200)


def test_a_picture_of_the_iban_line_at_the_pay_to_line_is_read() -> None:
    data = invoice_with_picture([PAY_TO], line_picture(IBAN_LINE))
    with open_pdf(data) as pdf:
        layer = TextLayerReader().read(pdf, 1).words
        assert picture_boxes(pdf, 1) == []  # under an inch high: not a large picture
        assert len(small_boxes(pdf, 1)) == 1
        read = reader().read(pdf, 1, layer)
        (box,) = small_boxes(pdf, 1)
    seen = " ".join(w.text for w in read.words)
    assert "GB82" in seen and "WEST" in seen, seen
    assert read.unread == ()
    # Its words sit where the picture is (under the pay-to line), in page units.
    assert all(box[1] - 0.01 <= w.box[1] <= box[3] + 0.01 for w in read.words)
    assert all(box[0] - 0.01 <= w.box[0] <= box[2] + 0.01 for w in read.words)


def test_a_picture_ocr_reads_nothing_in_is_unread() -> None:
    data = invoice_with_picture([PAY_TO, "IBAN:"], blank_picture())
    with open_pdf(data) as pdf:
        layer = TextLayerReader().read(pdf, 1).words
        read = reader().read(pdf, 1, layer)
    assert len(read.unread) == 1 and read.words == ()


def _with_logos(count: int, at_payment: bool) -> bytes:
    """A typed invoice with `count` small pictures: beside the pay-to line, or at the top
    of the page, far from any payment line."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=A4)
    c.setFont("Helvetica", 11)
    c.drawString(56, 700, "Blauwal Hafenlogistik GmbH")
    c.drawString(56, 400, "Gesamtbetrag: 1.190,00 EUR")
    c.drawString(56, 383, PAY_TO)
    picture = ImageReader(line_picture("LOGO"))
    for i in range(count):
        y = 366 if at_payment else 800
        c.drawImage(picture, 56 + 75 * i, y, width=60, height=12)
    c.showPage()
    c.save()
    return out.getvalue()


def test_only_pictures_at_a_payment_line_are_read_and_at_most_a_few() -> None:
    with open_pdf(_with_logos(2, at_payment=False)) as pdf:
        layer = TextLayerReader().read(pdf, 1).words
        assert len(small_boxes(pdf, 1)) == 2
        assert reader().unread(pdf, 1, layer) == []  # letterhead logos: never OCR'd
    with open_pdf(_with_logos(6, at_payment=True)) as pdf:
        layer = TextLayerReader().read(pdf, 1).words
        assert len(reader().unread(pdf, 1, layer)) == MAX_PAYMENT_PICTURES
