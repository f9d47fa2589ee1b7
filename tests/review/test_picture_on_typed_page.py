"""A card in a picture on a typed page (issue 43, item 5): the page is read from its text layer,
which says nothing of the picture, so the picture is OCR'd (real tesseract) for the detectors
(the document goes to privacy) and for the preview, which covers the card."""

from __future__ import annotations

import base64
import io
import json
import re

from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from docflow import aws
from docflow.pdf import open_pdf
from docflow.readers.pictures import allowance, picture_boxes
from docflow.readers.tesseract import TesseractReader
from docflow.settings import load_settings
from docflow.storage import page_words_key
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.review_desk import Desk, call, open_desk

CARD = "4111 1111 1111 1111"
TYPED = pdfs.INVOICE  # an invoice's text layer, with no card in it
# Where the picture sits on the page, in points from the bottom-left: 4 x 1.5 inches.
PICTURE = (72.0, 200.0, 288.0, 108.0)


def card_picture() -> Image.Image:
    """A photographed card slip: the number in pixels only."""
    image = Image.new("L", (800, 300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=40)
    draw.text((30, 60), "Paid by card", fill=0, font=font)
    draw.text((30, 160), f"Card: {CARD}", fill=0, font=font)
    return image


def dark(image: Image.Image, at: tuple[int, int]) -> bool:
    value = image.getpixel(at)
    assert isinstance(value, int)
    return value < 40


def typed_page_with_picture(picture: Image.Image | None, full_layer: bool = False) -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    c.setFont("Helvetica", 12)
    y = 720.0
    for line in TYPED.splitlines():
        c.drawString(72, y, line)
        y -= 18
    if picture is not None:
        x, y0, w, h = PICTURE
        c.drawImage(ImageReader(picture), x, y0, width=w, height=h)
        if full_layer:  # an OCR'd scan's own layer: the picture's words, invisible, on top
            c.setFont("Helvetica", 10)
            for i, word in enumerate(["Paid", "by", "card", "and", "five", "more", "words"]):
                c.drawString(x + 10 + 30 * i, y0 + h / 2, word)
    c.showPage()
    c.save()
    return out.getvalue()


def test_only_pictures_that_can_hold_text_count_and_the_allowance_is_shared() -> None:
    with open_pdf(typed_page_with_picture(card_picture())) as pdf:
        (box,) = picture_boxes(pdf, 1)
    x0, y0, x1, y1 = box
    assert abs(x0 - 72 / 612) < 0.01 and abs(x1 - 360 / 612) < 0.01
    assert abs(y1 - (1 - 200 / 792)) < 0.01 and abs(y0 - (1 - 308 / 792)) < 0.01
    small = card_picture().resize((80, 30))
    with open_pdf(pdfs.text_pdf(TYPED)) as pdf:
        assert picture_boxes(pdf, 1) == []
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    c.drawString(72, 720, TYPED)
    c.drawImage(ImageReader(small), 72, 200, width=60, height=22)  # a logo: under an inch
    c.showPage()
    c.save()
    with open_pdf(out.getvalue()) as pdf:
        assert picture_boxes(pdf, 1) == []
    # A document's batches share about 20 picture pages, each batch at least one.
    assert allowance(5, 1, 1) == 4 and allowance(5000, 1, 50) == 1 and allowance(10, 1, 10) == 20


def test_a_card_in_a_picture_on_a_typed_page_waits_at_privacy_covered(stack: Stack) -> None:
    with open_desk(stack, Desk) as desk:
        doc = stack.upload("in/typed-with-picture.pdf", typed_page_with_picture(card_picture()))
        desk.start(doc)
        token = desk.links(doc)[0]
        page = call("GET", f"/review/{token}")["body"]
        preview = call("GET", f"/review/{token}/pages/1")
    assert "privacy (stage 1 of 1)" in page
    assert CARD not in page
    stored = aws.client("s3").get_object(
        Bucket=load_settings().artifact_bucket, Key=page_words_key(doc, 1)
    )
    words = json.loads(stored["Body"].read())
    seen = " ".join(str(row[0]) for row in words["imageWords"])
    assert "4111" in seen  # OCR read the picture; the text layer never had it
    assert "4111" not in " ".join(str(row[0]) for row in words["words"])

    assert preview["statusCode"] == 200
    png = base64.b64decode(preview["body"])
    text, _ = TesseractReader().ocr_png(png)
    assert "INVOICE" in text  # the typed page is readable
    assert re.findall(r"\d{4}", text).count("4111") == 0, text
    # Every group of the card OCR read in the picture is black in the preview, at its centre.
    image = Image.open(io.BytesIO(png)).convert("L")
    groups = [r for r in words["imageWords"] if re.fullmatch(r"\d{4}", str(r[0]))]
    assert len(groups) == 4, groups
    for _, x0, y0, x1, y1, _ in groups:
        centre = (int((x0 + x1) / 2 * image.size[0]), int((y0 + y1) / 2 * image.size[1]))
        assert dark(image, centre), (centre, groups)
    # And only there: the typed text above the picture is not covered.
    assert not dark(image, (int(image.size[0] * 0.9), int(image.size[1] * 0.9)))
