"""Whose account is it? The issuer's (where it wants to be paid) or someone else's; and does
the page ask to be paid to an account at all?

The accounts are the account reader's (`docflow.accounts`: IBANs in any printed form,
labelled national accounts, unrecognized values after an account's label). For the document
types with fields, an invoice's own bank account is expected content, not a privacy finding
(issue 36). Each account is judged, in this order (the first that applies decides):

    debit-mandate       the nearest payment word says to debit it (`debit my account`,
                        SEPA-Lastschrift, prélèvement, domiciliación, addebito, machtiging,
                        on its line or the line over it; a nearer pay-to word outranks one:
                        "No direct debit: please pay by bank transfer to IBAN ...")  -> other
    reader-account      the nearest payment word sends money to the reader's own account
                        (`to your account`, `auf Ihr Konto`, `Ihre Bankverbindung`: a refund)
                        -> other
    customer-block      printed in the `Bill to` / `Rechnungsempfänger` block, with no pay-to
                        word on its own line  -> other
    bad-checksum        an IBAN that fails ISO 13616's check, or a national account whose
                        check fails  -> other (it matches no supplier)
    unrecognized        a value after an account's label that no check recognizes  -> other
    registered          the matched supplier's own, in the registry  -> issuer
    pay-to              the nearest payment word asks the reader for a credit transfer or
                        names the issuer's bank details (`per SEPA Überweisung`, `bank
                        transfer`, `payable to`, virement, bonifico, transferencia,
                        overboeking, `Bankverbindung`, `Coordonnées bancaires`, ...)  -> issuer
    beside-issuer-id    within two lines of a checked tax id outside the customer block
    beside-issuer-name  within two lines of the vendor's name
    issuer-block        in the top third of the first page
    footer              in the bottom quarter of a page
    no-issuer-evidence  none of the above  -> other

`owner` serves the privacy rule (issue 36) and is what it was. The bank-details check
(`bank.py`) fails closed: every account but one the page's words give to a mandate or to the
reader is a possible payee (`payee`), whatever its owner: an account that nothing ties to the
issuer, or one the layout places in the customer's block, is still printed on the issuer's
invoice. `judge_accounts` also counts the page's payment
instructions (`docflow.accounts.reader`) outside the customer's block, and the pictures at a
payment line that OCR could not read (`readers/pictures`): both the check's evidence that an
account was asked for.

Only masked forms (`DE•••• 3000`) leave this module.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from docflow.accounts import IBAN, Account, PageAccounts, read_page
from docflow.accounts import OTHER as OTHER_KIND
from docflow.accounts.labels import LABEL, MANDATE, PAY_TO, READER, Cue
from docflow.accounts.lines import Segment
from docflow.document.shown import IbanShown
from docflow.extract.declarations.parse import fold
from docflow.extract.rules_engine.layout import Page
from docflow.extract.rules_engine.vendor import customer_cells
from docflow.suppliers.ids import find_tax_ids

ISSUER, OTHER = "issuer", "other"
FOOTER = 0.75
TOP = 0.33
# Not a payee: an account the page's words say is to be debited, or the reader's own. An
# account in the customer's block by layout alone is still a possible payee: the block's
# end is a guess (an `IBAN:` line under the line items was taken for the customer's).
NOT_PAYEE = ("debit-mandate", "reader-account")
PICTURE_REACH = 2.0  # line heights between a picture and the payment line it sits at

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class IbanFinding:
    """One account found and judged. The name is the first kind's (IBAN); national accounts
    are judged the same way (`kind`, and `iban` where the account is an IBAN's)."""

    value: str  # the account itself: for matching inside the step only, never checkpointed
    valid: bool
    owner: str  # issuer | other
    why: str
    page: int
    kind: str = IBAN
    iban: str | None = None  # the IBAN it is (an IBAN's own value, a German Konto's IBAN)

    @property
    def account(self) -> Account:
        iban = self.iban if self.iban is not None else (self.value if self.kind == IBAN else None)
        return Account(self.kind, self.value, self.valid, iban if self.valid else None)

    @property
    def payee(self) -> bool:
        """A possible payee: no words say it is a mandate's or the reader's account."""
        return self.why not in NOT_PAYEE

    @property
    def registry_iban(self) -> str | None:
        """The IBAN the registry keys this account on, where it is a valid one."""
        return self.account.iban

    def shown(self) -> IbanShown:
        """What checkpoints, the read model and the review page carry."""
        out: IbanShown = {
            "iban": self.account.masked,
            "valid": self.valid,
            "owner": self.owner if self.valid else OTHER,
            "why": self.why,
            "page": self.page,
        }
        if self.kind != IBAN:
            out["kind"] = self.kind
        return out


@dataclass(frozen=True)
class Judged:
    """The accounts of some pages, judged, and what the pages ask for."""

    accounts: list[IbanFinding] = field(default_factory=list)
    instructions: int = 0  # payment instructions that ask to pay to an account
    settled: bool = False  # a page says it is paid (or debited) and asks for no transfer
    unreadable: int = 0  # pictures at a payment line OCR read nothing in


def _line_text(page: Page, index: int) -> str:
    return " ".join(c.text for c in page.lines[index]) if 0 <= index < len(page.lines) else ""


def segments(page: Page) -> list[list[Segment]]:
    """The page's lines as the account reader reads them: each cell a segment."""
    return [[Segment(c.text, c.x0, c.x1) for c in line] for line in page.lines]


def judge_accounts(
    layouts: Sequence[Page],
    vendor_name: str | None,
    registered: Collection[str] = (),
    unread: Mapping[int, Sequence[Box]] | None = None,
) -> Judged:
    """Every account on these pages with whose it was judged to be (rules above), and the
    pages' payment instructions; `unread`: per page number, the boxes of pictures the read
    step could not read (`imageUnread`)."""
    found: list[IbanFinding] = []
    instructions = 0
    settled = False
    unreadable = 0
    vendor = fold(vendor_name or "").strip()
    for page in layouts:
        reading = read_page(segments(page))
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
        for item in reading.found:
            account, line = item.account, item.place.line
            purpose = reading.purpose(item)
            why = _why(account, purpose, line in customer_lines, line, registered)
            why = why or _issuer_evidence(page, line, issuer_id_lines, name_lines)
            owner = ISSUER if why in _ISSUER_REASONS else OTHER
            found.append(_finding(account, owner, why, page.number))
        asked = [c for c in reading.instructions() if c.line not in customer_lines]
        instructions += len(asked)
        settled = settled or reading.settled
        unreadable += _unread_at_payment(page, reading, (unread or {}).get(page.number, ()))
    return Judged(found, instructions, settled, unreadable)


def _finding(account: Account, owner: str, why: str, page: int) -> IbanFinding:
    return IbanFinding(account.value, account.valid, owner, why, page, account.kind, account.iban)


def judge_ibans(
    layouts: Sequence[Page], vendor_name: str | None, registered: Collection[str] = ()
) -> list[IbanFinding]:
    """The IBANs among the judged accounts (what the privacy rule, the e-invoice check and
    "add this supplier" work with)."""
    judged = judge_accounts(layouts, vendor_name, registered).accounts
    return [f for f in judged if f.kind == IBAN]


_ISSUER_REASONS = (
    "registered",
    "pay-to",
    "beside-issuer-id",
    "beside-issuer-name",
    "issuer-block",
    "footer",
)


def _why(
    account: Account,
    purpose: Cue | None,
    in_customer_block: bool,
    line: int,
    registered: Collection[str],
) -> str:
    kind = purpose.kind if purpose is not None else None
    if kind == MANDATE:
        return "debit-mandate"
    if kind == READER:
        return "reader-account"
    # A pay-to word on its own line makes it the payee's, even printed under the customer's
    # block with no blank line between (issue 44).
    if in_customer_block and not (purpose is not None and kind == PAY_TO and purpose.line == line):
        return "customer-block"
    if not account.valid:
        return "unrecognized" if account.kind == OTHER_KIND else "bad-checksum"
    if account.matches(registered):
        return "registered"
    if kind == PAY_TO:
        return "pay-to"
    return ""


def _line_band(page: Page, index: int) -> tuple[float, float] | None:
    line = page.lines[index]
    if not line or not line[0].has_box:
        return None
    return min(c.y0 for c in line), max(c.y1 for c in line)


def _unread_at_payment(page: Page, reading: PageAccounts, boxes: Sequence[Box]) -> int:
    """The pictures OCR read nothing in that sit on or next to a payment line (a pay-to
    word or an account's label): an account printed where it cannot be read."""
    if not boxes:
        return 0
    payment = {c.line for c in reading.cues if c.kind in (PAY_TO, LABEL)}
    reach = page.line_height * PICTURE_REACH
    count = 0
    for box in boxes:
        for index in payment:
            band = _line_band(page, index)
            if band is not None and box[1] - reach <= band[1] and band[0] <= box[3] + reach:
                count += 1
                break
    return count


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
