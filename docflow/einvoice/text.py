"""An e-invoice as plain text a person can read: the page an XML-only invoice does not have.

The pipeline writes it as the invoice's page 1 (engine `einvoice`), so what reads pages (the
classifier's detectors, the summary and risk, `docflow show`) reads the invoice like any
other. Labels are English and fixed, the ones printed invoices use ("Seller:", "Net total:",
"Total incl. VAT:"), so a reader of printed invoices reads this one too; values are exactly
the XML's (no rounding, no locale).
"""

from __future__ import annotations

from docflow.einvoice.record import EInvoice, Line, Party, VatBreakdown

TITLES = {
    "invoice": "INVOICE",
    "credit-note": "CREDIT NOTE",
    "debit-note": "DEBIT NOTE",
    "corrected-invoice": "CORRECTED INVOICE",
    "self-billed-invoice": "SELF-BILLED INVOICE",
    "self-billed-credit-note": "SELF-BILLED CREDIT NOTE",
    "prepayment-invoice": "PREPAYMENT INVOICE",
}


def render(invoice: EInvoice) -> str:
    """The invoice's text: heading, parties, references, lines, VAT breakdown, totals and
    payment, one fact a line, in that order."""
    title = TITLES.get(invoice.document_type, invoice.document_type.replace("-", " ").upper())
    code = f" (type code {invoice.type_code})" if invoice.type_code else ""
    out = [f"{title}{code}", ""]
    out += _pairs(
        ("Invoice number", invoice.number),
        ("Issue date", invoice.issue_date),
        ("Due date", invoice.due_date),
        ("Currency", invoice.currency),
        ("Order reference", invoice.po_number),
        ("Buyer reference", invoice.buyer_reference),
    )
    out += ["", *_party("Seller", invoice.seller), "", *_party("Buyer", invoice.buyer)]
    if invoice.lines:
        rows = (_line(n, line) for n, line in enumerate(invoice.lines, start=1))
        out += ["", f"Lines ({len(invoice.lines)})", *rows]
    if invoice.vat:
        out += ["", "VAT breakdown", *(_vat(row) for row in invoice.vat)]
    out += ["", "Totals"]
    out += _pairs(
        ("Sum of lines", invoice.line_total),
        ("Net total", invoice.net),
        ("VAT total", invoice.tax),
        ("Total incl. VAT", invoice.total),
        ("Amount due", invoice.payable),
        indent="  ",
    )
    payment = _pairs(
        ("Payment terms", invoice.payment_terms),
        *(("IBAN", iban) for iban in invoice.ibans),
        *(("Account", account) for account in invoice.other_accounts),
        ("BIC", invoice.bic),
        indent="  ",
    )
    if payment:
        out += ["", "Payment", *payment]
    return "\n".join(out).rstrip() + "\n"


def _pairs(*pairs: tuple[str, str | None], indent: str = "") -> list[str]:
    return [f"{indent}{label}: {value}" for label, value in pairs if value]


def _party(role: str, party: Party) -> list[str]:
    return [
        f"{role}: {party.name}" if party.name else role,
        *_pairs(
            ("VAT id", party.vat_id),
            ("Tax number", party.tax_number),
            ("Country", party.country),
            indent="  ",
        ),
    ]


def _line(number: int, line: Line) -> str:
    quantity = " ".join(v for v in (line.quantity, line.unit) if v)
    parts = [
        f"  {number}. {line.description or '(no description)'}",
        f"qty {quantity}" if quantity else "",
        f"unit price {line.unit_price}" if line.unit_price else "",
        f"net {line.net}" if line.net else "",
        _rate(line.vat_category, line.vat_rate),
    ]
    return " | ".join(p for p in parts if p)


def _vat(row: VatBreakdown) -> str:
    parts = [
        f"  {_rate(row.category, row.rate) or 'VAT'}",
        f"taxable {row.taxable}" if row.taxable else "",
        f"tax {row.tax}" if row.tax else "",
    ]
    return " | ".join(p for p in parts if p)


def _rate(category: str | None, rate: str | None) -> str:
    if not (category or rate):
        return ""
    return "VAT " + " ".join(v for v in (category, f"{rate}%" if rate else None) if v)
