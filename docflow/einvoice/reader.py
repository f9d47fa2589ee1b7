"""`read`: an e-invoice's XML (or what `detect` found) to its EInvoice record."""

from __future__ import annotations

from lxml import etree

from docflow.einvoice.cii import read_cii
from docflow.einvoice.detect import ROOTS, Detected
from docflow.einvoice.errors import EInvoiceError
from docflow.einvoice.record import EInvoice
from docflow.einvoice.safe_xml import parse
from docflow.einvoice.ubl import read_ubl


def read(xml: bytes | Detected) -> EInvoice:
    root = parse(xml.xml if isinstance(xml, Detected) else xml)
    qname = etree.QName(root)
    syntax = ROOTS.get((qname.namespace or "", qname.localname))
    if syntax == "ubl":
        return read_ubl(root)
    if syntax in ("cii", "zugferd-1"):
        return read_cii(root)
    raise EInvoiceError("not-an-invoice", f"root element {qname.text} is no invoice")
