"""The bank-details check's part of consulting the registry (`hook.py`): the pages' accounts
as the account reader reads them (their words and what OCR read in their pictures), judged
(`ownership.py`), and the check against the matched supplier's registered accounts
(`bank.py`)."""

from __future__ import annotations

from collections.abc import Sequence

from docflow.accounts import read_page
from docflow.accounts.lines import text_lines
from docflow.extract.base import PageInput
from docflow.extract.rules_engine.engine import layout_of
from docflow.extract.rules_engine.layout import Page, from_words
from docflow.suppliers.bank import Asked, BankCheck, check_bank_details
from docflow.suppliers.match import Match
from docflow.suppliers.ownership import IbanFinding, Judged, judge_accounts
from docflow.suppliers.store import SupplierStore


def asks_for_payment(pages: Sequence[PageInput]) -> bool:
    """Whether a page prints an account in any form (the account reader's, in its text or
    in what OCR read in its pictures), or asks to be paid to one, or has a picture at a
    payment line OCR could not read: then the bank-details check runs whatever the
    document's type."""
    for page in pages:
        if page.unread_pictures:
            return True
        pictures = " ".join(w.text for w in page.picture_words)
        reading = read_page(text_lines(f"{page.text}\n{pictures}" if pictures else page.text))
        if reading.found or reading.instructions():
            return True
    return False


def account_layout(page: PageInput) -> Page:
    """The page as the account reader reads it: its words and what OCR read in its
    pictures (readers/pictures), laid out together, so an IBAN pasted as a picture beside
    its label reads as one line."""
    if not page.picture_words:
        return layout_of(page)
    return from_words(page.page, [*page.words, *page.picture_words])


def judged_accounts(
    pages: Sequence[PageInput], vendor: str | None, registered: Sequence[str] = ()
) -> Judged:
    """The pages' accounts judged (`ownership.judge_accounts`), read from their words and
    their pictures', with the pictures at a payment line OCR could not read."""
    unread = {p.page: p.unread_pictures for p in pages if p.unread_pictures}
    return judge_accounts([account_layout(p) for p in pages], vendor, registered, unread)


def check_bank(
    store: SupplierStore | None,
    match: Match | None,
    accounts: Sequence[IbanFinding],
    names: Sequence[str],
    judged: Judged,
    hold_unknown: bool,
) -> BankCheck | None:
    """The bank-details check (`bank.py`): for a type that is paid, and for any page that
    prints an account or asks to be paid to one whatever its type (a bill worded as a
    receipt is no way around treasury); `accounts`: the judged accounts with the ones an
    e-invoice's data declares. None where there is no registry to check against."""
    if store is None or not ("vendor_name" in names or accounts or judged.instructions):
        return None
    supplier_id = match.supplier.supplier_id if match is not None else None
    registered = match.supplier.ids.get("iban", ()) if match is not None else ()
    return check_bank_details(
        supplier_id,
        registered,
        accounts,
        lambda iban: store.holder(f"iban:{iban}"),
        Asked(judged.instructions, judged.settled, judged.unreadable),
        hold_unknown,
    )
