"""Why an e-invoice was refused: one exception, one reason code each, as the read model
records failures (docs/architecture.md's reason codes)."""

from __future__ import annotations

from typing import Literal

Reason = Literal[
    "xml-malformed",  # not well-formed XML
    "xml-unsafe",  # a DTD or an entity: XXE and entity bombs are refused, never expanded
    "xml-too-large",  # over the size cap, refused before parsing
    "not-an-invoice",  # well-formed XML whose root is no UBL or CII invoice
    "embedded-not-xml",  # a PDF whose invoice attachment is not XML
]


class EInvoiceError(Exception):
    """An input refused with a reason code and a sentence a person can act on."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason: Reason = reason
        self.message = message
