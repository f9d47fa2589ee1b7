"""A labelled set of invoices and purchase orders that the project generates itself.

Seven languages, several layouts (one field a line, values under their labels, two fields a
line, line-item tables with dotted leaders), the printed date and amount forms of each
language and currency, noise lines (page numbers, bank details, customer numbers, delivery and
order dates that must not be read as the invoice's), text-layer pages and 300-dpi scans with
speckle. Deterministic for a seed. Each document comes with its truth in normal form. The
tables it draws from (labels, vendors, month names, rates) are in `data.toml`.
"""

from __future__ import annotations

import io
import os
import random
import tomllib
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import reportlab
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

# The same seed makes the same bytes (no creation time or random file id in the PDF), so
# `--reads` finds a generated document's page reads again.
reportlab.rl_config.invariant = 1
VERA = os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")
DATA: dict[str, Any] = tomllib.loads(
    Path(__file__).with_name("data.toml").read_text(encoding="utf-8")
)
LANGUAGES: tuple[str, ...] = tuple(DATA["languages"])
LAYOUTS: tuple[str, ...] = tuple(DATA["layouts"])
MONTHS = {lang: DATA[lang]["months"] for lang in LANGUAGES}
VENDORS = {lang: DATA[lang]["vendors"] for lang in LANGUAGES}
CURRENCIES = {lang: DATA[lang]["currencies"] for lang in LANGUAGES}
LABELS: dict[str, dict[str, list[str]]] = {lang: DATA[lang]["labels"] for lang in LANGUAGES}
ITEMS = {lang: DATA[lang]["items"] for lang in LANGUAGES}
SYMBOLS: dict[str, str] = DATA["symbols"]
TAX_RATES = {code: [Decimal(r) for r in rates] for code, rates in DATA["tax_rates"].items()}


@dataclass
class Document:
    ident: str
    language: str
    doc_type: str
    layout: str
    scanned: bool
    text: str
    truth: dict[str, str] = field(default_factory=dict)
    pdf: bytes = b""
    issuer: str = ""  # who issued it: the unit the calibration is cross-validated by
    # The real set's hand-written tables ({"lines": [{column: value}]}) and whether its line
    # amounts add up to its net; None where the truth has none (`_extraction/lines.py`).
    tables: dict[str, list[dict[str, str]]] | None = None
    lines_add_up: bool | None = None


def fmt_amount(value: Decimal, currency: str, language: str, rnd: random.Random) -> str:
    whole, cents = f"{value:.2f}".split(".")
    groups = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    if currency == "CHF":
        number = "'".join(groups) + "." + cents
    elif language == "en":
        number = ",".join(groups) + "." + cents
    elif language == "fr":
        number = " ".join(groups) + "," + cents
    else:
        number = ".".join(groups) + "," + cents
    symbol = SYMBOLS.get(currency)
    style = rnd.choice(["code-after", "code-before", "symbol-before", "symbol-after"])
    if symbol and style == "symbol-before":
        return f"{symbol}{number}" if currency != "EUR" else f"€ {number}"
    if symbol and style == "symbol-after":
        return f"{number} {symbol}"
    if style == "code-before":
        return f"{currency} {number}"
    return f"{number} {currency}"


def fmt_date(day: date, language: str, currency: str, rnd: random.Random) -> str:
    month = MONTHS[language][day.month - 1]
    if language == "en":
        if currency == "USD":
            forms = [
                day.isoformat(),
                f"{month} {day.day}, {day.year}",
                f"{day.month:02d}/{day.day:02d}/{day.year}",
            ]
        else:
            forms = [
                day.isoformat(),
                f"{day.day} {month} {day.year}",
                f"{day.day:02d}/{day.month:02d}/{day.year}",
            ]
    elif language == "de":
        forms = [f"{day.day:02d}.{day.month:02d}.{day.year}", f"{day.day}. {month} {day.year}"]
    elif language == "es":
        forms = [f"{day.day:02d}/{day.month:02d}/{day.year}", f"{day.day} de {month} de {day.year}"]
    elif language == "nl":
        forms = [f"{day.day:02d}-{day.month:02d}-{day.year}", f"{day.day} {month} {day.year}"]
    elif language == "pt":
        forms = [f"{day.day:02d}/{day.month:02d}/{day.year}", f"{day.day} de {month} de {day.year}"]
    else:
        forms = [f"{day.day:02d}/{day.month:02d}/{day.year}", f"{day.day} {month} {day.year}"]
    return rnd.choice(forms)


