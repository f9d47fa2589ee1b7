"""A hybrid's printed page against its XML: do the invoice number, the total and the payee
account agree? Pure: the XML's record and what the page read in, checks out.

A hybrid PDF carries the invoice twice, once for people (the page) and once for machines (the
XML). A person pays what the page says and a machine what the XML says, so a hybrid whose two
halves differ (an IBAN changed on one of them) is exactly what a person must see. Compared,
each normalized so that only a difference of meaning counts:

    invoice number   trimmed, inner blanks collapsed, case folded
    total            as a Decimal (`104.9` = `104.90`)
    payee accounts   every BT-84 the XML names, raw (an IBAN, a ProprietaryID, a national
                     account), against the payee accounts the page prints, both normalized
                     (`accounts.normalize_account`): each account the XML names must be on the
                     page and each payee account the page prints in the XML. An account on
                     one side that the other lacks is the fraud this looks for, whichever
                     side names none: a page printing no account while the XML pays one (or
                     the reverse) is a mismatch, never "nothing to compare".

An invoice number or a total the page lacks is not a mismatch: the page reader may have
missed it, and the XML's own value, validated, still stands. Only a value read on both sides
that differs is one. Each disagreement is a check `{"field", "code": "page-mismatch", "xml",
"page", "pageBox", "message"}` (docs/einvoice.md), `pageBox` being `{page, box}` where the
page's value was read, or null. An account leaves here masked as everywhere in docflow (its
first two characters and last four: `DE•••• 3000`), with as much more of its tail kept as it
takes to show the difference where the two sides' last four are the same (`none` for a side
that names none); the whole values stay in the step's full answer (`fields.json`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from docflow.document import Check
from docflow.einvoice.accounts import normalize_account
from docflow.einvoice.fields import amount
from docflow.einvoice.record import EInvoice

MISMATCH = "page-mismatch"


@dataclass(frozen=True)
class Printed:
    """One value as the page printed it: the value and where (`page` 1-based, `box` the
    page-relative `[x0, y0, x1, y1]`, None where the reader gave no box)."""

    value: str
    page: int = 0
    box: list[float] | None = None

    def where(self) -> dict[str, object] | None:
        return {"page": self.page, "box": self.box} if self.page else None


@dataclass(frozen=True)
class PageValues:
    """What the page read: its invoice number and total (None where it read none) and the
    accounts it prints as the account to pay (the issuer's IBANs, not a customer's mandate,
    and any other account the XML names that the page prints)."""

    number: Printed | None = None
    total: Printed | None = None
    ibans: Sequence[Printed] = field(default_factory=tuple)


@dataclass(frozen=True)
class Agreement:
    """`agreed`: the canonical fields the page confirmed (by name, with where it printed
    them); `checks`: one per disagreement."""

    agreed: dict[str, Printed]
    checks: list[Check]

    @property
    def agrees(self) -> bool:
        return not self.checks


def same_number(xml: str, page: str) -> bool:
    return " ".join(xml.split()).casefold() == " ".join(page.split()).casefold()


def same_total(xml: str, page: str) -> bool:
    try:
        return Decimal(xml.strip()) == Decimal(page.strip())
    except InvalidOperation:
        return False


def masked(account: str, keep: int = 4) -> str:
    return f"{account[:2]}•••• {account[-keep:]}"


NONE = "none"


def _masked_sides(xml: list[str], page: list[str]) -> tuple[str, str]:
    """Both sides masked alike, each keeping as much of its tail as tells them apart."""

    def side(accounts: list[str], keep: int) -> str:
        return ", ".join(masked(a, keep) for a in accounts) or NONE

    left, right = side(xml, 4), side(page, 4)
    longest = max(len(a) for a in [*xml, *page])
    for keep in range(5, longest - 1):
        if left != right:
            break
        left, right = side(xml, keep), side(page, keep)
    return left, right


def _check(name: str, xml: str, page: str, printed: Printed | None, what: str) -> Check:
    return Check(
        code=MISMATCH,
        field=name,
        message=f"{what}: the XML says {xml}, the printed page says {page}; a person "
        "checks which one the supplier sent",
        more={"xml": xml, "page": page, "pageBox": printed.where() if printed else None},
    )


def agree(invoice: EInvoice, page: PageValues) -> Agreement:
    agreed: dict[str, Printed] = {}
    checks: list[Check] = []
    number = " ".join((invoice.number or "").split())
    if number and page.number is not None:
        if same_number(number, page.number.value):
            agreed["invoice_number"] = page.number
        else:
            checks.append(
                _check("invoice_number", number, page.number.value, page.number, "invoice number")
            )
    total = amount(invoice.total)
    if total is not None and page.total is not None:
        if same_total(total, page.total.value):
            agreed["total_amount"] = page.total
        else:
            checks.append(
                _check("total_amount", total, page.total.value, page.total, "total with VAT")
            )
    checks.extend(_iban_checks(invoice, page, agreed))
    return Agreement(agreed, checks)


def _iban_checks(invoice: EInvoice, page: PageValues, agreed: dict[str, Printed]) -> list[Check]:
    xml = [a for a in dict.fromkeys(normalize_account(a) for a in invoice.accounts) if a]
    printed: dict[str, Printed] = {}
    for found in page.ibans:
        if key := normalize_account(found.value):
            printed.setdefault(key, found)
    if not xml and not printed:
        return []  # neither side asks to be paid on an account
    missing = [a for a in xml if a not in printed]
    added = [p for a, p in printed.items() if a not in xml]
    if not missing and not added:
        agreed["iban"] = printed[xml[0]]
        return []
    xml_shown, page_shown = _masked_sides(xml, list(printed))
    where = added[0] if added else None
    return [_check("iban", xml_shown, page_shown, where, "payee account")]
