"""Card numbers however they are printed (issue 56, item 5): the issuers' ranges, Luhn, and
the digit groups a number may be printed in. `find_cards` in detectors.py makes findings of
what `card_spans` finds here."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from functools import lru_cache
from itertools import accumulate, pairwise
from typing import NamedTuple


class CardSpan(NamedTuple):
    """Where a card number is printed in a text, and its last four digits."""

    start: int
    end: int
    last4: str


# A digit's worth where Luhn doubles it.
_DOUBLED = tuple(d * 2 - 9 if d > 4 else d * 2 for d in range(10))


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# Where card numbers are issued (ISO/IEC 7812 issuer ranges of the payment networks, and the
# petroleum industry's fleet and fuel cards) and how long they are there: (first, last prefix,
# lengths). One in ten digit runs passes Luhn, and invoices print many long ones (SIRET numbers
# are Luhn-valid by design, GTINs and account numbers share its mod-10 shape): on the real
# labelled scans, four invoices with no card went to the privacy stage for a Luhn-valid run
# before this table. 13-digit Visa numbers are no longer issued; a 13-digit run is an EAN.
_ISSUED: tuple[tuple[int, int, range], ...] = (
    (4, 4, range(16, 20)),  # Visa (16, 19)
    (51, 55, range(16, 17)),  # Mastercard
    (2221, 2720, range(16, 17)),  # Mastercard's 2-series
    (2200, 2204, range(16, 17)),  # Mir
    (34, 34, range(15, 16)),  # American Express
    (37, 37, range(15, 16)),
    (300, 305, range(14, 20)),  # Diners Club
    (36, 36, range(14, 20)),
    (38, 39, range(14, 20)),
    (3528, 3589, range(16, 20)),  # JCB
    (6011, 6011, range(16, 20)),  # Discover
    (644, 649, range(16, 20)),
    (65, 65, range(16, 20)),
    (62, 62, range(16, 20)),  # UnionPay
    (50, 50, range(16, 20)),  # Maestro
    (56, 69, range(16, 20)),
    (81, 82, range(16, 17)),  # RuPay
    (7, 7, range(16, 20)),  # fleet and fuel cards (ENI's "Nr carta")
)
# An identifier whose own check digits can pass Luhn, named just before the run.
_OTHER_ID = re.compile(r"(?:SIRE[NT]|GTIN|EAN|ISBN|DUNS|UPC)\W{0,4}$", re.IGNORECASE)


def issued_card(digits: str) -> bool:
    """A number a card issuer could have given: a network's range and length, Luhn-valid."""
    return len(digits) in _issued_lengths(digits[:4]) and luhn_ok(digits) and len(set(digits)) > 1


@lru_cache(maxsize=10_000)
def _issued_lengths(prefix: str) -> frozenset[int]:
    """The lengths the networks issue numbers starting with `prefix` (four digits) in."""
    return frozenset(
        length
        for first, last, lengths in _ISSUED
        for length in lengths
        if len(prefix) >= len(str(first)) and first <= int(prefix[: len(str(first))]) <= last
    )


# How a card number may be printed: digit groups, each two joined by one separator (a space of
# any width: every Unicode space separator, NBSP and the thin and narrow ones among them; a
# hyphen or dash; a dot; a slash), with invisible format characters (a zero-width space, a soft
# hyphen) around it or alone. A line break, a tab, a comma or a letter ends the run: a page's
# lines and a table's cells are never joined into one number. One number is printed with one
# kind of separator (`4111 1111 1111 1111`, `4111.1111.1111.1111`); a date and a number beside
# it (`3005/2021 143560`, a Luhn-valid Diners length on a real Brazilian scan) or amounts in a
# row (`12.50 4 19.99`) mix them, so a window holds one kind (or none).
_SEPARATORS = {
    " ": "\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u202f\u205f\u3000",
    "-": "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uff0d",
    ".": ".\uff0e",
    "/": "/\uff0f",
}
_KIND = {ch: kind for kind, chars in _SEPARATORS.items() for ch in chars}
_INVISIBLE = r"\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
_SEPARATOR = "".join(_KIND)
_GAP = f"[{_INVISIBLE}]*[{re.escape(_SEPARATOR)}][{_INVISIBLE}]*|[{_INVISIBLE}]+"
_RUN = re.compile(rf"\d+(?:(?:{_GAP})\d+)*")
_GROUP = re.compile(r"\d+")
CARD_DIGITS = (13, 19)  # the shortest and longest window tested


