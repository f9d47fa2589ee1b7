"""Invoices of any length, as a page and as EN 16931 data, for the tests and the benchmark that
hold a document's size to never failing it (bench/readmodel_size.py).

`long_invoice_pdf(n)` prints n lines under a header the rules engine reads as the `lines`
table, the header again on each page; `every_check=True` makes it trip everything a page can:
lines that do not add up, a total that is not net plus tax, a card number, an account that is
not the issuer's, long payment terms, unlimited liability. `long_invoice_ubl(n)` writes a
Peppol BIS 3 UBL invoice of n lines (the CEN example `cen-peppol-bis3-invoice.xml`, EUPL-1.2,
its one line repeated) whose totals add up; `broken=True` breaks a rule on every line (an
amount with three decimals: UBL-DT-01) and the grand total (BR-CO-15).
"""

from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path

from lxml import etree

from tests.kit.pdfgen import Placed, columns_pdf

EINVOICES = Path(__file__).resolve().parents[1] / "data" / "einvoice"
_UBL = EINVOICES / "cen-peppol-bis3-invoice.xml"
_NS = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}
LINES_PER_PAGE = 36
# An account in no supplier's name (the IBAN standard's own example, valid check digits).
OTHER_IBAN = "GB82 WEST 1234 5698 7654 32"
PAYEE_IBAN = "DK5000400440116243"


def _price(i: int) -> Decimal:
    return Decimal(10 + i % 90) + Decimal(i % 100) / 100


def _line(i: int) -> list[Placed]:
    price = _price(i)
    return [
        (0.1, f"Item {i:04d} spare part, boxed"),
        (0.55, "2", "r"),
        (0.7, f"{price:,.2f}", "r"),
        (0.88, f"{2 * price:,.2f}", "r"),
    ]


HEADER: list[Placed] = [(0.1, "Description"), (0.5, "Qty"), (0.62, "Unit price"), (0.82, "Amount")]


def long_invoice_pdf(lines: int, every_check: bool = False, number: str = "INV-7001") -> bytes:
    """A text-layer invoice of `lines` lines, LINES_PER_PAGE a page."""
    net = sum((2 * _price(i) for i in range(lines)), Decimal(0))
    printed_net = net + (Decimal("100.00") if every_check else 0)  # the lines fall short
    tax = (printed_net / 10).quantize(Decimal("0.01"))
    total = printed_net + tax + (Decimal("5.00") if every_check else 0)  # not net + tax
    # The totals and the notes first: fields are read from the first pages only.
    top: list[list[Placed]] = [
        [(0.1, "GLOBEX HARDWARE GMBH")],
        [(0.1, "INVOICE")],
        [(0.1, f"Invoice number: {number}")],
        [(0.1, "Invoice date: 2026-03-04")],
        [(0.1, "Due date: 2026-04-03")],
        [(0.1, "Subtotal"), (0.88, f"{printed_net:,.2f} EUR", "r")],
        [(0.1, "Tax (10%)"), (0.88, f"{tax:,.2f} EUR", "r")],
        [(0.1, "Total due"), (0.88, f"{total:,.2f} EUR", "r")],
    ]
    if every_check:
        top += [
            [(0.1, "Payment terms: net 90 days")],
            [(0.1, f"Please pay to IBAN {OTHER_IBAN}")],
            [(0.1, "Card on file: 4111 1111 1111 1111")],
            [(0.1, "The supplier accepts unlimited liability for the goods.")],
        ]
    top.append([])
    pages: list[list[list[Placed]]] = []
    for first in range(0, max(lines, 1), LINES_PER_PAGE):
        page = [*top] if not pages else []
        page += [HEADER, *(_line(i) for i in range(first, min(first + LINES_PER_PAGE, lines)))]
        pages.append(page)
    pages[-1] += [[], [(0.1, "Thank you for your business")]]
    return columns_pdf(pages)


def long_invoice_ubl(lines: int, broken: bool = False, number: str = "GEN-1") -> bytes:
    """A UBL invoice of `lines` lines whose totals add up (unless `broken`)."""
    root = etree.fromstring(_UBL.read_bytes())
    root.find("cbc:ID", _NS).text = number
    account = root.find("cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID", _NS)
    account.text = PAYEE_IBAN
    template = root.find("cac:InvoiceLine", _NS)
    root.remove(template)
    net = Decimal(0)
    for i in range(1, lines + 1):
        line = copy.deepcopy(template)
        price = _price(i)
        net += price
        line.find("cbc:ID", _NS).text = str(i)
        amount = f"{price}{'1' if broken else ''}"  # three decimals: UBL-DT-01 on the line
        line.find("cbc:LineExtensionAmount", _NS).text = amount
        line.find("cac:Price/cbc:PriceAmount", _NS).text = str(price)
        line.find("cac:Item/cbc:Name", _NS).text = f"Item {i:04d} spare part, boxed"
        line.find("cac:Item/cbc:Description", _NS).text = f"Spare part number {i}"
        root.append(line)
    tax = (net / 4).quantize(Decimal("0.01"))
    total = net + tax + (Decimal("10.00") if broken else 0)  # BR-CO-15
    for path, value in (
        ("cac:TaxTotal/cbc:TaxAmount", tax),
        ("cac:TaxTotal/cac:TaxSubtotal/cbc:TaxableAmount", net),
        ("cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount", tax),
        ("cac:LegalMonetaryTotal/cbc:LineExtensionAmount", net),
        ("cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount", net),
        ("cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount", total),
        ("cac:LegalMonetaryTotal/cbc:PayableAmount", total),
    ):
        root.find(path, _NS).text = str(value)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
