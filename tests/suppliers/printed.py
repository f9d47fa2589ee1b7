"""Invoices of a registered supplier (Blauwal, tests/suppliers/papers.py: its VAT id, its name,
its registered IBAN in the footer) asking to be paid on an account printed otherwise: as a
text layer, as a scan of the same page, or with the payment line as a small picture on the
typed page. And the step bodies that read one as a run does (split, read, classify,
extract) against moto, for the tests that look at the extract step's answer alone."""

from __future__ import annotations

import io
import logging
from typing import cast

import pypdfium2 as pdfium
from aws_durable_execution_sdk_python import StepContext
from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from docflow.extract.base import PageInput
from docflow.pdf import open_pdf
from docflow.pipeline.classify import classify_document
from docflow.pipeline.extract import extract_fields
from docflow.pipeline.read_batch import read_page_batch
from docflow.pipeline.results import BatchSummary, Extracted
from docflow.pipeline.split import split_document
from docflow.readers.textlayer import TextLayerReader
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT
from tests.support.aws import Stack

# Accounts nobody registered (each passes its own check).
ATTACKER_IBAN = "GB82WEST12345698765432"
SORT_CODE, UK_ACCOUNT = "60-16-13", "31926819"
ROUTING, US_ACCOUNT = "021000021", "4567890123"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

NAME = "Blauwal Hafenlogistik GmbH"
HEAD = [NAME, "Kaiweg 12, 20457 Hamburg", f"USt-IdNr.: {BLAUWAL_VAT}", "", "RECHNUNG"]
BODY = [
    "Rechnungsnummer: RE-2026-0077",
    "Rechnungsdatum: 14.03.2026",
    "Rechnungsempfänger: Nordlicht Handel AG, Ostweg 3, 10115 Berlin",
    "",
    "Lagerung März                      1.000,00 EUR",
    "Nettobetrag: 1.000,00 EUR",
    "MwSt. 19%: 190,00 EUR",
    "Gesamtbetrag: 1.190,00 EUR",
    "",
]
FOOTER = f"{NAME} - Commerzbank - IBAN {BLAUWAL_IBAN} - BIC COBADEFFXXX"

# The payment lines of each printed form (the attacker's account on each).
FORMS: dict[str, list[str]] = {
    "dashes": ["Bitte überweisen Sie den Betrag auf IBAN GB82-WEST-1234-5698-7654-32"],
    "dots": ["Bitte überweisen Sie den Betrag auf IBAN GB82.WEST.1234.5698.7654.32"],
    "slashes": ["Bitte überweisen Sie den Betrag auf IBAN GB82/WEST/1234/5698/7654/32"],
    "grouping": ["Bitte überweisen Sie den Betrag auf IBAN GB82 WEST 123456 98765432"],
    "two lines": [
        "Bitte überweisen Sie den Betrag auf IBAN GB82 WEST 1234",
        "5698 7654 32 (Bankverbindung geändert)",
    ],
    "sort code": [
        "Please pay by bank transfer to:",
        f"Sort code: {SORT_CODE}     Account number: {UK_ACCOUNT}",
    ],
    "routing": [
        "Please pay by wire transfer to:",
        f"Routing number (ABA): {ROUTING}     Account number: {US_ACCOUNT}",
    ],
}


def _canvas_page(lines: list[str], footer: str = FOOTER) -> tuple[io.BytesIO, canvas.Canvas]:
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=A4)
    c.setFont("Helvetica", 11)
    y = 780.0
    for line in lines:
        c.drawString(56, y, line)
        y -= 17
    c.setFont("Helvetica", 9)
    c.drawString(56, 40, footer)
    return out, c


def invoice(payment: list[str], footer: str = FOOTER) -> bytes:
    """The invoice as a text layer, `payment` under its totals."""
    out, c = _canvas_page([*HEAD, *BODY, *payment], footer)
    c.showPage()
    c.save()
    return out.getvalue()


# Where a payment line may be printed (outside the customer's block, whose accounts are the
# customer's): under the issuer's letterhead, among the totals, under them, in the footer.
POSITIONS = ("letterhead", "totals", "after totals", "footer")