def card_spans(text: str) -> Iterator[CardSpan]:
    """Card numbers however they are printed. In each run of digit groups (`_RUN`), every
    window of whole groups holding 13 to 19 digits and one kind of separator is tested
    (`issued_card`): a card with a quantity or an amount printed after it
    (`4111.1111.1111.1111 2 x 10.00`) is found though the run fails Luhn as a whole, and a
    long reference is no card for a part of it that starts or ends inside a group. Windows
    that overlap are one finding, so no digit of an issued number is left out of its mask
    whatever digits are printed around it."""
    for run in _RUN.finditer(text):
        spans = [g.span() for g in _GROUP.finditer(text, run.start(), run.end())]
        digits = "".join(_ascii(text[a:b]) for a, b in spans)
        if len(digits) < CARD_DIGITS[0]:
            continue
        ends = [0, *accumulate(b - a for a, b in spans)]  # digits before each group
        kinds = [_kind(text[a:b]) for (_, a), (b, _) in pairwise(spans)]
        # Only the run's first group follows a label: the others follow digits.
        named = _OTHER_ID.search(text[max(0, run.start() - 24) : run.start()]) is not None
        windows = [
            (first, last)
            for first, last in _issued_windows(digits, ends, _reach(kinds))
            if not (named and first == 0)
        ]
        for first, last in _merged(windows):
            yield CardSpan(spans[first][0], spans[last - 1][1], digits[ends[last] - 4 : ends[last]])


def _kind(gap: str) -> str:
    """A gap's kind of separator; "" for invisible characters alone (no separator printed)."""
    return next((_KIND[ch] for ch in gap if ch in _KIND), "")


def _reach(kinds: list[str]) -> list[int]:
    """For each group, the end (last group + 1) of the longest stretch from it whose gaps
    print one kind of separator: `kinds[k]` is the gap after group k ("" for none)."""
    groups = len(kinds) + 1
    reach = [groups] * groups
    stop = [groups] * len(kinds)  # the first gap after k of another kind than gap k's
    upcoming = dict.fromkeys(_SEPARATORS, groups)  # the next gap of each kind
    first_kind = groups  # the first gap from here on that prints a separator
    for k in range(len(kinds) - 1, -1, -1):
        if kinds[k]:
            stop[k] = min(at for kind, at in upcoming.items() if kind != kinds[k])
            upcoming[kinds[k]] = k
            first_kind = k
        if first_kind < groups:
            reach[k] = min(groups, stop[first_kind] + 1)
    return reach


def _ascii(group: str) -> str:
    """A group's digits as ASCII (a full-width or another script's digit is a digit)."""
    return group if group.isascii() else "".join(str(unicodedata.decimal(c)) for c in group)


def _issued_windows(digits: str, ends: list[int], reach: list[int]) -> Iterator[tuple[int, int]]:
    """Each window of whole groups (first group, last group + 1) that is an issued number,
    printed with one kind of separator (it ends by `reach[first]`).

    `ends[k]` counts the digits before group k. Luhn is read off running sums (counted from
    the right, every second digit is doubled: the positions of the same parity as the
    window's end), so a run of n groups costs at most 7n lookups whatever its length: a
    crafted text layer of a million one-digit groups included."""
    values = [ord(c) - 48 for c in digits]
    # sums[doubled][parity][k]: the digits at positions < k of that parity, doubled or not.
    sums = [
        [
            [0, *accumulate(_DOUBLED[d] if doubled else d for d in values[parity::2])]
            for parity in (0, 1)
        ]
        for doubled in (False, True)
    ]

    def upto(doubled: int, parity: int, k: int) -> int:
        return sums[doubled][parity][(k - parity + 1) // 2]

    shortest, longest = CARD_DIGITS
    for first in range(len(ends) - 1):
        at = ends[first]
        if ends[-1] - at < shortest:
            return
        lengths = _issued_lengths(digits[at : at + 4])
        if not lengths:
            continue
        for last in range(
            bisect_left(ends, at + shortest, first + 1),
            min(bisect_right(ends, at + longest), reach[first] + 1),
        ):
            end = ends[last]
            if end - at not in lengths:
                continue
            p = end % 2
            total = upto(1, p, end) - upto(1, p, at) + upto(0, 1 - p, end) - upto(0, 1 - p, at)
            if total % 10 == 0 and len(set(digits[at:end])) > 1:
                yield first, last


def _merged(windows: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Overlapping windows (in order of their first group) as one span of groups."""
    current: tuple[int, int] | None = None
    for first, last in windows:
        if current is not None and first < current[1]:
            current = (current[0], max(current[1], last))
            continue
        if current is not None:
            yield current
        current = (first, last)
    if current is not None:
        yield current
