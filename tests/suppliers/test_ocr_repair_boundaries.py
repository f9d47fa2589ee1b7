"""The edges of the OCR repairs (`docflow/suppliers/ocr_repair.py`), each test naming the
boundary it guards (bench/README.md, "Mutation testing"): how many letters an id's repair may
put back and that a repair is a change; how much of a token must be digits for a date's repair
(three digits, half the token but its separators); that an amount's token holds no letter OCR
does not confuse with a digit."""

from __future__ import annotations

from docflow.suppliers.ocr_repair import amount_repaired, date_repaired, repaired_id


def test_an_id_takes_one_repair_and_at_most_four() -> None:
    assert repaired_id("EO12", r"E\d{3}") == "E012"  # one letter put back is a repair
    assert repaired_id("OOOO", r"\d{4}") == "0000"
    assert repaired_id("OOOOO", r"\d{5}") is None  # five is past MAX_REPAIRS
    assert repaired_id("E012", r"E\d{3}") is None  # nothing to put back
    # A token that fits its shape as it stands needs no repair, and is given none here.
    assert repaired_id("Es12", r"E[A-Z]\d{2}") is None


def test_a_date_is_repaired_from_three_digits_and_half_its_token_but_separators() -> None:
    assert date_repaired("am 1O.2O.O3") == "am 10.20.03"  # 3 digits of 6: half
    assert date_repaired("am 1O/2O/O3") == "am 10/20/03"
    assert date_repaired("am 1O.2O.O3O") == "am 1O.2O.O3O"  # 3 of 7: under half
    assert date_repaired("am 1O././2") == "am 1O././2"  # 2 digits: too few
    assert date_repaired("am O1.O2.2O26") == "am 01.02.2026"


def test_an_amount_s_token_with_a_letter_no_digit_looks_like_is_left_alone() -> None:
    assert amount_repaired("1X9O,00 EUR") == "1X9O,00 EUR"
    assert amount_repaired("1.19O,OO EUR") == "1.190,00 EUR"
