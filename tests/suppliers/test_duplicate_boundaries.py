"""The edges of the duplicate keys (`docflow/suppliers/duplicate_keys.py`) and of the claims
table's decisions (`docflow/suppliers/duplicates.py`): a total's third decimal rounds as the
page reader and a reviewer's correction round it, a key is made only from values read, the
window is a week either side and not a day more, and each holder is answered as the module
says. Each test names the boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import example, given
from hypothesis import strategies as st

from docflow.extract.parse import format_amount
from docflow.suppliers.duplicate_keys import amount_key

AMOUNTS = st.decimals(
    min_value=Decimal("-1000000"), max_value=Decimal("1000000"), places=3, allow_nan=False
)


@given(AMOUNTS)
@example(Decimal("1100.005"))
@example(Decimal("1100.015"))
@example(Decimal("-0.125"))
def test_a_totals_third_decimal_rounds_as_the_page_reader_rounds_it(value: Decimal) -> None:
    """The rounding's edge: a total the reader wrote (`format_amount`, half to even) and the
    same total keyed from three decimals must be one key, or a copy printing `1100.005`
    keys apart from the bill read as `1100.00`."""
    assert amount_key(str(value)) == format_amount(value)


def test_half_a_cent_rounds_to_the_even_cent() -> None:
    assert amount_key("1100.005") == "1100.00"
    assert amount_key("1100.015") == "1100.02"
    assert amount_key("1.100,005") == "1100.00"
