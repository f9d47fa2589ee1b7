"""An e-invoice as the review page shows it (docs/einvoice.md): the invoice read from its
`einvoice.json` as a readable document, the failed business rules beside the values they
concern, the report's warnings apart, and a hybrid's page-against-data disagreements.

It reads the stored JSON as the contract writes it rather than through `docflow.einvoice`'s
records: the reviewers' door then loads no XML toolkit, and the tests build that JSON with the
records themselves, so a change of shape fails there. Every value a person sees passes the
detectors' masking, as the page text does: an IBAN shows its last four, never whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docflow.document import Check, DocumentSummary
from docflow.document.shown import EInvoiceShown
from docflow.review.stage.masking import masked_value

XML, HYBRID = "xml", "hybrid"
RULE, MISMATCH = "einvoice-rule", "page-mismatch"
GENERAL = "*"  # a rule that concerns no single field
MAX_LINES = 500  # lines shown; the rest are in the download

SYNTAXES = {"ubl": "UBL 2.1", "cii": "UN/CEFACT CII", "zugferd-1": "ZUGFeRD 1.0"}
# A check's field as the document part it concerns (the fields the extract step names).
PLACES = {
    "invoice_number": "number",
    "invoice_date": "issue_date",
    "due_date": "due_date",
    "currency": "currency",
    "po_number": "po_number",
    "vendor_name": "seller",
    "net_amount": "net",
    "tax_amount": "tax",
    "total_amount": "total",
    "iban": "account",
}
# The codes a line and a VAT breakdown carry, named for a person (the code is shown too).
# VAT categories: UNCL5305 as EN 16931 restricts it (BT-118, BT-151).
VAT_CATEGORIES = {
    "S": "standard rate",
    "Z": "zero rated",
    "E": "exempt",
    "AE": "reverse charge",
    "K": "intra-EU supply",
    "G": "export outside the EU",
    "O": "outside the scope of VAT",
    "L": "Canary Islands tax",
    "M": "Ceuta and Melilla tax",
}
# Units (BT-130): UN/ECE Recommendation 20, and 21's packages (X...), the common ones.
UNITS = {
    "C62": "unit",
    "H87": "piece",
    "XPP": "piece",
    "EA": "each",
    "HUR": "hour",
    "MIN": "minute",
    "DAY": "day",
    "WEE": "week",
    "MON": "month",
    "ANN": "year",
    "KGM": "kg",
    "TNE": "tonne",
    "MTR": "metre",
    "MTK": "square metre",
    "LTR": "litre",
    "KWH": "kWh",
    "SET": "set",
    "LS": "lump sum",
}


LABELS = {"iban": "IBAN (payee account)"}
SHORT = {"iban": "IBAN"}  # beside an outline on the page, where room is short
TOTALS = (
    ("line_total", "Sum of the lines"),
    ("net", "Total without VAT"),
    ("tax", "VAT"),
    ("total", "Total with VAT"),
    ("payable", "Amount due"),
)


def shown(value: Any) -> str:
    """A value as the page may show it: text, detected numbers masked; "" for none."""
    return "" if value is None else masked_value(str(value))


def named(code: Any, names: dict[str, str]) -> str:
    """A code with its name where it has a known one: `C62 (unit)`."""
    text = shown(code)
    return f"{text} ({names[text]})" if text in names else text


@dataclass(frozen=True)
class Rule:
    rule: str
    text: str


@dataclass(frozen=True)
class Mismatch:
    """A hybrid's value that its printed page and its XML data give differently."""

    field: str
    label: str
    short: str
    page_value: str
    xml_value: str
    message: str
    page: int | None
    box: Any
    # Masked alike (an IBAN changed before its last four): said, so nobody reads "equal".
    alike: bool


