"""Labelled national accounts (docflow/accounts/national.py): each found with both its parts
near each other, half of one is an account that cannot be read whole, and a number without
its label is none."""

from __future__ import annotations

from docflow.accounts import DE, OTHER, UK, US, read_page
from docflow.accounts.lines import Segment, text_lines
from docflow.accounts.national import national_accounts


def accounts(text: str) -> list[tuple[str, str, bool, str | None]]:
    return [(a.kind, a.value, a.valid, a.iban) for a, _p in national_accounts(text_lines(text))]


def test_a_uk_sort_code_and_account_number_on_one_line_or_two() -> None:
    want = [(UK, "60161331926819", True, None)]
    assert accounts("Sort code: 60-16-13   Account number: 31926819") == want
    assert accounts("Sort Code 60 16 13\nAccount No. 31926819") == want
    assert accounts("Account no: 31926819, sort-code 601613") == want


def test_a_us_routing_number_is_checked() -> None:
    assert accounts("Routing #: 021000021  Account #: 4567890123") == [
        (US, "0210000214567890123", True, None)
    ]
    # One digit off: the ABA check fails, the account is printed but not recognized.
    assert accounts("ABA: 021000022  Account number: 4567890123")[0][2] is False


def test_a_german_konto_with_its_blz_is_its_iban() -> None:
    iban = "DE89370400440532013000"
    assert accounts("Konto-Nr.: 532013000  BLZ: 370 400 44") == [
        (DE, "37040044532013000", True, iban)
    ]
    assert accounts("Kontonummer 0532013000\nBankleitzahl 37040044")[0][3] == iban
    # A bank code no bank has: printed, not recognized.
    assert accounts("Kto 532013000 BLZ 12345678")[0][2] is False


def test_other_national_numbers_python_stdnum_and_schwifty_check() -> None:
    assert accounts("CCC: 2100 0418 45 0200051332") == [
        (OTHER, "21000418450200051332", True, "ES9121000418450200051332")
    ]
    assert accounts("RIB : 30006 00001 12345678901 89")[0][3] == "FR7630006000011234567890189"
    assert accounts("RIB : 30006 00001 12345678901 88")[0][2] is False  # its key fails
    assert accounts("NIB: 0002 0123 1234 5678 9015 4")[0][3] == "PT50000201231234567890154"
    assert accounts("CBU: 2850590940090418135201") == [
        (OTHER, "2850590940090418135201", True, None)
    ]


def test_a_label_over_its_value_in_a_table_is_read_by_column() -> None:
    lines = [
        [Segment("Sort code", 0.1, 0.2), Segment("Account number", 0.4, 0.55)],
        [Segment("60-16-13", 0.1, 0.18), Segment("31926819", 0.4, 0.48)],
    ]
    got = [(a.kind, a.value) for a, _p in national_accounts(lines)]
    assert got == [(UK, "60161331926819")]


def test_a_number_without_its_bank_part_is_no_account() -> None:
    # A customer's account number with the supplier: no sort code, routing number or BLZ.
    assert accounts("Account number: 31926819") == []
    assert accounts("Kontoinhaber: Max Mustermann, Konto 12345") == []
    assert accounts("Kundenkonto 4711, Debitorennummer 63/00987654") == []


def test_half_an_account_is_one_that_cannot_be_read_whole() -> None:
    assert accounts("Sort code: 60-16-13") == [(UK, "601613", False, None)]
    # ... unless an IBAN on the page holds it (a footer printing both).
    page = read_page(text_lines("IBAN DE89 3704 0044 0532 0130 00  BLZ 370 400 44"))
    assert [(f.account.kind, f.account.valid) for f in page.found] == [("iban", True)]
