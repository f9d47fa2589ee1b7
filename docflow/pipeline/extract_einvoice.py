"""The extract step's e-invoice half: the fields from the EN 16931 data the *read e-invoice*
step stored (`einvoice.json`, docs/einvoice.md), checked against the printed page for a hybrid.

    einvoice.json  ->  canonical fields, certain (docflow/einvoice/fields.py)
                   ->  each fatal rule, an XSD failure, a skipped rule set: a check
    hybrid page    ->  its invoice number, total and payee IBANs against the XML's (agree.py):
                       each disagreement a check, agreement puts the page's box on the field
    seller ids     ->  the registry as printed ids are (docflow/suppliers/data_evidence.py)

What goes to `fields.json` beside the ordinary answer: the lines, the VAT breakdown and an
`einvoice` section that says where each field came from. The checkpoint's shape is the
ordinary one, so every later step (orders, duplicates, bank details, review) applies as to
any invoice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, TypedDict

from docflow.document import Check
from docflow.document.shown import FieldValue
from docflow.einvoice import EInvoice, Report
from docflow.einvoice.agree import PageValues, Printed, agree
from docflow.einvoice.detect import OtherXml
from docflow.einvoice.fields import canonical_fields, rule_checks, supplier_evidence
from docflow.extract.base import PageInput
from docflow.extract.declarations.kinds import AMOUNT
from docflow.extract.declarations.labels import READ_AS
from docflow.extract.rules_engine.engine import layout_of
from docflow.extract.rules_engine.layout import Page
from docflow.suppliers.data_evidence import Declared
from docflow.suppliers.ids import find_ibans
from docflow.suppliers.ownership import ISSUER, judge_ibans

XML, XML_AND_PAGE = "xml", "xml+page"


@dataclass(frozen=True)
class Stored:
    """einvoice.json as the read e-invoice step wrote it (`other_xml` and
    `attachments_complete` absent from one an older run wrote: none, and complete)."""

    key: str
    source: str  # "xml" or "hybrid"
    syntax: str
    invoice: EInvoice
    report: Report
    attachment: str | None = None
    other_xml: tuple[OtherXml, ...] = ()
    attachments_complete: bool = True

    @property
    def hybrid(self) -> bool:
        return self.source == "hybrid"

    @classmethod
    def parse(cls, key: str, raw: Mapping[str, Any]) -> Stored:
        return cls(
            key=key,
            source=str(raw["source"]),
            syntax=str(raw["syntax"]),
            invoice=EInvoice.from_json(dict(raw["invoice"])),
            report=Report.from_json(dict(raw["report"])),
            attachment=raw.get("attachment"),
            other_xml=tuple(OtherXml.from_json(o) for o in raw.get("otherXml") or ()),
            attachments_complete=bool(raw.get("attachmentsComplete", True)),
        )


OTHER_XML = "other-xml"  # the check a PDF carrying more than the XML read raises


def attachment_checks(stored: Stored) -> list[Check]:
    """A hybrid carrying another XML besides the one read (a second invoice XML, any XML
    file), or whose attachments could not all be read: a person sees which one the supplier
    sent, since a program reading the other one would pay what it says."""
    read = stored.attachment or "the invoice XML"
    checks: list[Check] = []
    invoices = [o.name for o in stored.other_xml if o.invoice]
    others = [o.name for o in stored.other_xml if not o.invoice]
    if invoices:
        checks.append(
            Check(
                code=OTHER_XML,
                message=f"the PDF carries {len(invoices) + 1} invoice XMLs: {read} was "
                f"read, {_names(invoices)} not; a program reading another one would pay what "
                "it says, so a person checks which one the supplier sent",
            )
        )
    if others:
        checks.append(
            Check(
                code=OTHER_XML,
                message=f"the PDF carries XML besides the invoice read ({read}): "
                f"{_names(others)}; a person checks what it is and that it changes nothing "
                "of what is paid",
            )
        )
    if not stored.attachments_complete:
        checks.append(
            Check(
                code=OTHER_XML,
                message=f"not every attachment of the PDF could be read (only {read} was "
                "checked); a person checks what else it carries",
            )
        )
    return checks


def _names(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names)


class PageAgreement(TypedDict, total=False):
    """What a hybrid's page said against its data, in `fields.json`'s `einvoice` section: the
    fields it confirmed, those it contradicts, and what it read."""

    agreed: list[str]
    mismatches: list[str]
    page: dict[str, FieldValue]


@dataclass(frozen=True)
class DataReading:
    """The fields from the data, the checks it raised, the evidence for the registry and
    what `fields.json` adds (`lines`, `vat`, `einvoice`)."""

    fields: dict[str, FieldValue]
    checks: list[Check]
    declared: Declared
    detail: dict[str, Any]


def _same(name: str, xml: str, page: Any) -> bool:
    if READ_AS.get(name) == AMOUNT:
        try:
            return Decimal(xml) == Decimal(str(page))
        except InvalidOperation:
            return False
    return " ".join(xml.split()).casefold() == " ".join(str(page).split()).casefold()


def _printed(found: FieldValue | None) -> Printed | None:
    if not found or found.get("value") in (None, ""):
        return None
    return Printed(str(found["value"]), int(found.get("page") or 0), found.get("box"))


def _line_spans(page: Page) -> Iterator[tuple[str, list[tuple[int, int, Any]]]]:
    """Each line of `page` as its cells' text joined by blanks, with where each cell sits."""
    for line in page.lines:
        text, spans, at = "", [], 0
        for cell in line:
            spans.append((at, at + len(cell.text), cell))
            text += cell.text + " "
            at = len(text)
        yield text, spans