@dataclass(frozen=True)
class InvoiceView:
    source: str
    title: str
    syntax: str  # the XML syntax, as people name it
    facts: list[tuple[str, str, str]]  # (label, value, place)
    seller: list[tuple[str, str]]
    buyer: list[tuple[str, str]]
    lines: list[dict[str, str]]
    more_lines: int
    vat: list[dict[str, str]]
    totals: list[tuple[str, str, str]]  # (label, value with currency, place)
    payment: list[tuple[str, str, str]]
    rules_at: dict[str, list[Rule]]  # place -> the fatal rules beside it
    general_rules: list[Rule]
    problems: list[str]  # the XSD's verdict, rule sets that could not run
    warnings: list[Rule]
    mismatches: list[Mismatch] = field(default_factory=list)
    readable: bool = True  # einvoice.json was there and could be read

    @property
    def line_count(self) -> int:
        """How many lines the data holds (the page shows the first `MAX_LINES`)."""
        return len(self.lines) + self.more_lines


def einvoice_of(summary: DocumentSummary) -> EInvoiceShown:
    """The summary's small `einvoice` object ({} for any other document)."""
    return summary.einvoice if isinstance(summary.einvoice, dict) else {}


def xml_only(summary: DocumentSummary) -> bool:
    """An invoice that arrived as XML alone: no page to picture, an XML to download."""
    return einvoice_of(summary).get("source") == XML


def _label(name: str) -> str:
    words = name.replace("_", " ")
    return LABELS.get(name, words[:1].upper() + words[1:])


def _rule_text(text: str, rule: str) -> str:
    """The rule's own text without the `[BR-CO-15]-` the schematron puts before it."""
    prefix = f"[{rule}]-"
    return text[len(prefix) :].strip() if rule and text.startswith(prefix) else text


def _check_rule_text(check: Check) -> str:
    return _rule_text(check.message or str(check.more.get("text") or ""), check.rule)


def check_text(check: Check) -> str:
    """A check's words beside its field: a rule's id before the rule's text."""
    if check.code == RULE and check.rule:
        return f"{check.rule}: {_check_rule_text(check)}"
    return check.message


def mismatches(checks: Sequence[Check]) -> list[Mismatch]:
    found = []
    for check in checks:
        if check.code != MISMATCH:
            continue
        name = check.field
        # The page's value rides in `more` (a check's own `page` is a page number).
        printed, xml = check.more.get("page"), check.more.get("xml")
        page_value, xml_value = shown(printed), shown(xml)
        box = check.more.get("pageBox")
        where: Mapping[str, object] = box if isinstance(box, Mapping) else {}
        page = where.get("page")
        found.append(
            Mismatch(
                field=name,
                label=_label(name),
                short=SHORT.get(name, _label(name)),
                page_value=page_value,
                xml_value=xml_value,
                message=check.message,
                page=page if isinstance(page, int) else None,
                box=where.get("box"),
                alike=page_value == xml_value and printed != xml,
            )
        )
    return found


def _party(party: Any) -> list[tuple[str, str]]:
    party = party if isinstance(party, dict) else {}
    rows = [
        ("Name", party.get("name")),
        ("VAT ID", party.get("vat_id")),
        ("Tax number", party.get("tax_number")),
        ("Country", party.get("country")),
    ]
    return [(label, shown(value)) for label, value in rows if value]


def _money(value: Any, currency: str) -> str:
    return f"{shown(value)} {currency}".strip() if value is not None else ""


def _lines(invoice: dict[str, Any]) -> list[dict[str, str]]:
    rows = []
    for n, line in enumerate(invoice.get("lines") or [], start=1):
        description = shown(line.get("description"))
        line_id = shown(line.get("line_id"))
        rate = shown(line.get("vat_rate"))
        rows.append(
            {
                # Its id in the data (BT-126), unless a sender repeated the description there.
                "n": line_id if line_id and line_id != description else str(n),
                "description": description,
                "quantity": shown(line.get("quantity")),
                "unit": named(line.get("unit"), UNITS),
                "unit_price": shown(line.get("unit_price")),
                "net": shown(line.get("net")),
                "vat": " ".join(
                    p for p in (shown(line.get("vat_category")), f"{rate} %" if rate else "") if p
                ),
            }
        )
    return rows


