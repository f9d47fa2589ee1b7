"""A card number is found however it is printed (issue 56, item 5): its digit groups joined by
any separator a person or a typesetter uses (a space of any width, a dot, a slash, a hyphen or
dash, an invisible format character), in any grouping, and with other digit groups printed
right before or after it (a line item's quantity and amounts), which join it into a longer run
that fails Luhn as a whole. What the uploader can vary is property-tested; the detector is held
to a brute-force reading of its own rule, and numbers no issuer gives stay unfound."""

from __future__ import annotations

import itertools
import re
import sys
import unicodedata

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from docflow.rules.card_numbers import issued_card, luhn_ok
from docflow.rules.detectors import find_cards

# The separators a number's groups are printed with, by kind: every Unicode space separator
# (category Zs, read from the Unicode database, not from the detector), dashes, dots, slashes.
SPACES = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if unicodedata.category(c) == "Zs")
KINDS = (SPACES, "-\u2010\u2011\u2012\u2013\u2014\u2212", ".", "/")
SEPARATORS = "".join(KINDS)
INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"


def kind_of(gap: str) -> int | None:
    """Which of KINDS a gap's separator is; None for invisible characters alone."""
    return next((i for i, chars in enumerate(KINDS) if any(c in chars for c in gap)), None)


# Prefixes and lengths of numbers the networks issue (a sample of the detector's table).
NETWORKS = [
    ("4", 16),  # Visa
    ("4", 19),
    ("51", 16),  # Mastercard
    ("55", 16),
    ("2221", 16),  # Mastercard's 2-series
    ("34", 15),  # American Express
    ("37", 15),
    ("300", 14),  # Diners Club
    ("36", 14),
    ("3528", 16),  # JCB
    ("6011", 16),  # Discover
    ("62", 17),  # UnionPay
    ("7", 18),  # a fuel card
]


def with_check_digit(body: str) -> str:
    """`body` and the digit that makes it pass Luhn."""
    return next(body + d for d in "0123456789" if luhn_ok(body + d))


@st.composite
def card_numbers(draw: st.DrawFn) -> str:
    prefix, length = draw(st.sampled_from(NETWORKS))
    middle = draw(
        st.text("0123456789", min_size=length - 1 - len(prefix), max_size=length - 1 - len(prefix))
    )
    number = with_check_digit(prefix + middle)
    assume(issued_card(number))  # not one digit repeated
    return number


@st.composite
def grouped(draw: st.DrawFn, digits: str) -> list[str]:
    """`digits` cut into groups anywhere."""
    cuts = draw(st.sets(st.integers(1, len(digits) - 1), max_size=len(digits) - 1))
    edges = [0, *sorted(cuts), len(digits)]
    return [digits[a:b] for a, b in itertools.pairwise(edges)]


def gap(draw: st.DrawFn, kind: str = SEPARATORS) -> str:
    """What a person or a PDF writer prints between two digit groups of one number: a
    separator of `kind`, with invisible characters or without, or invisible characters alone."""
    return draw(
        st.one_of(
            st.sampled_from(kind),
            st.tuples(st.sampled_from(INVISIBLE), st.sampled_from(kind)).map("".join),
            st.sampled_from(INVISIBLE),
        )
    )


def joined(draw: st.DrawFn, groups: list[str], kind: str = SEPARATORS) -> str:
    out = groups[0]
    for group in groups[1:]:
        out += gap(draw, kind) + group
    return out


# Quantities, unit prices and amounts a line item prints beside a card number.
FIGURES = st.one_of(
    st.integers(1, 999).map(str),
    st.tuples(st.integers(0, 99_999), st.integers(0, 99)).map(lambda p: f"{p[0]}.{p[1]:02d}"),
    st.text("0123456789", min_size=1, max_size=6),
)


