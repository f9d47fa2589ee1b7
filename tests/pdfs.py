"""The tests build their own PDFs with the same generator the samples and benchmarks use."""

from docflow.local.pdfgen import *  # noqa: F403
from docflow.local.pdfgen import (  # noqa: F401
    CONTRACT_WITH_CARD,
    INVOICE,
    PURCHASE_ORDER,
    encrypted_pdf,
    huge_page_pdf,
    make_pdf,
    scanned_pdf,
    text_pdf,
    truncated_pdf,
    zero_page_pdf,
)
