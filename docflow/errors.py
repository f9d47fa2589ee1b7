"""Named errors. Each carries a stable reason code that ends up in the read model."""

from __future__ import annotations


class DocflowError(Exception):
    """Base class: `reason` is a short, stable, machine-readable code."""

    reason: str = "internal-error"

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason

    @property
    def message(self) -> str:
        return str(self)


class IntakeError(DocflowError):
    """The document cannot be processed as it is; retrying will not help."""


# Intake reason codes, one per way a document can be refused. An e-invoice refused at intake
# has its own (xml-malformed, xml-unsafe, xml-too-large, not-an-invoice, embedded-not-xml):
# `docflow.einvoice.errors.Reason`.
NOT_A_PDF = "not-a-pdf"
EMPTY_FILE = "empty-file"
ENCRYPTED = "encrypted"
CORRUPT = "corrupt"
ZERO_PAGES = "zero-pages"
TOO_MANY_PAGES = "too-many-pages"
TOO_LARGE = "too-large"
PAGE_TOO_LARGE = "page-dimensions"
SOURCE_MISSING = "source-missing"
UNRENDERABLE_PAGE = "unrenderable-page"


class PageReadError(DocflowError):
    """A page could not be read; raised inside a batch step so the step retries."""

    reason = "page-read-failed"


class ThrottledError(DocflowError):
    """A rate-limited service kept throttling past the retry budget."""

    reason = "throttled"
