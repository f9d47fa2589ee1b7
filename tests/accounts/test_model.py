"""An account as the rest of the product sees it (docflow/accounts/model.py): one parse for a
value written alone, the registry's compact form, a masked form that never shows more than
its last four characters, and a national account matched to the IBAN registered for it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docflow.accounts import DE, IBAN, OTHER, UK, Account, normalize_account, parse_account


def test_parse_an_account_written_alone() -> None:
    assert parse_account("gb82-west-1234-5698-7654-32") == Account(
        IBAN, "GB82WEST12345698765432", True, "GB82WEST12345698765432"
    )
    bad = parse_account("DE89 3704 0044 0532 0130 01")
    assert bad is not None and (bad.kind, bad.valid, bad.iban) == (IBAN, False, None)
    national = parse_account("12345678 / 021000021")
    assert national is not None and (national.kind, national.valid) == (OTHER, False)
    assert parse_account("") is None and parse_account("  n/a ") is None


def test_the_compact_form_drops_every_separator() -> None:
    assert normalize_account(" de89\u00a03704-0044.0532/0130\u200b00 ") == "DE89370400440532013000"


def test_a_national_account_matches_the_iban_registered_for_it() -> None:
    registered = ["DE89370400440532013000", "GB82WEST60161331926819"]
    assert Account(DE, "37040044532013000", True, "DE89370400440532013000").matches(registered)
    assert Account(UK, "60161331926819", True).matches(registered)
    assert not Account(UK, "60161331926810", True).matches(registered)
    assert not Account(UK, "60161331926819", False).matches(registered)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from((IBAN, UK, "us", DE, OTHER)),
    st.text(alphabet="0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=34),
)
def test_the_masked_form_never_shows_more_than_the_last_four(kind: str, value: str) -> None:
    masked = Account(kind, value, False).masked
    shown = "".join(c for c in masked if c.isalnum())
    prefix = value[:2] if kind == IBAN else {UK: "UK", "us": "US", DE: "DE"}.get(kind, "")
    assert len(shown) <= len(prefix) + 4
    if len(value) < 8 and kind != IBAN:
        assert shown == prefix  # too short to keep four hidden: nothing of it shown
