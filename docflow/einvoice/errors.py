"""Why an e-invoice was refused: one exception, one reason code each, as the read model
records failures (docs/architecture.md's reason codes)."""

from __future__ import annotations

from typing import Literal

Reason = Literal[
    "xml-malformed",  # not well-formed XML
    "xml-unsafe",  # a DTD or an entity: XXE and entity bombs are refused, never expanded
    "xml-too-large",  # over the size cap, refused before parsing
    # Shaped like no invoice, refused while parsing (safe_xml.py's caps, each under what the
    # business rules' XML parser accepts):
    "xml-too-many-attributes",  # an element with more attributes than an invoice's have
    "xml-too-many-nodes",  # more elements, attributes and comments than an invoice has
    "xml-too-deep",  # elements nested deeper than an invoice's
    "xml-name-too-long",  # a name or namespace longer than an invoice's
    "not-an-invoice",  # well-formed XML whose root is no UBL or CII invoice
    "embedded-not-xml",  # a PDF whose invoice attachment is not XML
]


class EInvoiceError(Exception):
    """An input refused with a reason code and a sentence a person can act on."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason: Reason = reason
        self.message = message


RULES_REFUSED = "rules-refused"  # Saxon could not run the business rules on this XML


class RulesRefused(Exception):
    """The business rules could not be run on this XML: a reason code (`rules-refused`, or
    the XML cap a rules function applied: a `Reason`) and a sentence of this package's own.
    Saxon's Java message, a stack trace and a server path stay in the log of the process
    that ran it: none of them is a word a person reading the document can act on."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message
