"""An e-invoice in docflow's own terms: its canonical fields, its supplier evidence, and its
validation report as the extract step's checks. Pure: records in, plain values out.

The fields are the invoice fields `docflow/rules/rules.toml` declares, in their normal forms
(identifiers and names trimmed, ISO dates, an upper-case currency, amounts with two places
computed from the XML's decimal string, never through a float), in the extract step's
checkpoint shape `{name: {value, confidence, page, box}}`. The data is the invoice itself,
not a reading of it: every value is certain (confidence 1.0); it was printed nowhere (`page`
0, `box` None) until a hybrid's page agrees with it (`agree.py`).

The supplier evidence is the seller's VAT id (BT-31), tax number (BT-32), every payee account
(BT-84, an IBAN or not, normalized: `accounts.py`) and BIC (BT-86): the registry checks and
keys them exactly as it does ids printed on a page, and every payee account meets the
bank-details check.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TypedDict

from docflow.document import Check
from docflow.document.shown import FieldValue
from docflow.einvoice.accounts import is_iban_shaped, payee_accounts
from docflow.einvoice.record import EInvoice
from docflow.einvoice.report import Report

CERTAIN = 1.0
CENT = Decimal("0.01")

# EN 16931 business rules that concern one canonical field: a fatal one is shown beside it.
# Any other rule concerns the invoice as a whole (`*`).
RULE_FIELDS: dict[str, str] = {
    "BR-02": "invoice_number",  # an invoice number
    "BR-03": "invoice_date",  # an issue date
    "BR-05": "currency",  # an invoice currency code
    "BR-06": "vendor_name",  # the seller's name
    "BR-13": "net_amount",  # the total without VAT
    "BR-14": "total_amount",  # the total with VAT
    "BR-15": "total_amount",  # the amount due
    "BR-CO-10": "net_amount",  # line total = sum of line nets
    "BR-CO-13": "net_amount",  # total without VAT = lines - allowances + charges
    "BR-CO-14": "tax_amount",  # total VAT = sum of the breakdown's VAT
    "BR-CO-15": "total_amount",  # total with VAT = total without VAT + total VAT
    "BR-CO-16": "total_amount",  # amount due = total with VAT - prepaid + rounding
    "BR-DEC-12": "net_amount",  # two decimals at most
    "BR-DEC-13": "tax_amount",
    "BR-DEC-14": "total_amount",
    "BR-DEC-18": "total_amount",
}


def amount(value: str | None) -> str | None:
    """An XML amount (`"104.9"`, `"1234.500"`) as docflow writes amounts (`"104.90"`).
    EN 16931 allows two decimals in the document totals (BR-DEC-*); a third one is rounded
    half up here and its rule is a fatal finding that routes the invoice all the same."""
    if value is None or not value.strip():
        return None
    try:
        number = Decimal(value.strip())
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    return str(number.quantize(CENT, rounding=ROUND_HALF_UP))


def _text(value: str | None) -> str | None:
    joined = " ".join((value or "").split())
    return joined or None


def canonical_values(invoice: EInvoice) -> dict[str, str]:
    """The canonical fields the invoice has, by name, in normal form."""
    values = {
        "invoice_number": _text(invoice.number),
        "po_number": _text(invoice.po_number),
        "invoice_date": _text(invoice.issue_date),
        "due_date": _text(invoice.due_date),
        "vendor_name": _text(invoice.seller.name),
        "currency": (_text(invoice.currency) or "").upper() or None,
        "net_amount": amount(invoice.net),
        "tax_amount": amount(invoice.tax),
        "total_amount": amount(invoice.total),
    }
    return {name: value for name, value in values.items() if value is not None}


def canonical_fields(
    invoice: EInvoice, names: Collection[str] | None = None
) -> dict[str, FieldValue]:
    """The fields in the extract step's checkpoint shape, certain, sorted by name; only
    `names` (the document type's fields) when given."""
    return {
        name: {"value": value, "confidence": CERTAIN, "page": 0, "box": None}
        for name, value in sorted(canonical_values(invoice).items())
        if names is None or name in names
    }


class EvidenceJson(TypedDict):
    """`SupplierEvidence.to_json`: what an e-invoice's detail says of its issuer and payee."""

    vatId: str | None
    taxNumber: str | None
    ibans: list[str]
    accounts: list[str]
    bic: str | None


@dataclass(frozen=True)
class SupplierEvidence:
    """What the data says of who issued it and where to pay: the ids as written, the payee
    accounts normalized (`ibans` those shaped as IBANs, `accounts` every one)."""

    vat_id: str | None
    tax_number: str | None
    ibans: tuple[str, ...]
    bic: str | None
    accounts: tuple[str, ...] = ()

    def to_json(self) -> EvidenceJson:
        return {
            "vatId": self.vat_id,
            "taxNumber": self.tax_number,
            "ibans": list(self.ibans),
            "accounts": list(self.accounts),
            "bic": self.bic,
        }


def supplier_evidence(invoice: EInvoice) -> SupplierEvidence:
    accounts = payee_accounts(invoice.accounts)
    return SupplierEvidence(
        vat_id=_text(invoice.seller.vat_id),
        tax_number=_text(invoice.seller.tax_number),
        ibans=tuple(a for a in accounts if is_iban_shaped(a)),
        bic=_text(invoice.bic),
        accounts=accounts,
    )


def rule_checks(report: Report) -> list[Check]:
    """The validation as the extract step's checks: the XSD failure, each rule set that could
    not run and each fatal finding (a person looks at each); warnings are shown elsewhere,
    never routed."""
    checks: list[Check] = []
    if report.xsd == "failed":
        checks.append(
            Check(
                code="einvoice-rule",
                field="*",
                rule="XSD",
                severity="fatal",
                message=_clip(f"the XML fails its schema: {report.xsd_error or 'no detail'}"),
            )
        )
    for skipped in report.skipped:
        checks.append(
            Check(
                code="einvoice-rule",
                field="*",
                rule="skipped",
                severity="fatal",
                message=f"the business rules were not checked: {skipped}",
            )
        )
    # One check per broken rule, however many lines break it: a 1,000-line invoice with a rule
    # broken on every line is one finding for a person, and its checkpoint stays far under the
    # service's step-result limit (every finding is in einvoice.json).
    by_rule: dict[str, list[str]] = {}
    for finding in report.fatal:
        by_rule.setdefault(finding.rule, []).append(finding.text)
    for rule, texts in by_rule.items():
        more = f" (and {len(texts) - 1} more like it)" if len(texts) > 1 else ""
        checks.append(
            Check(
                code="einvoice-rule",
                field=RULE_FIELDS.get(rule, "*"),
                rule=rule,
                severity="fatal",
                message=_clip(texts[0]) + more,
            )
        )
    return checks


MESSAGE_CHARS = 500  # a rule's text, or an XSD error, as a check carries it


def _clip(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"
