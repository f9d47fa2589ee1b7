"""The account reader's IBAN finder (docflow/accounts/ibans.py): every printed form of an IBAN
is found with its value, and words that only begin like one are not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docflow.accounts import IBAN
from docflow.accounts.ibans import find_ibans, find_in_text
from docflow.accounts.lines import Segment
from tests.accounts.renderings import IBANS, rendering

GB = "GB82WEST12345698765432"


def found(text: str) -> list[tuple[str, bool]]:
    return [(a.value, a.valid) for a, _s, _e in find_in_text(text)]


def test_each_printed_form_is_the_same_iban() -> None:
    forms = [
        "GB82 WEST 1234 5698 7654 32",
        "GB82-WEST-1234-5698-7654-32",
        "GB82.WEST.1234.5698.7654.32",
        "GB82/WEST/1234/5698/7654/32",
        "GB82 WEST 123456 98765432",
        "GB82WEST12345698765432",
        "gb82 west 1234 5698 7654 32",
        "GB82\u00a0WEST\u00a01234\u00a05698\u00a07654\u00a032",  # no-break spaces
        "GB82\u2009WEST\u20091234\u20095698\u20097654\u200932",  # thin spaces
        "GB82\u200bWEST\u200b1234\u200b5698\u200b7654\u200b32",  # zero-width spaces
        "GB82\u2013WEST\u20131234\u20135698\u20137654\u201332",  # en dashes
        "ＧＢ８２ ＷＥＳＴ １２３４ ５６９８ ７６５４ ３２",  # full-width
        "G B 8 2 W E S T 1 2 3 4 5 6 9 8 7 6 5 4 3 2",
        "GB82 - WEST - 1234 - 5698 - 7654 - 32",
    ]
    for form in forms:
        assert found(f"IBAN: {form} BIC NWBKGB2L") == [(GB, True)], form


def test_offsets_cover_the_printed_account() -> None:
    text = "Bitte zahlen auf IBAN GB82-WEST-1234-5698-7654-32, danke"
    ((account, start, end),) = find_in_text(text)
    assert text[start:end] == "GB82-WEST-1234-5698-7654-32"
    assert account.masked == "GB•••• 5432"


def test_an_iban_broken_over_two_lines_is_joined() -> None:
    assert found("IBAN: GB82 WEST 1234\n5698 7654 32\nBIC NWBKGB2L") == [(GB, True)]
    assert found("IBAN: GB82 WEST 1234 5698\n    7654 32") == [(GB, True)]


def test_a_continuation_is_taken_from_the_column_under_it() -> None:
    """Two columns: the IBAN's rest is in the right column of the next line, another
    column's text at the line's start."""
    lines = [
        [Segment("Blauwal GmbH", 0.05, 0.3), Segment("IBAN GB82 WEST 1234", 0.5, 0.8)],
        [Segment("Kaiweg 12", 0.05, 0.2), Segment("5698 7654 32", 0.5, 0.65)],
    ]
    assert [(a.value, a.valid) for a, _p in find_ibans(lines)] == [(GB, True)]


def test_a_bad_check_digit_is_an_iban_that_fails_its_check() -> None:
    assert found("IBAN DE89 3704 0044 0532 0130 01") == [("DE89370400440532013001", False)]


def test_words_that_begin_like_an_iban_are_none() -> None:
    assert found("DE 12345 Berlin, AT 10 am, IT 12 months") == []
    assert found("USt-IdNr.: DE812345673") == []  # a VAT number
    assert found("Page 1 of 2, ES 2024") == []


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(IBANS).flatmap(lambda v: st.tuples(st.just(v), rendering(v))))
def test_any_rendering_of_a_valid_iban_is_found_whole(case: tuple[str, str]) -> None:
    value, printed = case
    got = [(a.kind, a.value, a.valid) for a, _s, _e in find_in_text(f"Pay to: {printed} thanks")]
    assert got == [(IBAN, value, True)], printed
