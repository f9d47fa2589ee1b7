"""Is this file an e-invoice? By content, never by name: a PDF with an EN 16931 XML attached
(Factur-X, ZUGFeRD 1.0/2.x, XRechnung in a PDF) or an XML whose root is a UBL 2.1 Invoice or
CreditNote, a CII CrossIndustryInvoice or a ZUGFeRD 1.0 CrossIndustryDocument.

A PDF's attachments are all listed (`attachments.py`), not only the first invoice XML a
reader meets: one is read, and every other XML it carries (a second invoice XML, any XML
file) is named in `Detected.other_xml`, so that the run holds it for a person; another
program may read that one instead and pay what it says."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict

from facturx import facturx as fx
from lxml import etree

from docflow.einvoice.attachments import READ_ERRORS, Attachment, list_attachments
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


class OtherXmlJson(TypedDict):
    name: str
    invoice: bool


@dataclass(frozen=True)
class OtherXml:
    """An XML a PDF carries besides the one read: its name as the PDF gives it, and whether
    its root is an invoice's (a second invoice XML) or not."""

    name: str
    invoice: bool

    def to_json(self) -> OtherXmlJson:
        return {"name": self.name, "invoice": self.invoice}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> OtherXml:
        return cls(str(raw["name"]), bool(raw["invoice"]))


@dataclass(frozen=True)
class Detected:
    """An e-invoice found: where (`xml` alone or attached to a `pdf`), its syntax, what it
    claims to be (`flavor`: factur-x, zugferd-1, zugferd-2, xrechnung-cii, xrechnung-ubl,
    peppol-bis-3, ubl, cii; `level`: the Factur-X/ZUGFeRD profile) and the XML's bytes; for
    a PDF, every other XML it carries (`other_xml`) and whether its attachments could all be
    listed and read (`attachments_complete`)."""

    container: Literal["xml", "pdf"]
    syntax: Syntax
    flavor: str
    level: str | None
    customization: str | None
    attachment: str | None
    xml: bytes
    other_xml: tuple[OtherXml, ...] = ()
    attachments_complete: bool = True


def detect(data: bytes) -> Detected | None:
    """The e-invoice in `data`; None for a file that is neither XML nor a PDF carrying an
    invoice XML (an ordinary PDF goes the pages' way). Raises EInvoiceError with a reason
    for an XML or an attachment that is refused."""
    if b"%PDF-" in data[:1024]:  # readers accept a header after some leading bytes
        return _in_pdf(data)
    if _looks_like_xml(data):
        return _classify(data, "xml", None)
    return None


def _looks_like_xml(data: bytes) -> bool:
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with a byte order mark
        return True
    return head.startswith(b"<")


def _in_pdf(data: bytes) -> Detected | None:
    """The invoice XML a PDF carries, with every other XML it carries beside it."""
    try:
        listing = list_attachments(data)
    except READ_ERRORS:
        return None  # not readable here: the PDF intake gives its own reason
    chosen = _invoice_attachment(listing.files)
    if chosen is None:
        return None
    others = tuple(
        OtherXml(_shown_name(a.name), _is_invoice(a.content))
        for a in listing.files
        if a is not chosen and (a.name.lower().endswith(".xml") or _looks_like_xml(a.content))
    )
    detected = _read_attachment(chosen)
    return replace(detected, other_xml=others, attachments_complete=listing.complete)


def _invoice_attachment(files: list[Attachment]) -> Attachment | None:
    """The attachment read as the invoice: the first under a standard name whatever its
    content (its errors are the document's), else the first `.xml` that is an invoice, else
    the first `.xml` that looks like XML (whose not being an invoice makes an ordinary PDF)."""
    for found in files:
        if found.name.lower() in INVOICE_ATTACHMENTS:
            return found
    xmls = [f for f in files if f.name.lower().endswith(".xml") and _looks_like_xml(f.content)]
    return next((f for f in xmls if _is_invoice(f.content)), xmls[0] if xmls else None)


def _read_attachment(found: Attachment) -> Detected:
    if len(found.content) > MAX_XML_BYTES:
        raise EInvoiceError("xml-too-large", f"{found.name}: {len(found.content)} bytes")
    try:
        return _classify(found.content, "pdf", found.name)
    except EInvoiceError as err:
        if err.reason == "xml-malformed":
            raise EInvoiceError("embedded-not-xml", f"{found.name}: {err.message}") from err
        raise


def _is_invoice(content: bytes) -> bool:
    """Whether `content` is XML whose root is an invoice's (read by the safe parser: an XML
    it refuses is no invoice here, and still named as another XML)."""
    if len(content) > MAX_XML_BYTES or not _looks_like_xml(content):
        return False
    try:
        root = parse(content)
    except EInvoiceError:
        return False
    qname = etree.QName(root)
    return (qname.namespace or "", qname.localname) in ROOTS


# A name the sender chose goes into a check's message: printable characters only, and short.
MAX_NAME = 80


def _shown_name(name: str) -> str:
    printable = "".join(c if c.isprintable() else "?" for c in name)
    return printable if len(printable) <= MAX_NAME else printable[: MAX_NAME - 1] + "…"


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
