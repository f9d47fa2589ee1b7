"""The card detector finds the numbers card issuers give, not every Luhn-valid digit run: a
privacy stage for a SIRET, a GTIN or a payment reference sent real invoices to a person for
nothing (four of the labelled real scans). The runs below are the ones those scans print."""

from __future__ import annotations

import pytest

from docflow.rules.card_numbers import luhn_ok
from docflow.rules.detectors import find_cards


def cards(text: str) -> list[str]:
    return [f.masked for f in find_cards(text)]


@pytest.mark.parametrize(
    "number",
    [
        "4111 1111 1111 1111",  # Visa
        "5555 5555 5555 4444",  # Mastercard
        "2223 0031 2200 3222",  # Mastercard 2-series
        "3782 822463 10005",  # American Express
        "3056 9309 0259 04",  # Diners Club
        "6011 1111 1111 1117",  # Discover
        "3530 1113 3330 0000",  # JCB
        "6200 0000 0000 0005",  # UnionPay
        "710212618214000041",  # a fuel card (ENI's Nr carta)
    ],
)
def test_an_issued_card_number_is_found(number: str) -> None:
    assert cards(f"Paid with card {number} on 3 May") == [f"•••• {number.replace(' ', '')[-4:]}"]


@pytest.mark.parametrize(
    ("text", "run"),
    [
        # SIRETs are Luhn-valid by design
        ("SIRET : 12345678200077 - DUNS : DUNS123548", "12345678200077"),
        ("SIRET 36252187900035", "36252187900035"),  # in a Diners range, named as a SIRET
        ("TB100A4\n4012345001235 (GTIN)", "4012345001235"),  # an EAN, like an old Visa
        ("Betaaloverzichtnummer: 3906541086000", "3906541086000"),  # a payment reference
        ("Account 1234567812345670", "1234567812345670"),  # no network issues from 1
    ],
)
def test_a_luhn_valid_run_no_issuer_gives_is_no_card(text: str, run: str) -> None:
    assert luhn_ok(run)  # each passes the check the detector used to stop at
    assert cards(text) == []
