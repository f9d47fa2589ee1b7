"""Whose IBAN is it? The issuer's (where it wants to be paid) or someone else's.

For the document types with fields, an invoice's own bank account is expected content, not a
privacy finding (issue: an IBAN printed on an invoice). Each IBAN on the pages is judged, in
this order (the first that applies decides):

    bad-checksum        fails ISO 13616's check: nobody's; it matches no supplier
    debit-mandate       its line, or the line over it, asks to debit an account (`debit my
                        account`, SEPA-Lastschrift, prélèvement, domiciliación, addebito,
                        machtiging...): the customer's account  -> other
    customer-block      printed in the `Bill to` / `Rechnungsempfänger` block  -> other
    registered          the matched supplier's own, in the registry  -> issuer
    reader-account      its line, or one of the three over it, sends money to the reader's
                        own account (`to your account`, `auf Ihr Konto`, `votre compte`: a
                        refund on a credit note)  -> other
    pay-to              its line, or one of the three over it, asks the reader for a credit
                        transfer (`per SEPA Überweisung`, `bank transfer`, `payable to`,
                        virement, bonifico, transferencia, overboeking) or names the
                        issuer's bank details (`Bankverbindung`, `Coordonnées bancaires`,
                        `Datos bancarios`, `Coordinate bancarie`, `Bankgegevens`): the
                        account the issuer wants to be paid on (its own, or its factor's)
                        -> issuer
    beside-issuer-id    within two lines of a checked tax id outside the customer block
    beside-issuer-name  within two lines of the vendor's name
    issuer-block        in the top third of the first page
    footer              in the bottom quarter of a page
    no-issuer-evidence  none of the above  -> other

Only masked forms (`DE•••• 3000`) leave this module.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from docflow.extract.layout import Page
from docflow.extract.parse import fold
from docflow.extract.vendor import customer_cells
from docflow.suppliers.ids import find_ibans, find_tax_ids, masked_iban

ISSUER, OTHER = "issuer", "other"
FOOTER = 0.75
TOP = 0.33
_MANDATE = re.compile(
    r"debit\s+(?:my|our|your|the)\s+account|direct\s+debit|debit\s+mandate|to\s+be\s+debited"
    r"|lastschrift|einzugsermachtigung|abbuchen|einziehen|abgebucht|eingezogen"
    r"|prelevement|mandat\s+sepa|autorise\s+.{0,40}debiter|domiciliacion|adeudo|cargo\s+en\s+cuenta"
    r"|addebito|\brid\b|incasso|machtiging|automatische\s+afschrijving|debito\s+direto"
    r"|debito\s+em\s+conta",
    re.IGNORECASE,
)

# A credit transfer the reader is asked to make (folded: lower case, no accents).
_PAY_TO = re.compile(
    r"uberweis|bank\s*transfer|wire\s+transfer|credit\s+transfer|\bpay(?:able|ment)?\s+to\b"
    r"|remit(?:tance)?\s+to|please\s+(?:pay|transfer|remit)|virement|bonifico|transferencia"
    r"|overboeking|overschrijving|over\s+te\s+maken|zahlbar\s.{0,40}\bauf\b"
    # The issuer's own bank details, as a supplier prints where to pay under its totals.
    r"|bankverbindung|\bbank\s*details|coordonnees\s+bancaires|datos\s+bancarios"
    r"|coordinate\s+bancarie|bankgegevens",
    re.IGNORECASE,
)
# Money going to the reader's own account.
_READERS = re.compile(
    r"\byour\s+(?:bank\s+)?account|\bihr(?:em|en)?\s+konto|\bvotre\s+compte|\bsu\s+cuenta"
    r"|\buw\s+rekening|\bvostro\s+conto|\bsua\s+conta",
    re.IGNORECASE,
)
PAY_TO_LINES = 3  # how far over the IBAN a payment instruction may stand


@dataclass(frozen=True)
class IbanFinding:
    value: str  # the IBAN itself: for matching inside the step only, never checkpointed
    valid: bool
    owner: str  # issuer | other
    why: str
    page: int

    def shown(self) -> dict[str, Any]:
        """What checkpoints, the read model and the review page carry."""
        return {
            "iban": masked_iban(self.value),
            "valid": self.valid,
            "owner": self.owner if self.valid else OTHER,
            "why": self.why,
            "page": self.page,
        }


def _line_text(page: Page, index: int) -> str:
    return " ".join(c.text for c in page.lines[index]) if 0 <= index < len(page.lines) else ""


def judge_ibans(
    layouts: Sequence[Page], vendor_name: str | None, registered: Collection[str] = ()
) -> list[IbanFinding]:
    """Every IBAN on these pages with whose it was judged to be (rules above)."""
    found: list[IbanFinding] = []
    vendor = fold(vendor_name or "").strip()
    for page in layouts:
        customer = customer_cells(page)
        customer_lines = {c.line for c in page.cells() if id(c) in customer}
        issuer_id_lines = {
            i
            for i in range(len(page.lines))
            if i not in customer_lines and any(t.valid for t in find_tax_ids(_line_text(page, i)))
        }
        name_lines = {
            i
            for i in range(len(page.lines))
            if len(vendor) >= 3 and vendor in fold(_line_text(page, i))
        }
        for index, _line in enumerate(page.lines):
            text = _line_text(page, index)
            for iban in find_ibans(text):
                why = _why(page, index, iban.value, iban.valid, customer_lines, registered)
                why = why or _issuer_evidence(page, index, issuer_id_lines, name_lines)
                owner = ISSUER if why in _ISSUER_REASONS else OTHER
                found.append(IbanFinding(iban.value, iban.valid, owner, why, page.number))
    return found


_ISSUER_REASONS = (
    "registered",
    "pay-to",
    "beside-issuer-id",
    "beside-issuer-name",
    "issuer-block",
    "footer",
)


def _why(
    page: Page,
    index: int,
    value: str,
    valid: bool,
    customer_lines: set[int],
    registered: Collection[str],
) -> str:
    if not valid:
        return "bad-checksum"
    if _MANDATE.search(fold(_line_text(page, index))) or _mandate_over(page, index):
        return "debit-mandate"
    if index in customer_lines:
        return "customer-block"
    if value in registered:
        return "registered"
    instruction = _instruction(page, index)
    if _READERS.search(instruction):
        return "reader-account"
    if _PAY_TO.search(instruction):
        return "pay-to"
    return ""


def _instruction(page: Page, index: int) -> str:
    """The IBAN's line and the lines over it that may say what it is for: up to
    PAY_TO_LINES, stopping at a line that holds an IBAN of its own (its words are its)."""
    lines = [fold(_line_text(page, index))]
    for over in range(index - 1, max(-1, index - 1 - PAY_TO_LINES), -1):
        text = _line_text(page, over)
        if any(True for _ in find_ibans(text)):
            break
        lines.append(fold(text))
    return " ".join(reversed(lines))


def _mandate_over(page: Page, index: int) -> bool:
    """A mandate's wording on the line right over this one (`Debit my account:` then the
    IBAN), when that line holds no IBAN of its own and no gap parts them."""
    if index == 0:
        return False
    over = _line_text(page, index - 1)
    if not _MANDATE.search(fold(over)) or any(True for _ in find_ibans(over)):
        return False
    gap = page.lines[index][0].y0 - page.lines[index - 1][0].y1
    return gap < page.line_height * 2


def _issuer_evidence(page: Page, index: int, id_lines: set[int], name_lines: set[int]) -> str:
    near = set(range(index - 2, index + 3))
    if near & id_lines:
        return "beside-issuer-id"
    if near & name_lines:
        return "beside-issuer-name"
    line = page.lines[index]
    y = line[0].y0 if line else 0.0
    relative = y if line and line[0].has_box else index / max(1, len(page.lines))
    if page.number == 1 and relative < TOP:
        return "issuer-block"
    if relative >= FOOTER:
        return "footer"
    return "no-issuer-evidence"
