"""Packets for tests: PDFs of several documents back to back (built by the test, real PDFs), a
starter that records the parts' starts instead of invoking Lambda, and running those starts
through the durable testing runner as the intake path would."""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass, field
from typing import cast

from pypdf import PdfReader, PdfWriter
from pypdf.generic import DictionaryObject, NameObject, NumberObject

from docflow.ids import DocumentRef
from tests.kit import pdfgen

# One document each: a list of page texts (a ("scan", text) tuple for an image-only page).
INVOICE_A = [
    "ACME SUPPLIES LTD\nINVOICE\nInvoice number: INV-1001\nBill to: Example Corp\nPage 1 of 2\n"
    "Paper, A4 box   40   25.00   1,000.00",
    "ACME SUPPLIES LTD\nInvoice number: INV-1001\nPage 2 of 2\nSubtotal: 1,000.00 USD\n"
    "Total due: 1,000.00 USD\nPayment terms: net 30",
]
INVOICE_B = [
    "BRIGHT OFFICE GMBH\nINVOICE\nInvoice number: INV-2002\nBill to: Example Corp\nPage 1 of 1\n"
    "Toner   2   50.00   100.00\nSubtotal: 100.00 USD\nTotal due: 100.00 USD",
]
INVOICE_C = [
    "CITY CLEANERS\nINVOICE\nInvoice number: INV-3003\nBill to: Example Corp\n"
    "Cleaning, March   1   300.00   300.00\nSubtotal: 300.00 USD\nTotal due: 300.00 USD\n"
    "Amount due: 300.00 USD",
]
CONTRACT = [
    "SERVICES AGREEMENT\nThis agreement is made between the parties named below.\n"
    "The parties hereby agree to the terms and conditions.\nPage 1 of 2",
    "Page 2 of 2\nGoverning law: Delaware.\nSignature: ______\nSignature: ______",
]
# A report whose cover page says little (is it the invoice's annex or a new document? an
# unsure boundary) and whose second page carries the title (a sure start, wrongly).
REPORT = [
    "North region, first quarter\nPrepared for the board of directors\nConfidential",
    "REPORT\nQuarterly findings\nAnalysis of the north region\nSummary for the appendix",
]


def packet(*documents: list[str | tuple[str, str]]) -> bytes:
    """The documents' pages back to back, as one PDF."""
    return pdfgen.make_pdf([page for document in documents for page in document])


def starts(*documents: list[str | tuple[str, str]]) -> list[int]:
    """The first page of each document in `packet(*documents)`."""
    out, page = [], 1
    for document in documents:
        out.append(page)
        page += len(document)
    return out


def with_unloadable_page(data: bytes, page: int) -> bytes:
    """The PDF with page `page` (1-based) made one PDFium cannot load (its page-tree entry is
    not a page); the others read as before."""
    writer = PdfWriter(clone_from=io.BytesIO(data))
    pages = cast("DictionaryObject", writer._root_object["/Pages"])
    kids = pages[NameObject("/Kids")]
    kids[page - 1] = NumberObject(7)  # type: ignore[index]
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def page_count(data: bytes) -> int:
    return len(PdfReader(io.BytesIO(data)).pages)


@dataclass
class RecordingStarter:
    """The intake starter's interface, keeping each start (by name, once: as Lambda and the
    local runner's claims do) for the test to run."""

    started: dict[str, DocumentRef] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, doc: DocumentRef) -> bool:
        with self.lock:
            self.asked.append(doc.execution_name)
            if doc.execution_name in self.started:
                return False
            self.started[doc.execution_name] = doc
            return True

    def start_named(self, name: str, payload: str) -> bool:
        raise NotImplementedError("parts start by document")
