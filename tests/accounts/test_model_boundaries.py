"""The edges of an account as the rest of the product sees it (docflow/accounts/model.py): a
valid account that is no IBAN and no UK account matches no registered IBAN, however alike.
Each test names the boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from docflow.accounts import OTHER, US, Account

REGISTERED = ["GB82WEST12345698765432", "US00021000021987654321"]


def test_a_valid_account_with_no_iban_matches_only_as_a_uk_one() -> None:
    """A US routing number and account, or a checked New Zealand account, says no IBAN: it
    is none of the registered ones (the bank-details check holds it as unregistered)."""
    assert not Account(US, "021000021987654321", True).matches(REGISTERED)
    assert not Account(OTHER, "0100000000000000", True).matches(REGISTERED)
    assert not Account(US, "021000021987654321", True).matches([])
