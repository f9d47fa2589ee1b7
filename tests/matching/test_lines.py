"""Invoice lines paired with the order's: by item number where both print one (and never by
words where both print different ones), else by the same words, else by words alike, the
nearest price breaking ties; each order line billed by one invoice line."""

from __future__ import annotations

from decimal import Decimal

from docflow.matching.lines import (
    FUZZY,
    ITEM,
    WORDS,
    Line,
    item_key,
    lines_from_einvoice,
    lines_from_rows,
    pair_lines,
)
from tests.matching.orders import line


def test_an_item_number_pairs_whatever_the_words_say() -> None:
    order = [line(1, "A-100", "Paper A4", "40", "25.00"), line(2, "B-220", "Toner", "6", "89.90")]
    invoice = [line(1, "B-220", "Cartouche de toner noir", "6", "89.90")]
    (pair,) = pair_lines(invoice, order)
    assert (pair.order, pair.how) == (1, ITEM)


def test_two_different_item_numbers_are_two_items_even_with_the_same_words() -> None:
    order = [line(1, "A-100", "Paper A4, box of 5 reams", "40", "25.00")]
    invoice = [line(1, "A-101", "Paper A4, box of 5 reams", "40", "25.00")]
    assert pair_lines(invoice, order)[0].order is None


def test_the_same_words_pair_apart_from_case_spacing_and_punctuation() -> None:
    order = [line(1, "", "Paper A4, box of 5 reams", "40", "25.00")]
    invoice = [line(1, "", "PAPER  A4 box of 5 reams.", "40", "25.00")]
    (pair,) = pair_lines(invoice, order)
    assert (pair.order, pair.how) == (0, WORDS)


def test_words_alike_pair_above_the_score_and_not_below() -> None:
    order = [line(1, "", "Toner cartridge black", "6", "89.90")]
    alike = [line(1, "", "Toner cartridge, black (HP 26A)", "6", "89.90")]
    unlike = [line(1, "", "Catering for the annual party", "6", "89.90")]
    assert pair_lines(alike, order)[0].how == FUZZY
    assert pair_lines(unlike, order)[0].order is None
    misspelt = [line(1, "", "Toner cartrige blak", "6", "89.90")]
    assert pair_lines(misspelt, order)[0].how == FUZZY
    assert pair_lines(misspelt, order, min_score=100)[0].order is None


def test_among_lines_alike_the_nearest_price_wins_and_each_order_line_is_billed_once() -> None:
    order = [line(1, "", "Paper A4", "10", "25.00"), line(2, "", "Paper A4", "10", "31.00")]
    invoice = [line(1, "", "Paper A4", "10", "30.90"), line(2, "", "Paper A4", "10", "25.10")]
    pairs = pair_lines(invoice, order)
    assert [p.order for p in pairs] == [1, 0]
    third = pair_lines([*invoice, line(3, "", "Paper A4", "10", "25.00")], order)
    # Three lines for two: each order line is billed by one (the nearest price), one is left.
    assert sorted(p.order for p in third if p.order is not None) == [0, 1]
    assert [p.invoice for p in third if p.order is None] == [1]


def test_a_pages_rows_and_an_einvoices_lines_read_alike() -> None:
    rows = [
        {"item_id": "a 100", "description": "Paper", "quantity": "40", "unit_price": "25.00"},
        {"description": "  ", "quantity": "1"},  # no words, no item: no line
        {"description": "Toner", "quantity": "x", "amount": "89.90"},
    ]
    read = lines_from_rows(rows)
    assert [x.number for x in read] == [1, 2]
    assert read[0].item == item_key("A-100") and read[0].item_id == "a 100"
    assert read[1].quantity is None
    data = [
        {
            "description": "Paper",
            "quantity": "40",
            "unit_price": "25",
            "net": "1000",
            "item_id": "A-100",
        }
    ]
    (einvoice,) = lines_from_einvoice(data)
    assert einvoice.item == read[0].item and einvoice.amount == Decimal(1000)


def test_a_price_is_the_amount_over_the_quantity_where_no_unit_price_is_printed() -> None:
    assert Line(1, "x", Decimal(4), None, Decimal("10.00")).price == Decimal("2.5000")
    assert Line(1, "x", None, None, Decimal("10.00")).price is None
    assert Line.from_json(Line(3, "x", Decimal(1), Decimal(2), None, "A1").to_json()) == Line(
        3, "x", Decimal(1), Decimal(2), None, "A1"
    )
