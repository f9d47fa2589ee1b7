"""Purchase orders, goods receipts, invoices and credit notes that cite them, as the tests and
the matching benchmark (bench/matching.py) make them: text-layer PDFs whose `lines` table the
rules engine reads (each line's item number, words, quantity, unit price and amount in
columns), and UBL e-invoices (the CEN Peppol BIS 3 example, EUPL-1.2, its line repeated) whose
lines are exact and whose totals add up.

Every document of one order prints the same supplier and order number; a variant changes one
thing (a price, a quantity, a line, the supplier) and nothing else.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

from lxml import etree

from docflow.rules.model import DEFAULT_RULES
from tests.kit.pdfgen import Placed, columns_pdf

CENT = Decimal("0.01")
TAX_RATE = Decimal("0.20")
_UBL = Path(__file__).resolve().parents[1] / "data" / "einvoice" / "cen-peppol-bis3-invoice.xml"
_NS = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}


@dataclass(frozen=True)
class Item:
    item_id: str
    description: str
    quantity: Decimal
    unit_price: Decimal

    @property
    def amount(self) -> Decimal:
        return (self.quantity * self.unit_price).quantize(CENT)

    def priced(self, unit_price: Decimal) -> Item:
        return replace(self, unit_price=unit_price)

    def counted(self, quantity: Decimal) -> Item:
        return replace(self, quantity=quantity)


@dataclass(frozen=True)
class Totals:
    net: Decimal
    tax: Decimal
    total: Decimal

    @classmethod
    def of(cls, items: Sequence[Item]) -> Totals:
        net = sum((i.amount for i in items), Decimal(0))
        tax = (net * TAX_RATE).quantize(CENT)
        return cls(net, tax, net + tax)


def _money(value: Decimal) -> str:
    return f"{value:,.2f}"


def _qty(value: Decimal) -> str:
    return f"{value.normalize():f}"


_PRICED_HEADER: list[Placed] = [
    (0.08, "Item no"),
    (0.22, "Description"),
    (0.58, "Qty"),
    (0.68, "Unit price"),
    (0.84, "Amount"),
]


def _priced_line(item: Item) -> list[Placed]:
    return [
        (0.08, item.item_id),
        (0.22, item.description),
        (0.61, _qty(item.quantity), "r"),
        (0.76, _money(item.unit_price), "r"),
        (0.92, _money(item.amount), "r"),
    ]


def _totals(totals: Totals, currency: str, total_label: str) -> list[list[Placed]]:
    return [
        [],
        [(0.08, "Subtotal"), (0.92, f"{_money(totals.net)} {currency}", "r")],
        [(0.08, f"Tax ({int(TAX_RATE * 100)}%)"), (0.92, f"{_money(totals.tax)} {currency}", "r")],
        [(0.08, total_label), (0.92, f"{_money(totals.total)} {currency}", "r")],
    ]


def order_pdf(number: str, supplier: str, items: Sequence[Item], currency: str = "EUR") -> bytes:
    """A purchase order to `supplier`: its number, its lines, their totals."""
    head: list[list[Placed]] = [
        [(0.08, "PURCHASE ORDER")],
        [(0.08, f"PO number: {number}")],
        [(0.08, "Order date: 2026-03-01")],
        [(0.08, f"Vendor: {supplier}")],
        [(0.08, "Ship to: Example Corp, Warehouse 9")],
        [],
        _PRICED_HEADER,
    ]
    body = [_priced_line(i) for i in items]
    return columns_pdf([[*head, *body, *_totals(Totals.of(items), currency, "Order total")]])


def invoice_pdf(
    number: str,
    po_number: str,
    supplier: str,
    items: Sequence[Item],
    currency: str = "EUR",
    credit: bool = False,
) -> bytes:
    """An invoice (or, `credit`, a credit note) of `supplier` citing `po_number`."""
    title, label = (
        ("CREDIT NOTE", "Credit note number") if credit else ("INVOICE", "Invoice number")
    )
    head: list[list[Placed]] = [
        [(0.08, supplier)],
        [(0.08, title)],
        [(0.08, f"{label}: {number}")],
        [(0.08, "Invoice date: 2026-03-04")],
        [(0.08, "Due date: 2026-04-03")],
        [(0.08, f"PO number: {po_number}")],
        [(0.08, "Bill to: Example Corp")],
        [],
        _PRICED_HEADER,
    ]
    body = [_priced_line(i) for i in items]
    terms: list[Placed] = [(0.08, "Payment terms: net 30")]
    tail = [*_totals(Totals.of(items), currency, "Total due"), terms]
    return columns_pdf([[*head, *body, *tail]])


def delivery_note_pdf(number: str, po_number: str, supplier: str, items: Sequence[Item]) -> bytes:
    """A goods receipt: what `supplier` delivered against `po_number`, without prices."""
    head: list[list[Placed]] = [
        [(0.08, supplier)],
        [(0.08, "DELIVERY NOTE")],
        [(0.08, f"Delivery note no: {number}")],
        [(0.08, f"PO number: {po_number}")],
        [(0.08, "Delivery date: 2026-03-03")],
        [(0.08, "Ship to: Example Corp, Warehouse 9")],
        [],
        [(0.08, "Item no"), (0.22, "Description"), (0.7, "Qty delivered")],
    ]
    body: list[list[Placed]] = [
        [(0.08, i.item_id), (0.22, i.description), (0.78, _qty(i.quantity), "r")] for i in items
    ]
    # The signature well below the lines: under them, a line with an item number's column
    # filled would read as one more row (the rules engine ends a table at a blank band).
    signed: list[list[Placed]] = [[], [], [], [], [(0.08, "Received by: J. Smith")]]
    return columns_pdf([[*head, *body, *signed]])


def ubl_invoice(
    number: str, po_number: str, supplier: str, items: Sequence[Item], currency: str = "EUR"
) -> bytes:
    """A Peppol BIS 3 UBL invoice of `supplier` citing `po_number` (BT-13), one line per item
    with its item number (BT-155); tax at TAX_RATE (category S), as on the PDFs."""
    root = etree.fromstring(_UBL.read_bytes())
    root.find("cbc:ID", _NS).text = number
    root.find("cbc:DocumentCurrencyCode", _NS).text = currency
    root.find("cac:OrderReference/cbc:ID", _NS).text = po_number
    seller = root.find("cac:AccountingSupplierParty/cac:Party", _NS)
    seller.find("cac:PartyName/cbc:Name", _NS).text = supplier
    seller.find("cac:PartyLegalEntity/cbc:RegistrationName", _NS).text = supplier
    template = root.find("cac:InvoiceLine", _NS)
    root.remove(template)
    for n, item in enumerate(items, 1):
        line = copy.deepcopy(template)
        line.find("cbc:ID", _NS).text = str(n)
        line.find("cbc:InvoicedQuantity", _NS).text = _qty(item.quantity)
        line.find("cbc:LineExtensionAmount", _NS).text = str(item.amount)
        line.find("cac:Price/cbc:PriceAmount", _NS).text = str(item.unit_price)
        line.find("cac:Item/cbc:Name", _NS).text = item.description
        line.find("cac:Item/cbc:Description", _NS).text = item.description
        line.find("cac:Item/cac:SellersItemIdentification/cbc:ID", _NS).text = item.item_id
        line.find("cac:Item/cac:ClassifiedTaxCategory/cbc:Percent", _NS).text = _percent()
        root.append(line)
    totals = Totals.of(items)
    net, tax = totals.net, totals.tax
    root.find("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cbc:Percent", _NS).text = _percent()
    for path, value in (
        ("cac:TaxTotal/cbc:TaxAmount", tax),
        ("cac:TaxTotal/cac:TaxSubtotal/cbc:TaxableAmount", net),
        ("cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount", tax),
        ("cac:LegalMonetaryTotal/cbc:LineExtensionAmount", net),
        ("cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount", net),
        ("cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount", net + tax),
        ("cac:LegalMonetaryTotal/cbc:PayableAmount", net + tax),
    ):
        root.find(path, _NS).text = str(value)
    for node in root.iter():
        if node.get("currencyID"):
            node.set("currencyID", currency)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))


def _percent() -> str:
    return _qty(TAX_RATE * 100)


# A small order, three lines, as the tests use it.
PAPER = (
    Item("A-100", "Paper A4, box of 5 reams", Decimal(40), Decimal("25.00")),
    Item("B-220", "Toner cartridge black", Decimal(6), Decimal("89.90")),
    Item("C-310", "Stapler heavy duty", Decimal(10), Decimal("14.50")),
)


def matching_on(text: str) -> str:
    """The shipped rules text with its `[matching]` table uncommented (shipped off)."""
    start = text.index("# [matching]\n")
    end = text.index("\n\n", start)
    block = "\n".join(line.removeprefix("# ") for line in text[start:end].split("\n"))
    return text[:start] + block + text[end:]


def matching_rules_text(timeout_s: int = 120, three_way: bool = False) -> str:
    """The shipped rules with matching's wait and three-way as given, and purchase orders
    finalized without their procurement and finance stages: a test's (or the benchmark's)
    orders arrive by themselves, as they would once a buyer approved them."""
    text = matching_on(DEFAULT_RULES.read_text(encoding="utf-8"))
    for old, new in (
        ('stages = ["procurement", "finance"]', "stages = []"),
        ("timeout_seconds = 604800 ", f"timeout_seconds = {timeout_s} "),
        ("three_way = false", f"three_way = {'true' if three_way else 'false'}"),
    ):
        assert old in text, old
        text = text.replace(old, new, 1)
    return text
