"""The edges of the card detector (`docflow/rules/card_numbers.py`, `detectors.py`): the first
and the last prefix of each issuer range, the shortest and the longest length each network
issues and one digit either side, a run of one digit repeated, and the other detectors' own
exclusions (an SSN's reserved areas, overlapping findings). Each test names the boundary it
guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

import pytest

from docflow.rules import card_numbers, detectors
from docflow.rules.card_numbers import CardSpan, card_spans, issued_card, luhn_ok
from docflow.rules.detectors import (
    DETECTORS,
    Finding,
    find_all,
    find_emails,
    find_ibans,
    find_ssns,
    iban_ok,
)


def luhn(body: str) -> str:
    """`body` with the check digit that makes it pass Luhn."""
    for digit in "0123456789":
        if luhn_ok(body + digit):
            return body + digit
    raise AssertionError(body)


def number(prefix: str, length: int) -> str:
    """A Luhn-valid number of `length` digits starting with `prefix` (not one digit repeated)."""
    body = (prefix + "1234567890" * 2)[: length - 1]
    return luhn(body)


# (first prefix, last prefix, the lengths issued) of each range, as the networks publish them.
RANGES = [
    ("4", "4", (16, 17, 18, 19)),
    ("51", "55", (16,)),
    ("2221", "2720", (16,)),
    ("2200", "2204", (16,)),
    ("34", "34", (15,)),
    ("37", "37", (15,)),
    ("300", "305", (14, 19)),
    ("36", "36", (14, 19)),
    ("38", "39", (14, 19)),
    ("3528", "3589", (16, 19)),
    ("6011", "6011", (16, 19)),
    ("644", "649", (16, 19)),
    ("65", "65", (16, 19)),
    ("62", "62", (16, 19)),
    ("50", "50", (16, 19)),
    ("56", "69", (16, 19)),
    ("81", "82", (16,)),
    ("7", "7", (16, 19)),
]


@pytest.mark.parametrize(("first", "last", "lengths"), RANGES)
def test_the_first_and_last_prefix_of_each_range_are_issued(
    first: str, last: str, lengths: tuple[int, ...]
) -> None:
    for prefix in (first, last):
        for length in (lengths[0], lengths[-1]):
            card = number(prefix, length)
            assert issued_card(card), (prefix, length)
            assert [c.last4 for c in card_spans(f"card {card} paid")] == [card[-4:]]


@pytest.mark.parametrize(
    ("prefix", "length"),
    [
        ("56", 15),  # Maestro's shortest issued is 16 here
        ("4", 15),  # Visa: 16 to 19
        ("4", 20),
        ("4", 13),  # no longer issued: a 13-digit run is an EAN
        ("34", 16),  # Amex: 15 only
        ("37", 14),
        ("55", 17),  # Mastercard: 16 only
        ("2720", 17),
        ("300", 13),  # Diners: 14 to 19
        ("81", 17),  # RuPay: 16 only
    ],
)
def test_a_length_one_past_what_the_network_issues_is_no_card(prefix: str, length: int) -> None:
    assert not issued_card(number(prefix, length))


@pytest.mark.parametrize(
    "prefix", ["56", "2220", "2721", "2199", "2205", "33", "35", "306", "3527", "3590", "90", "83"]
)
def test_the_prefix_just_outside_a_range_is_no_card(prefix: str) -> None:
    if prefix == "56":  # a sanity check of the helper: inside, it is a card
        assert issued_card(number(prefix, 16))
        return
    for length in range(13, 20):
        assert not issued_card(number(prefix, length)), (prefix, length)


def test_one_digit_repeated_is_no_card_though_it_passes_luhn() -> None:
    assert luhn_ok("0" * 16) and not issued_card("0" * 16)
    for digit in "0123456789":
        assert not issued_card(digit * 16), digit
    two = luhn("444444444444444")
    assert two != "4" * 16 and issued_card(two)  # two different digits are enough
    assert list(card_spans("ref 0000 0000 0000 0000")) == []


def test_luhn_doubles_every_second_digit_from_the_right() -> None:
    assert luhn_ok("4111111111111111")
    assert not luhn_ok("4111111111111112")
    assert luhn_ok("79927398713")  # the textbook example: a doubled 9 counts 9
    assert not luhn_ok("79927398710")
    assert luhn_ok("0") and luhn_ok("")


def test_a_window_starts_and_ends_on_its_groups_and_the_shortest_is_thirteen_digits() -> None:
    card = "4111111111111111"
    # Twelve digits before the card and a quantity after it: the card's window is found.
    found = list(card_spans(f"123456789012 {card[:4]} {card[4:8]} {card[8:12]} {card[12:]} 2"))
    assert [f.last4 for f in found] == ["1111"]
    # A run shorter than any issued length is never searched.
    assert list(card_spans("4111 1111 1111")) == []
    text = f"pay {card} now"
    assert list(card_spans(text)) == [CardSpan(4, 20, "1111")]


def test_an_ssn_is_refused_in_its_reserved_areas_groups_and_serials() -> None:
    def ssns(text: str) -> list[str]:
        return [f.masked for f in find_ssns(text)]

    assert ssns("SSN 123-45-6789") == ["•••-••-6789"]
    for reserved in ("000-45-6789", "666-45-6789", "900-45-6789", "123-00-6789", "123-45-0000"):
        assert ssns(f"SSN {reserved}") == [], reserved
    assert ssns("SSN 899-45-6789") == ["•••-••-6789"]  # 9 starts the reserved areas, 8 not
    assert ssns("1123-45-6789 and 123-45-67890") == []  # digits around it: no SSN


def test_an_email_keeps_its_first_letter_and_domain() -> None:
    found = list(find_emails("write to anna.k@example.co.uk today"))
    assert found == [Finding("email", 9, 29, "a•••@example.co.uk")]


def test_only_a_valid_iban_is_found_and_counted() -> None:
    assert iban_ok("DE89 3704 0044 0532 0130 00")
    assert not iban_ok("DE89 3704 0044 0532 0130 01")
    assert not iban_ok("60161331926819")  # an account, but no IBAN
    assert not iban_ok("no digits")
    assert [f.masked for f in find_ibans("IBAN DE89 3704 0044 0532 0130 01")] == []
    assert DETECTORS["iban"]("DE89370400440532013000 and GB82WEST12345698765432") == 2


def test_an_iban_is_found_where_it_is_printed_and_counted_once() -> None:
    """The IBAN finder's finding (detector, offsets in the text, masked value) and the count
    `_counter` makes of any finder (each finding once)."""
    text = "pay to DE89 3704 0044 0532 0130 00 now"
    assert list(find_ibans(text)) == [Finding("iban", 7, 34, "DE•••• 3000")]
    assert list(find_all(text)) == [Finding("iban", 7, 34, "DE•••• 3000")]
    count = detectors._counter(find_ibans)
    assert count("DE89370400440532013000 and GB82WEST12345698765432") == 2
    assert count(text) == 1 and count("") == 0


def test_a_reserved_ssn_does_not_hide_the_ones_after_it() -> None:
    found = list(find_ssns("000-45-6789 then 123-45-6789"))
    assert [(f.start, f.masked) for f in found] == [(17, "•••-••-6789")]


def test_overlapping_findings_keep_the_first_and_longest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "card 4111 1111 1111 1111, mail a@b.example, ssn 123-45-6789"
    assert [f.detector for f in find_all(text)] == ["card_number", "email", "us_ssn"]
    assert [f.detector for f in find_all(text, ("us_ssn",))] == ["us_ssn"]
    # Findings over the same characters: the one that starts first, then the longer.
    a, b, c, d = (
        Finding("a", 0, 10, ""),
        Finding("b", 5, 12, ""),
        Finding("c", 0, 12, ""),
        Finding("d", 10, 14, ""),
    )

    def kept(*findings: Finding) -> list[str]:
        monkeypatch.setitem(detectors.FINDERS, "fake", lambda _text: iter(findings))
        return [f.detector for f in find_all("", ("fake",))]

    assert kept(b, a) == ["a"]
    assert kept(a, c) == ["c"]
    assert kept(a, d) == ["a", "d"]  # touching is no overlap
    assert kept(d, b, a) == ["a", "d"]


def test_a_number_of_one_digit_repeated_is_no_card_in_any_length_a_network_issues() -> None:
    # `4` * 17 passes Luhn (nine 4s and eight doubled 8s: 100) and Visa issues 17 digits: only
    # the rule against one repeated digit keeps it from being a card, alone and in a window.
    assert luhn_ok("4" * 17) and 17 in range(16, 20)
    assert not issued_card("4" * 17)
    assert list(card_spans("ref " + "4" * 17)) == []
    assert list(card_spans("ref " + " ".join(["4444"] * 4) + " 4")) == []


def test_two_cards_printed_back_to_back_are_two_findings() -> None:
    # Windows that touch (one ends at the group the next starts at) do not overlap: each card
    # keeps its own span and its own last four.
    text = "4111 1111 1111 1111 5555 5555 5555 4444"
    assert list(card_spans(text)) == [CardSpan(0, 19, "1111"), CardSpan(20, 39, "4444")]


@pytest.mark.parametrize("before", ["Invoice 7 of 9, card ", "12 items; 3 x 4.50\tcard ", "1\n"])
def test_a_short_number_before_a_card_does_not_hide_it(before: str) -> None:
    # A run too short to hold a card is skipped, and the runs after it are still searched: a
    # page cannot hide a card behind a quantity printed first.
    card = "4111 1111 1111 1111"
    found = list(card_spans(before + card))
    assert found == [CardSpan(len(before), len(before) + len(card), "1111")]


@pytest.mark.parametrize("group", ["4", "4444", "4111111"])
def test_a_run_of_n_groups_tries_at_most_seven_windows_a_group(
    monkeypatch: pytest.MonkeyPatch, group: str
) -> None:
    """The bound `_issued_windows` promises (a crafted text layer of a million groups is read
    in time linear in it): from each group only the windows of 13 to 19 digits are tried (at
    most seven), and a group with fewer than 13 digits from it to the run's end is not looked
    up at all. Counted, not timed: each prefix looked up and each length asked of it."""
    lookups, asked = [0], [0]
    original = card_numbers._issued_lengths

    class Counted(frozenset[int]):
        def __contains__(self, length: object) -> bool:
            asked[0] += 1
            return super().__contains__(length)

    def counted(prefix: str) -> frozenset[int]:
        lookups[0] += 1
        return Counted(original(prefix))

    monkeypatch.setattr(card_numbers, "_issued_lengths", counted)
    groups = 300
    list(card_spans(" ".join([group] * groups)))
    size = len(group)
    with_13 = sum(1 for k in range(groups) if (groups - k) * size >= 13)
    assert lookups[0] == with_13
    assert 0 < asked[0] <= 7 * with_13
