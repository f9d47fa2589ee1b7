"""The one way this package parses XML: capped, without DTD, entities or network.

An e-invoice syntax (UBL 2.1, CII, ZUGFeRD 1.0) never needs a DTD, so any DOCTYPE is refused
outright: that closes XXE (an entity naming a file or URL) and entity bombs (billion laughs)
without relying on a parser's expansion limits."""

from __future__ import annotations

from lxml import etree

from docflow.einvoice.errors import EInvoiceError

# Real invoices with hundreds of lines stay far under 1 MB: the cap is for what is not one.
MAX_XML_BYTES = 5 * 1024 * 1024


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
        dtd_validation=False,
        remove_comments=False,
    )


def parse(data: bytes, cap: int | None = MAX_XML_BYTES) -> etree._Element:
    """The root element of `data`, or an EInvoiceError naming why not. `cap=None` only for
    what this process produced itself (Saxon's report on an invoice already under the cap)."""
    if cap is not None and len(data) > cap:
        raise EInvoiceError("xml-too-large", f"{len(data)} bytes, over the {cap} bytes cap")
    try:
        tree = etree.ElementTree(etree.fromstring(data, _parser()))
    except etree.XMLSyntaxError as err:
        # lxml refuses an undeclared or unexpanded entity as a syntax error: say what it was.
        if b"<!ENTITY" in data or b"<!DOCTYPE" in data:
            raise EInvoiceError("xml-unsafe", "a DTD or entity declaration") from err
        raise EInvoiceError("xml-malformed", str(err)) from err
    docinfo = tree.docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        raise EInvoiceError("xml-unsafe", "a DTD or entity declaration (DOCTYPE)")
    root = tree.getroot()
    if any(isinstance(node, etree._Entity) for node in root.iter()):
        raise EInvoiceError("xml-unsafe", "an entity reference")
    return root
