"""Step: read an e-invoice's EN 16931 data once, validate it, store it, and say what it is.

The source is read once: its XML (an XML alone, or the one a hybrid PDF carries) is read into
an `EInvoice` and validated (the XSD, then the business rules; `skipped` where Saxon is not
installed). The invoice and its report go to S3 (`einvoice.json`, docs/einvoice.md); the
checkpoint carries only the summary's small `einvoice` object (counts and sums, never lines),
which is also what decides the document's type: its type code, not its words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig

from docflow.document.shown import EInvoiceShown
from docflow.einvoice import EInvoice, EInvoiceError, Report, detect, read, validate
from docflow.einvoice.record import document_type
from docflow.ids import DocumentRef
from docflow.pipeline.serdes import RecordSerDes
from docflow.runtime import runtime
from docflow.storage import einvoice_key

# The EN 16931 document types that are credit notes; every other one is an invoice to the
# rules file (a corrected or self-billed invoice is extracted and reviewed as an invoice, its
# own type code kept in the summary's `einvoice.typeCode`).
CREDIT_NOTES = ("credit-note", "self-billed-credit-note")


@dataclass(frozen=True)
class EInvoiceRead:
    """The summary's `einvoice` object (docs/einvoice.md), in its key order."""

    key: str
    source: str  # "xml" | "hybrid"
    syntax: str  # "ubl" | "cii" | "zugferd-1"
    customization: str | None
    type_code: str | None
    lines: int
    line_total: str | None
    valid: bool
    fatal: tuple[str, ...]  # the fatal rules' ids
    warnings: int
    skipped: tuple[str, ...]

    @classmethod
    def of(cls, key: str, source: str, invoice: EInvoice, report: Report) -> EInvoiceRead:
        return cls(
            key=key,
            source=source,
            syntax=invoice.syntax,
            customization=invoice.customization,
            type_code=invoice.type_code,
            lines=len(invoice.lines),
            line_total=invoice.line_total,
            valid=report.valid,
            fatal=tuple(dict.fromkeys(f.rule for f in report.fatal)),  # each rule once
            warnings=len(report.warnings),
            skipped=report.skipped,
        )

    def shown(self) -> EInvoiceShown:
        """The e-invoice's small object on the document's summary (docs/einvoice.md)."""
        return self.to_json()

    def to_json(self) -> EInvoiceShown:
        return {
            "key": self.key,
            "source": self.source,
            "syntax": self.syntax,
            "customization": self.customization,
            "typeCode": self.type_code,
            "lines": self.lines,
            "lineTotal": self.line_total,
            "valid": self.valid,
            "fatal": list(self.fatal),
            "warnings": self.warnings,
            "skipped": list(self.skipped),
        }

    @classmethod
    def from_json(cls, raw: EInvoiceShown) -> EInvoiceRead:
        return cls(
            key=str(raw["key"]),
            source=str(raw["source"]),
            syntax=str(raw["syntax"]),
            customization=raw.get("customization"),
            type_code=raw.get("typeCode"),
            lines=int(raw["lines"]),
            line_total=raw.get("lineTotal"),
            valid=bool(raw["valid"]),
            fatal=tuple(str(r) for r in raw["fatal"]),
            warnings=int(raw["warnings"]),
            skipped=tuple(str(s) for s in raw["skipped"]),
        )

    @property
    def document_type(self) -> str:
        """The EN 16931 document type its type code states (credit-note, corrected-invoice)."""
        return document_type(self.type_code)


def rules_type(stated: str, types: Iterable[str]) -> str | None:
    """Pure: the rules file's type for an EN 16931 document type: itself when the rules name
    it, else a credit note or an invoice; None when the rules have neither (classify then
    reads the words, as for any document)."""
    names = set(types)
    if stated in names:
        return stated
    fallback = "credit-note" if stated in CREDIT_NOTES else "invoice"
    return fallback if fallback in names else None


EINVOICE_STEP = StepConfig(serdes=RecordSerDes(EInvoiceRead))


@durable_step
def read_einvoice(step: StepContext, doc: DocumentRef, source: str) -> EInvoiceRead:
    """Idempotent: the same version's bytes give the same einvoice.json at the same key."""
    rt = runtime()
    found = detect(rt.store.source_bytes(doc, rt.settings.max_bytes))
    if found is None:  # split found one in this very version: its bytes cannot have changed
        raise EInvoiceError("not-an-invoice", "the split's e-invoice is no longer found")
    invoice = read(found)
    report = validate(found)
    key = einvoice_key(doc)
    stored = {
        "source": source,
        "attachment": found.attachment,
        # Every other XML the PDF carries, and whether all its attachments could be read:
        # the extract step holds the invoice for either (docs/einvoice.md).
        "otherXml": [other.to_json() for other in found.other_xml],
        "attachmentsComplete": found.attachments_complete,
        "syntax": found.syntax,
        "invoice": invoice.to_json(),
        "report": report.to_json(),
    }
    rt.store.put_json(key, stored)
    summary = EInvoiceRead.of(key, source, invoice, report)
    step.logger.info(
        "e-invoice read",
        extra={
            "syntax": found.syntax,
            "flavor": found.flavor,
            "typeCode": invoice.type_code,
            "lines": summary.lines,
            "valid": summary.valid,
            "fatal": list(summary.fatal),
            "otherXml": len(found.other_xml),
        },
    )
    return summary
