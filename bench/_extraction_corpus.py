"""A labelled set of invoices and purchase orders that the project generates itself.

Four languages, several layouts (one field a line, values under their labels, two fields a
line, line-item tables with dotted leaders), the printed date and amount forms of each
language and currency, noise lines (page numbers, bank details, customer numbers, delivery and
order dates that must not be read as the invoice's), text-layer pages and 300-dpi scans with
speckle. Deterministic for a seed. Each document comes with its truth in normal form.
"""

from __future__ import annotations

import io
import os
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import reportlab
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

VERA = os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")
LANGUAGES = ("en", "de", "es", "fr")
LAYOUTS = ("lines", "under", "columns", "table")

MONTHS = {
    "en": [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    "de": [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ],
    "es": [
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ],
    "fr": [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
}
VENDORS = {
    "en": [
        "Northwind Traders Ltd",
        "Blue Harbor Supply Inc",
        "Summit Office LLC",
        "Redwood Parts Co.",
        "Granite Tools Ltd",
    ],
    "de": [
        "Müller Werkzeuge GmbH",
        "Schneider Bürobedarf AG",
        "Becker Logistik KG",
        "Weber Druck GmbH",
        "Hoffmann Elektro GmbH",
    ],
    "es": [
        "Suministros García S.L.",
        "Papelería Núñez S.A.",
        "Distribuciones Iberia S.L.",
        "Ferretería López S.A.",
        "Talleres Ruiz S.L.",
    ],
    "fr": [
        "Dupont Fournitures SARL",
        "Bureautique Lefèvre SAS",
        "Atelier Mercier SA",
        "Équipements Girard SAS",
        "Imprimerie Roux SARL",
    ],
}
CURRENCIES = {
    "en": ["USD", "GBP"],
    "de": ["EUR", "EUR", "CHF"],
    "es": ["EUR"],
    "fr": ["EUR", "EUR", "CHF"],
}
SYMBOLS = {"USD": "$", "GBP": "£", "EUR": "€"}
TAX_RATES = {
    "USD": [Decimal("0.07"), Decimal("0.0825")],
    "GBP": [Decimal("0.20")],
    "EUR": [Decimal("0.19"), Decimal("0.21"), Decimal("0.20")],
    "CHF": [Decimal("0.081")],
}

LABELS: dict[str, dict[str, list[str]]] = {
    "en": {
        "title": ["INVOICE"],
        "po_title": ["PURCHASE ORDER"],
        "invoice_number": ["Invoice number", "Invoice No.", "Invoice #"],
        "invoice_date": ["Invoice date", "Date of issue", "Date"],
        "due_date": ["Due date", "Payment due"],
        "vendor_name": ["Vendor", "Supplier"],
        "po_number": ["PO number", "Purchase order no."],
        "net_amount": ["Subtotal", "Net amount"],
        "tax_amount": ["VAT {rate}%", "Sales tax", "Tax"],
        "total_amount": ["Total due", "Amount due", "Total", "Grand total"],
        "po_total": ["Order total", "Total"],
        "items": ["Description", "Qty", "Unit price", "Amount"],
        "noise": [
            "Bill to: Example Corp, 1 Main Street",
            "Customer number: {n}",
            "Payment terms: net 30 days",
            "Thank you for your business.",
            "Delivery date: {d}",
            "Ship to: Warehouse {n}",
            "Phone: +1 555 {n}",
        ],
    },
    "de": {
        "title": ["RECHNUNG"],
        "po_title": ["BESTELLUNG"],
        "invoice_number": ["Rechnungsnummer", "Rechnungs-Nr.", "Rechnung Nr."],
        "invoice_date": ["Rechnungsdatum", "Datum"],
        "due_date": ["Fällig am", "Zahlbar bis", "Fälligkeitsdatum"],
        "vendor_name": ["Lieferant", "Rechnungssteller"],
        "po_number": ["Bestellnummer", "Bestell-Nr."],
        "net_amount": ["Nettobetrag", "Zwischensumme", "Summe netto"],
        "tax_amount": ["MwSt {rate}%", "USt. {rate}%", "Mehrwertsteuer"],
        "total_amount": ["Gesamtbetrag", "Rechnungsbetrag", "Zu zahlen"],
        "po_total": ["Bestellsumme", "Gesamtbetrag"],
        "items": ["Beschreibung", "Menge", "Einzelpreis", "Betrag"],
        "noise": [
            "Rechnungsadresse: Beispiel AG, Hauptstraße 1",
            "Kundennummer: {n}",
            "Zahlungsbedingungen: 30 Tage netto",
            "Vielen Dank für Ihren Auftrag.",
            "Lieferdatum: {d}",
            "Lieferadresse: Lager {n}",
            "Telefon: +49 30 {n}",
        ],
    },
    "es": {
        "title": ["FACTURA"],
        "po_title": ["ORDEN DE COMPRA"],
        "invoice_number": ["Número de factura", "Factura nº", "N° de factura"],
        "invoice_date": ["Fecha de factura", "Fecha de emisión", "Fecha"],
        "due_date": ["Fecha de vencimiento", "Vencimiento"],
        "vendor_name": ["Proveedor", "Emisor"],
        "po_number": ["Número de pedido", "Orden de compra nº"],
        "net_amount": ["Base imponible", "Subtotal"],
        "tax_amount": ["IVA {rate}%", "IVA", "Cuota IVA"],
        "total_amount": ["Total a pagar", "Importe total", "Total factura"],
        "po_total": ["Total pedido", "Importe total"],
        "items": ["Descripción", "Cantidad", "Precio unitario", "Importe"],
        "noise": [
            "Cliente: Ejemplo S.A., Calle Mayor 1",
            "Número de cliente: {n}",
            "Condiciones de pago: 30 días",
            "Gracias por su confianza.",
            "Fecha de entrega: {d}",
            "Enviar a: Almacén {n}",
            "Teléfono: +34 91 {n}",
        ],
    },
    "fr": {
        "title": ["FACTURE"],
        "po_title": ["BON DE COMMANDE"],
        "invoice_number": ["N° de facture", "Numéro de facture", "Facture n°"],
        "invoice_date": ["Date de facture", "Date d'émission", "Date"],
        "due_date": ["Date d'échéance", "Échéance"],
        "vendor_name": ["Fournisseur", "Vendeur"],
        "po_number": ["N° de commande", "Bon de commande n°"],
        "net_amount": ["Total HT", "Montant HT", "Sous-total"],
        "tax_amount": ["TVA {rate}%", "Montant TVA", "Total TVA"],
        "total_amount": ["Montant TTC", "Total TTC", "Net à payer"],
        "po_total": ["Total commande", "Montant total"],
        "items": ["Description", "Quantité", "Prix unitaire", "Montant"],
        "noise": [
            "Client : Exemple SA, 1 rue de la Paix",
            "Numéro client : {n}",
            "Conditions de paiement : 30 jours",
            "Merci de votre confiance.",
            "Date de livraison : {d}",
            "Adresse de livraison : Dépôt {n}",
            "Téléphone : +33 1 {n}",
        ],
    },
}
ITEMS = {
    "en": ["Paper, A4 box", "Toner cartridge", "Desk lamp", "USB cable", "Stapler"],
    "de": ["Papier A4", "Tonerkartusche", "Schreibtischlampe", "USB-Kabel", "Hefter"],
    "es": ["Papel A4", "Cartucho de tóner", "Lámpara", "Cable USB", "Grapadora"],
    "fr": ["Papier A4", "Cartouche de toner", "Lampe de bureau", "Câble USB", "Agrafeuse"],
}


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
    return Document(ident, language, doc_type, layout, scanned, "\n".join(lines), truth)


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
