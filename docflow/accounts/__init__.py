"""Bank accounts in any printed form, and the words that say what each is for.

The one account reader of the product, on the ground floor: it imports the standard
library, schwifty and python-stdnum, nothing of docflow's. `model` is an account (its kind,
compact value, checks, the IBAN it is, its masked form) and `parse_account` reads one
written alone (an e-invoice's BT-84); `normalize` folds printed forms (any space, dash, dot,
slash, case, full-width digits) and `normalize_account` is the registry's compact form;
`ibans` finds IBANs however grouped or broken over two lines; `national` finds labelled
national accounts (UK sort code and account, US routing and account, a German Konto with
its BLZ, and the national numbers python-stdnum checks); `labels` holds the payment words in
seven languages; `reader` reads one page's accounts and payment instructions for the
bank-details check (docflow.suppliers.ownership, docflow.suppliers.bank), and the privacy
detector's IBAN finder (docflow.rules.detectors) uses `ibans.find_in_text`.
"""

from __future__ import annotations

from docflow.accounts.lines import Place, Segment
from docflow.accounts.model import (
    DE,
    IBAN,
    KINDS,
    OTHER,
    UK,
    US,
    Account,
    iban_valid,
    masked_iban,
    parse_account,
)
from docflow.accounts.normalize import normalize_account
from docflow.accounts.reader import Found, PageAccounts, read_page

__all__ = [
    "DE",
    "IBAN",
    "KINDS",
    "OTHER",
    "UK",
    "US",
    "Account",
    "Found",
    "PageAccounts",
    "Place",
    "Segment",
    "iban_valid",
    "masked_iban",
    "normalize_account",
    "parse_account",
    "read_page",
]
