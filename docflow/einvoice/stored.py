"""einvoice.json: what the read e-invoice step stores of an e-invoice (docs/einvoice.md), as one
type for its readers (the review page, `docflow show`). Written by
`docflow.pipeline.einvoice_read`; a file an older release wrote may lack the later keys
(`otherXml`, `attachmentsComplete`), hence not total."""

from __future__ import annotations

from typing import TypedDict

from docflow.einvoice.detect import OtherXmlJson
from docflow.einvoice.record import EInvoiceJson
from docflow.einvoice.report import ReportJson


class EInvoiceFile(TypedDict, total=False):
    source: str  # "xml" or "hybrid"
    attachment: str | None
    otherXml: list[OtherXmlJson]
    attachmentsComplete: bool
    syntax: str
    invoice: EInvoiceJson
    report: ReportJson
