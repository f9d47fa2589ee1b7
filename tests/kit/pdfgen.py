"""Real PDFs for samples, tests and benchmarks: text-layer pages, image-only (scanned) pages,
and broken files."""

from __future__ import annotations

import io
import itertools
from typing import cast

from PIL import Image, ImageDraw, ImageFont
from pypdf import PdfWriter
from pypdf.generic import DictionaryObject, NameObject, NumberObject
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas


def _lines(c: canvas.Canvas, text: str, size: int = 12) -> None:
    c.setFont("Helvetica", size)
    y = 720.0
    for line in text.splitlines():
        c.drawString(72, y, line)
        y -= size * 1.5


def page_image(text: str, dpi: int = 150) -> Image.Image:
    """A letter-size white page with black text, as a scanner would produce it."""
    width, height = int(8.5 * dpi), int(11 * dpi)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=int(dpi / 5))
    y = dpi
    for line in text.splitlines():
        draw.text((dpi, y), line, fill=0, font=font)
        y += int(dpi / 3.2)
    return image


def make_pdf(pages: list[str | tuple[str, str]]) -> bytes:
    """Each page is text (a text layer) or ("scan", text) for an image-only page."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    for page in pages:
        if isinstance(page, tuple):
            _, text = page
            c.drawImage(ImageReader(page_image(text)), 0, 0, width=letter[0], height=letter[1])
        else:
            _lines(c, page)
        c.showPage()
    c.save()
    return out.getvalue()


def text_pdf(*pages: str) -> bytes:
    return make_pdf(list(pages))


def scanned_pdf(*pages: str) -> bytes:
    return make_pdf([("scan", p) for p in pages])


def encrypted_pdf() -> bytes:
    writer = PdfWriter(clone_from=io.BytesIO(text_pdf("secret invoice")))
    writer.encrypt("opensesame")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def zero_page_pdf() -> bytes:
    out = io.BytesIO()
    PdfWriter().write(out)
    return out.getvalue()


def truncated_pdf() -> bytes:
    data = text_pdf("invoice number one", "page two")
    return data[: len(data) // 3]


def unloadable_page_pdf() -> bytes:
    """Claims two pages and holds one: PDFium cannot load (so never draw) the second."""
    writer = PdfWriter(clone_from=io.BytesIO(text_pdf("invoice number one")))
    pages = cast("DictionaryObject", writer._root_object["/Pages"])  # the page tree's root
    pages[NameObject("/Count")] = NumberObject(2)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def huge_page_pdf() -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(20000, 20000))
    c.drawString(72, 72, "giant")
    c.showPage()
    c.save()
    return out.getvalue()


# An invoice names its issuer: without one it waits for a person who says who sent it.
INVOICE = """NORTHWIND TRADING LTD
INVOICE INV-20931
Bill to: Example Corp
Amount due: 1,250.00 USD
Payment terms: net 30
Subtotal 1,250.00"""

_NUMBERS = itertools.count(30000)


def fresh_invoice() -> str:
    """INVOICE under a number of its own: the same invoice uploaded twice under two keys is a
    duplicate (it waits at `duplicate`), so a test that wants two plain runs takes two."""
    return INVOICE.replace("INV-20931", f"INV-{next(_NUMBERS)}")


CONTRACT_WITH_CARD = """SERVICES AGREEMENT
This agreement is made between the parties named below.
The parties hereby agree to the terms and conditions.
Payment card on file: 4111 1111 1111 1111
Governing law: Delaware. Signature: ______"""

PURCHASE_ORDER = """PURCHASE ORDER PO-4411
Vendor: Acme Supplies
Ship to: Warehouse 9
Quantity: 40 units"""


# An invoice whose key fields all read cleanly (number, dates, vendor, currency, amounts).
INVOICE_WITH_FIELDS = """ACME SUPPLIES LTD
INVOICE
Invoice number: INV-20931
Invoice date: 2026-03-04
Due date: 2026-04-03
Bill to: Example Corp
Description            Qty   Unit price   Amount
Paper, A4 box          40    25.00        1,000.00
Subtotal: 1,000.00 USD
Tax (10%): 100.00 USD
Total due: 1,100.00 USD
Payment terms: net 30"""

# What INVOICE_WITH_FIELDS prints, each field in its normal form.
INVOICE_WITH_FIELDS_VALUES = {
    "invoice_number": "INV-20931",
    "invoice_date": "2026-03-04",
    "due_date": "2026-04-03",
    "vendor_name": "ACME SUPPLIES LTD",
    "currency": "USD",
    "net_amount": "1000.00",
    "tax_amount": "100.00",
    "total_amount": "1100.00",
}

# The same invoice with its total smudged past reading: the `fields` stage asks a person.
INVOICE_UNREADABLE_TOTAL = INVOICE_WITH_FIELDS.replace("Total due: 1,100.00 USD", "Total due: ####")


# A line of a `columns_pdf` page: (x as a share of the page's width, text), with "r" third to
# align the text's right end at x (amounts); an empty line leaves a blank line.
Placed = tuple[float, str] | tuple[float, str, str]


def columns_pdf(pages: list[list[list[Placed]]], scan: bool = False) -> bytes:
    """Pages of lines whose texts stand at given x positions (a table's columns): a text
    layer, or with `scan` images only, as a scanner gives them."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    width = letter[0]
    for lines in pages:
        if scan:
            image = _columns_image(lines)
            c.drawImage(ImageReader(image), 0, 0, width=letter[0], height=letter[1])
        else:
            c.setFont("Helvetica", 10)
            for row, line in enumerate(lines):
                y = 740.0 - row * 15
                for x, text, *align in line:
                    if align == ["r"]:
                        c.drawRightString(x * width, y, text)
                    else:
                        c.drawString(x * width, y, text)
        c.showPage()
    c.save()
    return out.getvalue()


def _columns_image(lines: list[list[Placed]], dpi: int = 200) -> Image.Image:
    width, height = int(8.5 * dpi), int(11 * dpi)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=int(dpi / 6.5))
    for row, line in enumerate(lines):
        y = int(dpi * 0.7) + row * int(dpi / 4.2)
        for x, text, *align in line:
            left = x * width
            if align == ["r"]:
                left -= draw.textlength(text, font=font)
            draw.text((left, y), text, fill=0, font=font)
    return image
