"""The edges of the account reader (`docflow/accounts/`): the shortest and the longest value
shaped like an IBAN, the lengths of each national account's parts one either side, half of an
account (its validity `False`, never unknown), and a check that raises read as a failed one.
Each test names the boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

import pytest

from docflow.accounts import DE, IBAN, OTHER, UK, US, Account, parse_account, read_page
from docflow.accounts.labels import MANDATE, cues
from docflow.accounts.lines import text_lines
from docflow.accounts.national import _valid, national_accounts

NORWAY = "NO9386011117947"  # the shortest IBAN: 15 characters


def accounts(text: str) -> list[tuple[str, str, bool, str | None]]:
    return [(a.kind, a.value, a.valid, a.iban) for a, _p in national_accounts(text_lines(text))]


@pytest.mark.parametrize(
    ("raw", "kind", "valid"),
    [
        (NORWAY, IBAN, True),  # 15: the shortest length an IBAN has
        ("NO938601111794", OTHER, False),  # 14: no IBAN's shape
        ("LC55HEMM000100010012001200023015", IBAN, True),  # 32, the longest issued
        ("AB12" + "3" * 30, IBAN, False),  # 34: the longest ISO 13616 allows
        ("AB12" + "3" * 31, OTHER, False),  # 35
        ("N19386011117947", OTHER, False),  # a digit where the country's letters are
        ("NOX386011117947", OTHER, False),  # a letter where the check digits are
        ("NO9X86011117947", OTHER, False),
        ("ÑO9386011117947", OTHER, False),  # no ASCII
        ("NO93-8601-1117-947", IBAN, True),  # separators go first
    ],
)
def test_a_value_is_an_iban_by_its_shape_from_15_to_34_characters(
    raw: str, kind: str, valid: bool
) -> None:
    found = parse_account(raw)
    assert found is not None
    assert (found.kind, found.valid) == (kind, valid)
    assert found.value == raw.replace("-", "").upper()
    assert found.iban == (found.value if valid else None)


@pytest.mark.parametrize(
    ("account", "want"),
    [
        ("12345", (UK, "601613", False)),  # 5 digits: no UK account number
        ("123456", (UK, "60161300123456", True)),  # 6: padded to 8
        ("1234567", (UK, "60161301234567", True)),
        ("12345678", (UK, "60161312345678", True)),
        ("123456789", (UK, "601613", False)),  # 9: no UK account number
    ],
)
def test_a_uk_account_number_has_six_to_eight_digits(
    account: str, want: tuple[str, str, bool]
) -> None:
    (found,) = accounts(f"Sort code: 60-16-13   Account number: {account}")
    assert found[:3] == want


def test_half_of_an_account_is_invalid_not_unknown() -> None:
    """A sort code, a routing number or a BLZ alone: `valid` is False (the read model shows
    `valid: false`), whatever kind it is."""
    for text, kind, value in (
        ("Sort code: 60-16-13", UK, "601613"),
        ("Routing #: 021000021", US, "021000021"),
        ("BLZ: 370 400 44", DE, "37040044"),
    ):
        ((found_kind, found_value, valid, iban),) = accounts(text)
        assert (found_kind, found_value, iban) == (kind, value, None)
        assert valid is False, text


def test_a_check_that_raises_is_a_check_that_failed() -> None:
    def refuses(_value: str) -> bool:
        raise ValueError("odd input")

    assert _valid(refuses, "x") is False
    assert _valid(lambda _v: 1, "x") is True
    assert _valid(lambda _v: None, "x") is False


def test_an_account_no_check_recognizes_keeps_its_value_to_be_masked() -> None:
    found = parse_account("12345678 / 021000021")
    assert found == Account(OTHER, "12345678021000021", False)
    assert found.masked == "•••• 0021"


def test_a_negation_counts_within_24_characters_before_the_words_it_negates() -> None:
    """`no` 24 characters before `direct debit` negates it (no mandate); 25 do not."""
    near = "no " + "x" * 20 + " direct debit"  # `no` starts 24 characters before
    far = "no " + "x" * 21 + " direct debit"  # 25
    assert [c.kind for c in cues([near])] == []
    assert [c.kind for c in cues([far])] == [MANDATE]
    assert [c.kind for c in cues(["direct debit"])] == [MANDATE]


def test_a_whole_national_account_beside_the_iban_holding_it_is_still_read() -> None:
    """Only half of one (a sort code alone) is taken for the IBAN's bank code printed again:
    a whole, valid UK account with the GB IBAN that ends in it is an account of its own."""
    text = "IBAN GB29 NWBK 6016 1331 9268 19\nSort code: 60-16-13   Account number: 31926819"
    kinds = [(f.account.kind, f.account.valid) for f in read_page(text_lines(text)).found]
    assert kinds == [(IBAN, True), (UK, True)]
    half = "IBAN GB29 NWBK 6016 1331 9268 19\nSort code: 60-16-13"
    kinds = [(f.account.kind, f.account.valid) for f in read_page(text_lines(half)).found]
    assert kinds == [(IBAN, True)]
    # Half of one that no IBAN on the page holds is read, and cannot be read whole.
    other = "IBAN GB29 NWBK 6016 1331 9268 19\nSort code: 20-00-00"
    kinds = [(f.account.kind, f.account.valid) for f in read_page(text_lines(other)).found]
    assert kinds == [(IBAN, True), (UK, False)]
