"""Write the sample documents `make run` puts through the pipeline.

python samples/make_samples.py samples/
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.kit.pdfgen import (
    CONTRACT_WITH_CARD,
    INVOICE_UNREADABLE_TOTAL,
    INVOICE_WITH_FIELDS,
    PURCHASE_ORDER,
    make_pdf,
)

# The same supplier's next month's bill, its total smudged. Its own number and its own date:
# typed in, its total (1,100.00) is invoice.pdf's, and the duplicate check keys a bill by its
# supplier and number and by its supplier, date and total (a possible duplicate within days of
# the date too), so with invoice.pdf's number or date the README's first review would end at
# `duplicate` instead of finalizing.


def _changed(text: str, *pairs: tuple[str, str]) -> str:
    """`text` with each (old, new) replaced, refusing a pair whose old text is not there (the
    test kit's invoice changed under the sample)."""
    for old, new in pairs:
        if old not in text:
            raise ValueError(f"the sample invoice no longer prints {old!r}")
        text = text.replace(old, new)
    return text


SMUDGED = _changed(
    INVOICE_UNREADABLE_TOTAL,
    ("INV-20931", "INV-20932"),
    ("Invoice date: 2026-03-04", "Invoice date: 2026-04-08"),
    ("Due date: 2026-04-03", "Due date: 2026-05-08"),
)

# The purchase order with its amounts, so its only reviews are the type's own two stages.
PURCHASE_ORDER_WITH_TOTALS = PURCHASE_ORDER + (
    "\nSubtotal: 1,000.00 EUR\nVAT 20%: 200.00 EUR\nOrder total: 1,200.00 EUR"
)

# E-invoices (docs/einvoice.md), copied from the test material (tests/data/einvoice/README.md
# names their sources): a hybrid Factur-X PDF (akretion/factur-x's EN 16931 sample,
# BSD-3-Clause) and an XRechnung 3.0 CII XML (KoSIT's test suite, business case 01.01a,
# Apache-2.0).
EINVOICES = Path(__file__).resolve().parents[1] / "tests" / "data" / "einvoice"
EINVOICE_SAMPLES = {
    "facturx-invoice.pdf": "facturx-en16931.pdf",
    "xrechnung.xml": "kosit-xrechnung-01.01a-cii.xml",
}

REPORT_PAGES = [
    "QUARTERLY REPORT\nSummary of findings for the third quarter.",
    "Analysis\nRevenue grew in every region; costs held flat.",
    "Findings\nThe north region led growth for the quarter.",
    "Appendix\nTables and figures supporting the analysis.",
    "Appendix B\nMethod notes for the report.",
]


def write_samples(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        # Finalizes with its number, dates, vendor, currency and amounts in `docflow show`.
        "invoice.pdf": make_pdf([INVOICE_WITH_FIELDS]),
        # Its total is smudged: the `fields` stage asks accounts@example.com to read it.
        "invoice-smudged.pdf": make_pdf([SMUDGED]),
        "scanned-contract.pdf": make_pdf([("scan", CONTRACT_WITH_CARD)]),
        "quarterly-report.pdf": make_pdf(
            [*REPORT_PAGES[:3], ("scan", REPORT_PAGES[3]), REPORT_PAGES[4]]
        ),
        "purchase-order.pdf": make_pdf([PURCHASE_ORDER_WITH_TOTALS]),
        "notes.txt": b"This is a plain text file, not a PDF.\n",
        **{name: (EINVOICES / source).read_bytes() for name, source in EINVOICE_SAMPLES.items()},
    }
    written = []
    for name, data in files.items():
        path = folder / name
        path.write_bytes(data)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_samples(Path(sys.argv[1] if len(sys.argv) > 1 else "samples")):
        print(path)