def _box_of(spans: list[tuple[int, int, Any]], start: int, end: int) -> list[float] | None:
    cells = [c for s, e, c in spans if s < end and start < e]
    return _union([c.box for c in cells if c.box])


def payee_ibans(layouts: Sequence[Page], vendor: str | None) -> list[Printed]:
    """The IBANs the page prints as the account to pay (ownership.py's issuer's), each with
    the box of the cells it was read from."""
    payees = {i.value for i in judge_ibans(layouts, vendor) if i.valid and i.owner == ISSUER}
    found: list[Printed] = []
    for page in layouts:
        for text, spans in _line_spans(page):
            for iban in find_ibans(text):
                if iban.value in payees:
                    found.append(
                        Printed(iban.value, page.number, _box_of(spans, iban.start, iban.end))
                    )
    return found


def _printed_as(account: str) -> re.Pattern[str]:
    """`account` as a page may print it: any separators between its characters, any case,
    standing alone (no letter or digit glued to either end: `1234` is not in `512345`)."""
    body = r"[\s\-./]*".join(re.escape(c) for c in account)
    return re.compile(rf"(?<![0-9A-Za-z]){body}(?![0-9A-Za-z])", re.IGNORECASE)


def printed_accounts(layouts: Sequence[Page], accounts: Sequence[str]) -> list[Printed]:
    """Where the page prints each of `accounts` (the XML's payee accounts that are no IBAN,
    which no IBAN reader finds): the first place each is printed, with its box."""
    found: list[Printed] = []
    for account in accounts:
        pattern = _printed_as(account)
        hit = next(
            (
                Printed(account, page.number, _box_of(spans, m.start(), m.end()))
                for page in layouts
                for text, spans in _line_spans(page)
                if (m := pattern.search(text))
            ),
            None,
        )
        if hit is not None:
            found.append(hit)
    return found


def _union(boxes: Sequence[list[float]]) -> list[float] | None:
    if not boxes:
        return None
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    return [x0, y0, max(b[2] for b in boxes), max(b[3] for b in boxes)]


def page_values(
    page_fields: Mapping[str, FieldValue],
    pages: Sequence[PageInput],
    other_accounts: Sequence[str] = (),
) -> PageValues:
    """What a hybrid's page read, as agree() compares it; `other_accounts`: the XML's payee
    accounts that are no IBAN, looked for on the page as printed."""
    layouts = [layout_of(p) for p in pages]
    vendor = (page_fields.get("vendor_name") or {}).get("value")
    ibans = payee_ibans(layouts, str(vendor) if vendor else None)
    return PageValues(
        number=_printed(page_fields.get("invoice_number")),
        total=_printed(page_fields.get("total_amount")),
        ibans=(*ibans, *printed_accounts(layouts, other_accounts)),
    )


def from_data(
    stored: Stored,
    names: Sequence[str],
    page_fields: Mapping[str, FieldValue] | None = None,
    pages: Sequence[PageInput] = (),
) -> DataReading:
    """The fields from the data; for a hybrid (`page_fields`: what the engine read on its
    page), each field the page printed alike carries the page's place, and the number,
    total and payee IBAN must agree."""
    invoice = stored.invoice
    fields = canonical_fields(invoice, names)
    checks = [*attachment_checks(stored), *rule_checks(stored.report)]
    sources = dict.fromkeys(fields, XML)
    agreement: PageAgreement = {}
    if page_fields is not None:
        agreed = agree(invoice, page_values(page_fields, pages, invoice.other_accounts))
        checks.extend(agreed.checks)
        for name, field in fields.items():
            read = page_fields.get(name) or {}
            if read.get("value") is not None and _same(name, field["value"], read["value"]):
                field["page"], field["box"] = read.get("page", 0), read.get("box")
                sources[name] = XML_AND_PAGE
        agreement = {
            "agreed": sorted(agreed.agreed),
            "mismatches": [c.field for c in agreed.checks],
            "page": {k: v.copy() for k, v in sorted(page_fields.items())},
        }
    evidence = supplier_evidence(invoice)
    detail = {
        "lines": [line for line in invoice.to_json()["lines"]],
        "vat": [row for row in invoice.to_json()["vat"]],
        "einvoice": {
            "key": stored.key,
            "source": stored.source,
            "syntax": stored.syntax,
            "typeCode": invoice.type_code,
            "valid": stored.report.valid,
            "fields": sources,
            **agreement,
            "evidence": evidence.to_json(),
        },
    }
    declared = Declared.of(evidence.vat_id, evidence.tax_number, evidence.accounts)
    return DataReading(fields, checks, declared, detail)