def invoice_at(position: str, payment: list[str]) -> bytes:
    """The invoice with `payment` printed at `position` (POSITIONS)."""
    if position == "footer":
        out, c = _canvas_page([*HEAD, *BODY], "")
        c.setFont("Helvetica", 9)
        for i, line in enumerate([*payment, FOOTER]):
            c.drawString(56, 40 + 12 * (len(payment) - i), line)
        c.showPage()
        c.save()
        return out.getvalue()
    if position == "letterhead":
        lines = [*HEAD[:3], *payment, *HEAD[3:], *BODY]
    elif position == "totals":
        lines = [*HEAD, *BODY[:5], *payment, *BODY[5:]]
    else:
        lines = [*HEAD, *BODY, *payment]
    out, c = _canvas_page(lines)
    c.showPage()
    c.save()
    return out.getvalue()


def page_of(data: bytes) -> PageInput:
    """The first page as the extract step gets it from a text layer (its words)."""
    with open_pdf(data) as pdf:
        read = TextLayerReader().read(pdf, 1)
    return PageInput(1, read.text, read.engine, read.confidence, words=read.words)


def scan_of(data: bytes, dpi: int = 300) -> bytes:
    """An image-only PDF of the first page of `data`, as a scanner would give it back."""
    pdf = pdfium.PdfDocument(data)
    image = pdf[0].render(scale=dpi / 72, grayscale=True).to_pil()
    pdf.close()
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=A4)
    c.drawImage(ImageReader(image), 0, 0, width=A4[0], height=A4[1])
    c.showPage()
    c.save()
    return out.getvalue()


def line_picture(text: str, height_px: int = 60) -> Image.Image:
    """A line of text as a picture (a screenshot of the IBAN line): pixels only."""
    font = ImageFont.truetype(FONT, int(height_px * 0.6))
    width = int(font.getlength(text)) + height_px
    image = Image.new("L", (width, height_px), 255)
    ImageDraw.Draw(image).text((height_px // 2, height_px // 5), text, fill=0, font=font)
    return image


def blank_picture(width_px: int = 600, height_px: int = 60) -> Image.Image:
    """A picture with no text in it: a wavy stroke (a redaction, a doodle)."""
    image = Image.new("L", (width_px, height_px), 255)
    draw = ImageDraw.Draw(image)
    points = [(x, height_px // 2 + (6 if (x // 20) % 2 else -6)) for x in range(10, width_px, 10)]
    draw.line(points, fill=90, width=2)
    return image


def invoice_with_picture(
    over: list[str], picture: Image.Image, width_pt: float = 300.0, footer: str = FOOTER
) -> bytes:
    """The typed invoice with `over` (text) under its totals and `picture` right under
    them, `width_pt` wide (under an inch high: a small picture)."""
    lines = [*HEAD, *BODY, *over]
    out, c = _canvas_page(lines, footer)
    height_pt = width_pt * picture.size[1] / picture.size[0]
    y = 780.0 - 17 * len(lines) - height_pt + 10
    c.drawImage(ImageReader(picture), 56, y, width=width_pt, height=height_pt)
    c.showPage()
    c.save()
    return out.getvalue()


class Step:
    """The step's context on its first attempt (a logger that keeps nothing)."""

    attempt = 1
    logger = logging.getLogger("test")


def extract(stack: Stack, data: bytes, key: str = "in/invoice.pdf") -> tuple[str, Extracted]:
    """Split, read, classify and extract one PDF through the step bodies, as a run does;
    (its type, the extract step's answer)."""
    step = cast("StepContext", Step())
    doc = stack.upload(key, data)
    split = split_document(doc)(step)
    batches = [read_page_batch(doc, i, a, b)(step) for i, (a, b) in enumerate(split.plan)]
    found = classify_document(doc, [BatchSummary.from_json(b) for b in batches])(step)
    return found.doc_type, extract_fields(doc, found.doc_type, split.plan)(step)
