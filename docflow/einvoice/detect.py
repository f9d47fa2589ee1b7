"""Is this file an e-invoice? By content, never by name: a PDF with an EN 16931 XML attached
(Factur-X, ZUGFeRD 1.0/2.x, XRechnung in a PDF) or an XML whose root is a UBL 2.1 Invoice or
CreditNote, a CII CrossIndustryInvoice or a ZUGFeRD 1.0 CrossIndustryDocument."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Literal

from facturx import facturx as fx
from lxml import etree
from pypdf import PdfReader
from pypdf.errors import PyPdfError

from docflow.einvoice.errors import EInvoiceError
from docflow.einvoice.nodes import text
from docflow.einvoice.safe_xml import MAX_XML_BYTES, parse

UBL_INVOICE = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
UBL_CREDIT_NOTE = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
CII = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
ZUGFERD_1 = "urn:ferd:CrossIndustryDocument:invoice:1p0"
ROOTS = {
    (UBL_INVOICE, "Invoice"): "ubl",
    (UBL_CREDIT_NOTE, "CreditNote"): "ubl",
    (CII, "CrossIndustryInvoice"): "cii",
    (ZUGFERD_1, "CrossIndustryDocument"): "zugferd-1",
}
# The names the standards give the invoice attachment (Factur-X, ZUGFeRD 2.x and 1.0,
# XRechnung in a PDF), matched without case.
INVOICE_ATTACHMENTS = {
    name.lower()
    for name in (fx.FACTURX_FILENAME, fx.ZUGFERD_FILENAME, "zugferd-invoice.xml", "xrechnung.xml")
}

Syntax = Literal["ubl", "cii", "zugferd-1"]


@dataclass(frozen=True)
class Detected:
    """An e-invoice found: where (`xml` alone or attached to a `pdf`), its syntax, what it
    claims to be (`flavor`: factur-x, zugferd-1, zugferd-2, xrechnung-cii, xrechnung-ubl,
    peppol-bis-3, ubl, cii; `level`: the Factur-X/ZUGFeRD profile) and the XML's bytes."""

    container: Literal["xml", "pdf"]
    syntax: Syntax
    flavor: str
    level: str | None
    customization: str | None
    attachment: str | None
    xml: bytes


def detect(data: bytes) -> Detected | None:
    """The e-invoice in `data`; None for a file that is neither XML nor a PDF carrying an
    invoice XML (an ordinary PDF goes the pages' way). Raises EInvoiceError with a reason
    for an XML or an attachment that is refused."""
    if b"%PDF-" in data[:1024]:  # readers accept a header after some leading bytes
        found = _attachment(data)
        if found is None:
            return None
        name, xml = found
        try:
            return _classify(xml, "pdf", name)
        except EInvoiceError as err:
            if err.reason == "xml-malformed":
                raise EInvoiceError("embedded-not-xml", f"{name}: {err.message}") from err
            raise
    if _looks_like_xml(data):
        return _classify(data, "xml", None)
    return None


def _looks_like_xml(data: bytes) -> bool:
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with a byte order mark
        return True
    return head.startswith(b"<")


def _attachment(data: bytes) -> tuple[str, bytes] | None:
    """The invoice attachment's name and bytes: a standard name first, else any `.xml`.
    pypdf lists them as factur-x's own extraction does; the XML is parsed here, by the safe
    parser, because factur-x's parses every attachment with lxml's defaults first."""
    try:
        attachments = [(a.name, a.content) for a in PdfReader(io.BytesIO(data)).attachment_list]
    except (PyPdfError, ValueError, KeyError, TypeError, OSError):
        return None  # not readable here: the PDF intake gives its own reason
    named = [(n, c) for n, c in attachments if n.lower() in INVOICE_ATTACHMENTS]
    others = [(n, c) for n, c in attachments if n.lower().endswith(".xml")]
    for name, content in named or others:
        if len(content) > MAX_XML_BYTES:
            raise EInvoiceError("xml-too-large", f"{name}: {len(content)} bytes")
        if named or _looks_like_xml(content):
            return name, content
    return None


def _classify(xml: bytes, container: Literal["xml", "pdf"], name: str | None) -> Detected:
    root = parse(xml)
    qname = etree.QName(root)
    syntax = ROOTS.get((qname.namespace or "", qname.localname))
    if syntax is None:
        raise EInvoiceError("not-an-invoice", f"root element {qname.text} is no invoice")
    if syntax == "ubl":
        customization = text(root, "CustomizationID")
    else:
        customization = text(
            root,
            "ExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID"
            if syntax == "cii"
            else "SpecifiedExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID",
        )
    return Detected(
        container=container,
        syntax=syntax,  # type: ignore[arg-type]
        flavor=_flavor(syntax, customization or ""),
        level=_level(root, syntax, customization or ""),
        customization=customization,
        attachment=name,
        xml=xml,
    )


def _flavor(syntax: str, customization: str) -> str:
    cid = customization.lower()
    if syntax == "zugferd-1":
        return "zugferd-1"
    if "xrechnung" in cid:
        return f"xrechnung-{syntax}"
    if syntax == "ubl":
        return "peppol-bis-3" if "peppol" in cid else "ubl"
    if "zugferd" in cid:
        return "zugferd-2"
    if "factur-x" in cid or cid == "urn:cen.eu:en16931:2017":
        return "factur-x"
    return "cii"


def _level(root: etree._Element, syntax: str, customization: str) -> str | None:
    """The Factur-X or ZUGFeRD profile (minimum ... extended), as factur-x reads it."""
    if syntax == "ubl":
        return None
    if syntax == "zugferd-1":
        # urn:ferd:CrossIndustryDocument:invoice:1p0:<basic|comfort|extended>
        last = customization.rsplit(":", 1)[-1].lower()
        return last if last in ("basic", "comfort", "extended") else None
    try:
        level = fx.get_level(root, "factur-x")
    except (ValueError, IndexError, AttributeError):
        return None
    return str(level)