def _general_and_placed(checks: Sequence[Check]) -> tuple[list[Rule], dict[str, list[Rule]]]:
    general: list[Rule] = []
    placed: dict[str, list[Rule]] = {}
    for check in checks:
        if check.code != RULE:
            continue
        rule = Rule(check.rule, _check_rule_text(check))
        place = PLACES.get(check.field)
        if place is None:
            general.append(rule)
        else:
            placed.setdefault(place, []).append(rule)
    return general, placed


def invoice_view(summary: DocumentSummary, stored: dict[str, Any] | None) -> InvoiceView:
    """The invoice as the page shows it, from the summary's checks and its einvoice.json
    (`stored`; None when it could not be read: the page says so, the checks still show)."""
    about = einvoice_of(summary)
    checks = summary.checks
    general, placed = _general_and_placed(checks)
    stored = stored or {}
    invoice: dict[str, Any] = stored.get("invoice") or {}
    report: dict[str, Any] = stored.get("report") or {}
    currency = shown(invoice.get("currency"))
    kind = str(invoice.get("document_type") or "invoice").replace("-", " ")
    number = shown(invoice.get("number"))
    syntax = SYNTAXES.get(str(stored.get("syntax") or about.get("syntax")), "XML")
    problems = []
    if report.get("xsd") == "failed":
        problems.append(f"The XML does not match its schema: {report.get('xsdError') or ''}")
    for skipped in report.get("skipped") or []:
        problems.append(f"Not checked: {skipped}")
    warnings = [
        Rule(str(f.get("rule")), _rule_text(str(f.get("text") or ""), str(f.get("rule") or "")))
        for f in report.get("findings") or []
        if f.get("severity") == "warning"
    ]
    lines = _lines(invoice)
    account = ", ".join(shown(iban) for iban in invoice.get("ibans") or [])
    # A national or proprietary account (BT-84 not an IBAN) is a payee too; no detector knows
    # its shape, so it is masked here, to its last four, as an IBAN is.
    others = ", ".join(f"•••• {str(a)[-4:]}" for a in invoice.get("other_accounts") or [])
    return InvoiceView(
        source=str(about.get("source") or ""),
        title=f"{kind[:1].upper()}{kind[1:]} {number}".strip(),
        syntax=syntax,
        facts=[
            (label, value, place)
            for label, value, place in (
                ("Number", number, "number"),
                ("Type", f"{kind} (type code {shown(invoice.get('type_code'))})", "type"),
                ("Issue date", shown(invoice.get("issue_date")), "issue_date"),
                ("Due date", shown(invoice.get("due_date")), "due_date"),
                ("Currency", currency, "currency"),
                ("Buyer reference", shown(invoice.get("buyer_reference")), "buyer_reference"),
                ("Order reference", shown(invoice.get("po_number")), "po_number"),
                # BT-24: the specification it claims to follow (XRechnung, Peppol, a profile).
                ("Specification", shown(invoice.get("customization")), "customization"),
            )
            if value or place in placed
        ],
        seller=_party(invoice.get("seller")),
        buyer=_party(invoice.get("buyer")),
        lines=lines[:MAX_LINES],
        more_lines=max(0, len(lines) - MAX_LINES),
        vat=[
            {
                "category": named(row.get("category"), VAT_CATEGORIES),
                "rate": f"{shown(row.get('rate'))} %" if row.get("rate") is not None else "",
                "taxable": _money(row.get("taxable"), currency),
                "tax": _money(row.get("tax"), currency),
            }
            for row in invoice.get("vat") or []
        ],
        totals=[
            (label, _money(invoice.get(name), currency), name)
            for name, label in TOTALS
            if invoice.get(name) is not None or name in placed
        ],
        payment=[
            (label, value, place)
            for label, value, place in (
                ("Terms", shown(invoice.get("payment_terms")), "terms"),
                ("Account (IBAN)", account, "account"),
                ("Account (other)", others, "other_account"),
                ("BIC", shown(invoice.get("bic")), "bic"),
            )
            if value or place in placed
        ],
        rules_at=placed,
        general_rules=general,
        problems=problems,
        warnings=warnings,
        mismatches=mismatches(checks),
        readable=bool(invoice),
    )
