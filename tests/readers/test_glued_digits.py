"""A text layer's text glues digits the page prints apart (PDFium gives `4111.1111.1111.11112`
for a card and the quantity a column to its right); the reading's words keep them apart, and
`digits_apart` puts the space back, so the card detector finds the card in the text as in the
words (issue 56, item 5). Real PDFs drawn with reportlab, read by the real text-layer reader."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from docflow.pdf import open_pdf
from docflow.readers.textlayer import TextLayerReader
from docflow.rules.detectors import find_cards
from docflow.rules.glued_digits import digits_apart
from tests.kit.pdfgen import Placed, columns_pdf

CARDS = ["4111.1111.1111.1111", "5555/5555/5555/4444", "3782 822463 10005", "6011 1111 1111 1117"]


def line_items() -> bytes:
    lines: list[list[Placed]] = [
        [(0.08, "Description"), (0.58, "Qty"), (0.68, "Unit price"), (0.9, "Amount", "r")],
        *([(0.08, f"Card {c}"), (0.58, "2"), (0.68, "10.00"), (0.9, "20.00", "r")] for c in CARDS),
        [(0.08, "Total due: 80.00 USD")],
    ]
    return columns_pdf([[[(0.08, "ACME SUPPLIES LTD")], [(0.08, "INVOICE")], *lines]])


def test_a_quantity_glued_to_a_card_in_the_text_layer_is_set_apart() -> None:
    with open_pdf(line_items()) as pdf:
        page = TextLayerReader().read(pdf, 1)
    # PDFium's text glues each card to its quantity: no card is found in it.
    assert "4111.1111.1111.11112" in page.text
    assert list(find_cards(page.text)) == []
    apart = digits_apart(page.text, [w.text for w in page.words])
    assert [f.masked for f in find_cards(apart)] == [
        "•••• 1111",
        "•••• 4444",
        "•••• 0005",
        "•••• 1117",
    ]
    # Nothing but the spaces changed.
    assert "".join(apart.split()) == "".join(page.text.split())
    assert "Card 4111.1111.1111.1111 2 10.00 20.00" in apart


def test_only_digits_that_touch_are_set_apart_and_foreign_words_change_nothing() -> None:
    text = "Invoicenumber 123456\nTotal 10.0020.00"
    words = ["Invoice", "number", "1234", "56", "Total", "10.00", "20.00"]
    assert digits_apart(text, words) == "Invoicenumber 1234 56\nTotal 10.00 20.00"
    assert digits_apart(text, ["Invoice", "numbers"]) == text  # not this text's words
    assert digits_apart(text, []) == text
    # Words capped before the end of the page: the part they cover is set apart.
    assert digits_apart(text, words[:4]) == "Invoicenumber 1234 56\nTotal 10.0020.00"


@given(st.lists(st.text("0123456789.x", min_size=1, max_size=6), min_size=1, max_size=12))
def test_setting_apart_only_ever_adds_spaces_between_two_words(words: list[str]) -> None:
    glued = "".join(words)
    apart = digits_apart(glued, words)
    assert apart.replace(" ", "") == glued
    assert apart.count(" ") == sum(
        1 for a, b in itertools.pairwise(words) if a[-1].isdigit() and b[0].isdigit()
    )