def make_document(index: int, language: str, scanned: bool, rnd: random.Random) -> Document:
    labels = LABELS[language]
    doc_type = "purchase-order" if rnd.random() < 0.2 else "invoice"
    layout = LAYOUTS[index % len(LAYOUTS)]
    currency = rnd.choice(CURRENCIES[language])
    rate = rnd.choice(TAX_RATES[currency])
    vendor = rnd.choice(VENDORS[language])
    issued = date(2026, 1, 1) + timedelta(days=rnd.randrange(0, 330))
    due = issued + timedelta(days=rnd.choice([14, 30, 45, 60]))
    items = [
        (rnd.choice(ITEMS[language]), rnd.randint(1, 40), Decimal(rnd.randint(150, 90000)) / 100)
        for _ in range(rnd.randint(1, 5) if layout == "table" else 0)
    ]
    net = (
        sum((q * p for _, q, p in items), Decimal(0))
        if items
        else Decimal(rnd.randint(2000, 2_500_000)) / 100
    )
    tax = (net * rate).quantize(Decimal("0.01"))
    total = net + tax
    money = lambda v: fmt_amount(v, currency, language, rnd)  # noqa: E731
    pick = lambda key: rnd.choice(labels[key])  # noqa: E731
    truth = {
        "vendor_name": vendor,
        "currency": currency,
        "net_amount": f"{net:.2f}",
        "tax_amount": f"{tax:.2f}",
        "total_amount": f"{total:.2f}",
    }
    head: list[tuple[str, str]] = []
    if doc_type == "invoice":
        number = rnd.choice(["INV-{n}", "{y}-{n}", "RE{n}", "F-{y}/{n}", "A{n}"]).format(
            n=rnd.randint(100, 99999), y=issued.year
        )
        truth.update(
            invoice_number=number, invoice_date=issued.isoformat(), due_date=due.isoformat()
        )
        head += [
            (pick("invoice_number"), number),
            (pick("invoice_date"), fmt_date(issued, language, currency, rnd)),
            (pick("due_date"), fmt_date(due, language, currency, rnd)),
        ]
        if rnd.random() < 0.3:
            po = f"PO-{rnd.randint(1000, 99999)}"
            truth["po_number"] = po
            head.append((pick("po_number"), po))
    else:
        po = rnd.choice(["PO-{n}", "{n}", "B-{n}"]).format(n=rnd.randint(1000, 999999))
        truth["po_number"] = po
        head.append((pick("po_number"), po))
    head.insert(rnd.randrange(0, len(head) + 1), (pick("vendor_name"), vendor))
    rate_text = f"{rate * 100:.1f}".rstrip("0").rstrip(".")
    total_label = pick("total_amount" if doc_type == "invoice" else "po_total")
    totals = [
        (pick("net_amount"), money(net)),
        (pick("tax_amount").format(rate=rate_text), money(tax)),
        (total_label, money(total)),
    ]
    noise = [
        n.format(
            n=rnd.randint(1000, 9999),
            d=fmt_date(issued + timedelta(days=3), language, currency, rnd),
        )
        for n in rnd.sample(labels["noise"], 3)
    ]
    lines: list[str] = []
    if rnd.random() < 0.5:
        lines.append(vendor)
    lines.append(rnd.choice(labels["title" if doc_type == "invoice" else "po_title"]))
    if layout == "columns":
        pairs = [f"{a}: {b}" for a, b in head]
        lines += ["      ".join(pairs[i : i + 2]) for i in range(0, len(pairs), 2)]
    elif layout == "under":
        for label, value in head:
            lines += [label, f"    {value}"]
    else:
        lines += [f"{label}: {value}" for label, value in head]
    lines.append(noise[0])
    if items:
        lines.append("   ".join(labels["items"]))
        for name, qty, price in items:
            lines.append(f"{name}   {qty}   {price:.2f}   {(qty * price):.2f}")
    lines.append(noise[1])
    for label, value in totals:
        if layout == "table":
            lines.append(f"{label} {'.' * max(3, 28 - len(label))} {value}")
        elif layout == "under":
            lines += [label, f"    {value}"]
        else:
            lines.append(f"{label}: {value}")
    lines.append(noise[2])
    ident = f"{language}-{'scan' if scanned else 'text'}-{index:03d}"
    text = "\n".join(lines)
    return Document(ident, language, doc_type, layout, scanned, text, truth, issuer=vendor)


def _scan(text: str, rnd: random.Random, dpi: int = 300) -> Image.Image:
    """A 300-dpi page as a scanner makes it: a little speckle, sometimes a little blur."""
    width, height = int(8.5 * dpi), int(11 * dpi)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    # Bitstream Vera ships with reportlab and has every glyph the four languages print.
    font = ImageFont.truetype(VERA, int(dpi / 7))
    y = dpi
    for line in text.splitlines():
        draw.text((dpi, y), line, fill=0, font=font)
        y += int(dpi / 4.5)
    for _ in range(width * height // 2000):
        draw.point((rnd.randrange(width), rnd.randrange(height)), fill=rnd.choice((0, 160)))
    if rnd.random() < 0.3:
        image = image.filter(ImageFilter.GaussianBlur(0.6))
    return image


def render(doc: Document, rnd: random.Random) -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    if doc.scanned:
        c.drawImage(ImageReader(_scan(doc.text, rnd)), 0, 0, width=letter[0], height=letter[1])
    else:
        c.setFont("Helvetica", 10)
        y = 740
        for line in doc.text.splitlines():
            c.drawString(54, y, line)
            y -= 15
    c.showPage()
    c.save()
    return out.getvalue()


def corpus(per_cell: int, seed: int = 14) -> list[Document]:
    """`per_cell` documents for each language and each of text-layer / scanned."""
    rnd = random.Random(seed)  # test data, not crypto
    docs = []
    for language in LANGUAGES:
        for scanned in (False, True):
            for index in range(per_cell):
                doc = make_document(index, language, scanned, rnd)
                doc.pdf = render(doc, rnd)
                docs.append(doc)
    return docs


def describe(docs: list[Document]) -> dict[str, Any]:
    return {
        "documents": len(docs),
        "purchase_orders": sum(d.doc_type == "purchase-order" for d in docs),
        "with_line_items": sum(d.layout == "table" for d in docs),
    }