@st.composite
def card_in_a_line(draw: st.DrawFn) -> tuple[str, int, int, str]:
    """A line item printing a card in any form with figures before and after it, joined to it
    by separators: (text, where the card starts, where it ends, the card)."""
    card = draw(card_numbers())
    printed = joined(draw, draw(grouped(card)), draw(st.sampled_from(KINDS)))
    before = draw(st.lists(FIGURES, max_size=3))
    after = draw(st.lists(FIGURES, max_size=3))
    head = "Card payment "
    for figure in before:
        head += figure + draw(st.sampled_from(SEPARATORS))
    tail = ""
    for figure in after:
        tail += draw(st.sampled_from(SEPARATORS)) + figure
    return f"{head}{printed}{tail} EUR", len(head), len(head) + len(printed), card


@given(card_in_a_line())
@settings(max_examples=400, deadline=None)
@example(("4111.1111.1111.1111 2 x 10.00", 0, 19, "4111111111111111"))
@example(("Card 4111 1111 1111 1111 2", 5, 24, "4111111111111111"))
@example(("4111/1111/1111/1111", 0, 19, "4111111111111111"))
@example(("4111\u00a01111\u00a01111\u00a01111", 0, 19, "4111111111111111"))
@example(("1 3782 822463 10005 19.99", 2, 19, "378282246310005"))
def test_a_card_in_any_form_and_company_is_found_whole(line: tuple[str, int, int, str]) -> None:
    text, start, end, card = line
    covering = [f for f in find_cards(text) if f.start <= start and f.end >= end]
    assert covering, f"{text!r}: the card {card} is not covered"
    # What the mask leaves readable of the line shows no more of the card than its last four.
    shown = text[: covering[0].start] + covering[0].masked + text[covering[0].end :]
    assert card[:-4] not in re.sub(r"\D", "", shown)


def issued_windows(groups: list[str], gaps: list[str]) -> list[tuple[int, int]]:
    """The rule, read by brute force: every window of whole groups holding 13 to 19 digits,
    printed with one kind of separator, that is a number an issuer gives, as (first group,
    last group + 1)."""
    return [
        (a, b)
        for a in range(len(groups))
        for b in range(a + 1, len(groups) + 1)
        if 13 <= len("".join(groups[a:b])) <= 19
        and issued_card("".join(groups[a:b]))
        and len({kind_of(g) for g in gaps[a : b - 1]} - {None}) <= 1
    ]


@st.composite
def digit_runs(draw: st.DrawFn) -> list[str]:
    """Digit groups as a page prints them: cards, parts of cards and figures, mixed."""
    pieces = draw(
        st.lists(
            st.one_of(
                card_numbers().flatmap(grouped),
                FIGURES.map(lambda f: f.split(".")),
                st.text("0123456789", min_size=1, max_size=8).map(lambda d: [d]),
            ),
            min_size=1,
            max_size=6,
        )
    )
    return [g for piece in pieces for g in piece]


@given(digit_runs(), st.data())
@settings(max_examples=400, deadline=None)
def test_the_findings_are_the_issued_windows_and_nothing_else(
    groups: list[str], data: st.DataObject
) -> None:
    gaps = [gap(data.draw) for _ in groups[1:]]
    text = "Ref " + "".join(g + s for g, s in zip(groups, [*gaps, ""], strict=True)) + " paid"
    starts, at = [], 4
    for group, after in zip(groups, [*gaps, ""], strict=True):
        starts.append(at)
        at += len(group) + len(after)
    windows = issued_windows(groups, gaps)
    # Every digit of every issued window is inside a finding ...
    for a, b in windows:
        first, last = starts[a], starts[b - 1] + len(groups[b - 1])
        assert any(f.start <= first and f.end >= last for f in find_cards(text)), (text, a, b)
    # ... and every finding is made of issued windows only.
    covered = set()
    for a, b in windows:
        covered.update(range(starts[a], starts[b - 1] + len(groups[b - 1])))
    for finding in find_cards(text):
        digits = {i for i in range(finding.start, finding.end) if text[i].isdigit()}
        assert digits <= covered, (text, finding)


