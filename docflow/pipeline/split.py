"""Step: validate the upload, count its pages and plan the page batches.

An unreadable document is an answer, not an exception: the step returns its reason code so
the orchestrator records a terminal failure without burning retries on bad input.

It also decides, from the rules file, whether the upload is read as a packet (a part of a
packet never is): the decision is checkpointed here, so the orchestrator's packet branch
stands on a checkpointed value. A packet tolerates a few pages PDFium refuses: the batches
skip them and each fails its own part (docs/packets.md). A PDF holding active content
(JavaScript, a launch action, an XFA form, actions reaching outside the file; `unknown` where
the walk could not finish: docflow/active_content.py) is flagged `active-content` here
(docs/payment-controls.md), not refused.

An e-invoice is recognized here by its content (docs/einvoice.md): an XML invoice (UBL, CII,
ZUGFeRD 1.0) is read as one page with no PDFium, a PDF carrying one is `hybrid` and its pages
are read as any PDF's. An XML refused (not well formed, a DTD or entity, too large, no invoice)
or a PDF whose invoice attachment is not XML is refused with the e-invoice reason code.
"""

from __future__ import annotations

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig

from docflow.einvoice import EInvoiceError, detect, read
from docflow.errors import TOO_MANY_PAGES, IntakeError
from docflow.ids import DocumentRef
from docflow.pdf import IntakeLimits, inspect_pdf
from docflow.pdf_actions import active_content
from docflow.pipeline.plan import plan_batches, without_pages
from docflow.pipeline.results import Split
from docflow.pipeline.serdes import RecordSerDes
from docflow.rules.packets import MAX_PACKET_PAGES, MAX_REFUSED_PAGES
from docflow.runtime import runtime

SPLIT_STEP = StepConfig(serdes=RecordSerDes(Split))
XML, HYBRID = "xml", "hybrid"


@durable_step
def split_document(step: StepContext, doc: DocumentRef) -> Split:
    rt = runtime()
    s = rt.settings
    packet = doc.part is None and rt.rules.packets.is_packet(doc.key)
    limits = IntakeLimits(s.max_pages, s.max_bytes, s.max_page_points)
    try:
        data = rt.store.source_bytes(doc, s.max_bytes)
        if not is_pdf(data) and _invoice(data):  # an XML invoice: one page, no PDFium
            step.logger.info("e-invoice split", extra={"einvoice": XML, "bytes": len(data)})
            return Split(True, 1, len(data), ((1, 1),), einvoice=XML)
        info = inspect_pdf(data, limits, tolerate=MAX_REFUSED_PAGES if packet else 0)
        einvoice = HYBRID if not packet and _invoice(data, step) else None
    except (IntakeError, EInvoiceError) as exc:
        step.logger.warning("document refused", extra={"reason": exc.reason})
        return Split.refused(exc.reason, exc.message)
    if packet and info.pages > MAX_PACKET_PAGES:
        # Its plan and parts are checkpointed at about 20 bytes a part: bounded under 256 KB.
        message = f"a packet has at most {MAX_PACKET_PAGES} pages; this one has {info.pages}"
        return Split.refused(TOO_MANY_PAGES, message)
    batches = plan_batches(info.pages, s.page_batch_size, s.page_concurrency, s.max_batches)
    batches = without_pages(batches, info.refused)
    step.logger.info(
        "document split",
        extra={"pages": info.pages, "batches": len(batches), "packet": packet},
    )
    ranges = tuple((a, b) for a, b in batches)
    # Active content: a flag the summary carries to `show` and the review page (whoever
    # downloads the original should know), never a refusal.
    active = active_content(data)
    if active:
        step.logger.warning("active content", extra={"kinds": list(active)})
    return Split(
        True,
        info.pages,
        info.bytes,
        ranges,
        packet=packet,
        refused_pages=info.refused,
        active_content=active,
        einvoice=einvoice,
    )


def is_pdf(data: bytes) -> bool:
    """PDF readers accept a header after some leading bytes; so does e-invoice detection."""
    return b"%PDF-" in data[:1024]


def _invoice(data: bytes, step: StepContext | None = None) -> bool:
    """Whether `data` is or carries an e-invoice that reads; an EInvoiceError with its reason
    for one refused. `step` for a PDF PDFium read: an attachment table pypdf cannot read makes
    it an ordinary PDF (logged), never a refusal of a document whose pages read."""
    try:
        found = detect(data)
    except EInvoiceError as exc:
        if step is None or exc.reason != "not-an-invoice":
            raise
        # A PDF carrying some other XML (a data export, a form's data) is an ordinary PDF.
        step.logger.info("attached XML is no invoice", extra={"reason": exc.reason})
        return False
    except Exception as exc:
        if step is None:
            raise
        step.logger.warning("attachments not read", extra={"error": type(exc).__name__})
        return False
    if found is None:
        return False
    read(found)  # an invoice that does not read is refused here, not in a later step
    return True