@given(st.data(), st.text("019", min_size=13, max_size=40))
@settings(max_examples=200, deadline=None)
def test_digits_no_issuer_range_starts_with_are_never_a_card(
    data: st.DataObject, digits: str
) -> None:
    # No network issues numbers starting 0, 1 or 9: however these are cut and joined, no card.
    text = "Ref " + joined(data.draw, data.draw(grouped(digits))) + " paid"
    assert list(find_cards(text)) == []


@given(card_numbers(), st.integers(0, 18), st.integers(1, 9), st.sampled_from(SEPARATORS))
@settings(max_examples=300, deadline=None)
def test_a_mistyped_card_is_no_card(card: str, where: int, shift: int, sep: str) -> None:
    where %= len(card)
    typo = card[:where] + str((int(card[where]) + shift) % 10) + card[where + 1 :]
    assert not luhn_ok(typo)  # one changed digit always breaks Luhn
    # Whole, or (up to 16 digits) in groups of four: no part of whole groups has 13 digits.
    fours = sep.join(typo[i : i + 4] for i in range(0, len(typo), 4))
    for printed in (typo, fours) if len(typo) <= 16 else (typo,):
        assert list(find_cards(f"Paid with {printed} on 3 May")) == []


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("Card 4111.1111.1111.1111 paid", "Card •••• 1111 paid"),
        ("Card 4111/1111/1111/1111 paid", "Card •••• 1111 paid"),
        ("Card 4111\u00a01111\u00a01111\u00a01111 paid", "Card •••• 1111 paid"),
        ("Card 4111\u202f1111\u202f1111\u202f1111 paid", "Card •••• 1111 paid"),
        ("Card 4111\u20131111\u20131111\u20131111 paid", "Card •••• 1111 paid"),
        ("Card 4111\u200b1111\u200b1111\u200b1111 paid", "Card •••• 1111 paid"),
        ("Card ４１１１ １１１１ １１１１ １１１１ paid", "Card •••• 1111 paid"),
        # a line item: the card, then its quantity and amounts
        ("4111.1111.1111.1111 2 x 10.00", "•••• 1111 2 x 10.00"),
        ("4111 1111 1111 1111 2 10.00 20.00", "•••• 1111 2 10.00 20.00"),
        ("2 4111111111111111 19.99", "2 •••• 1111 19.99"),
        # two cards on one line are two findings
        ("4111 1111 1111 1111, 5555 5555 5555 4444", "•••• 1111, •••• 4444"),
    ],
)
def test_cards_in_the_forms_the_issue_names_are_masked(text: str, masked: str) -> None:
    out, at = "", 0
    for finding in find_cards(text):
        out += text[at : finding.start] + finding.masked
        at = finding.end
    assert out + text[at:] == masked


@pytest.mark.parametrize(
    "text",
    [
        "4111 1111\n1111 1111",  # a line break ends a number: a page's lines are not joined
        "4111 1111\t1111 1111",  # and so does a tab (a table's columns)
        "4111,1111,1111,1111",  # a comma is a decimal or a list, never inside a card
        "4111 1111 1111 111",  # 15 digits: no Visa
        "Total 1.234.567,89 EUR 12 x 4.50 19.99 2 1 1",
        # Two kinds of separator are two numbers: a date and the number after it, on a real
        # Brazilian scan (30052021143560 is a Luhn-valid Diners length).
        "[001 3005/2021 143560",
    ],
)
def test_what_ends_a_number_is_no_separator(text: str) -> None:
    assert list(find_cards(text)) == []


def test_a_long_run_of_digit_groups_is_searched_in_bounded_time() -> None:
    # A crafted text layer of half a million one-digit groups: windows are counted, not
    # re-read, so this takes about a second rather than minutes (no wall-clock assertion:
    # the count of findings is what is checked).
    text = " ".join("4" * 250_000) + " " + "4111 1111 1111 1111"
    found = list(find_cards(text))
    assert found and found[-1].end == len(text)
