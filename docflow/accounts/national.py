"""National account numbers, found where the page labels them.

A national number has no shape of its own (eight digits are a customer number as often as an
account), so it is an account only after its label, and the two-part ones only with both
parts near each other (on one line, or up to NEAR_LINES apart):

    uk      `Sort code` 6 digits + `Account (number|no|#)` 6 to 8 digits
    us      `Routing (number)` / `ABA` / `RTN` 9 digits, checked (`stdnum.us.rtn`) +
            `Account (number|no|#)` 4 to 17 digits
    de      `BLZ` / `Bankleitzahl` 8 digits + `Konto(nummer|-Nr.)` / `Kto` up to 10 digits:
            the IBAN it is (schwifty), checked by its national check, its bank a known one
    other   `CCC` / `número de cuenta` 20 digits (`stdnum.es.ccc`); `RIB` 23 characters (a
            French BBAN, its key checked); `NIB` 21 digits (a Portuguese BBAN); `CBU` 22
            digits (`stdnum.ar.cbu`); a New Zealand account after `account` (`stdnum.nz`)

A value is read after its label: on the label's segment, in the next segment of its line, or
in the segment under it (a table's header row over its values). A part found without its
partner (a sort code with no account number) is an account that cannot be read whole:
`valid=False`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from schwifty import registry
from stdnum.ar import cbu as _cbu
from stdnum.es import ccc as _ccc
from stdnum.nz import bankaccount as _nz
from stdnum.us import rtn as _rtn

from docflow.accounts.lines import Line, Place, line_text, segment_starts
from docflow.accounts.model import DE, OTHER, UK, US, Account, iban_of
from docflow.accounts.normalize import fold, is_account_char, plain, separator

NEAR_LINES = 2
MAX_GAP = 2  # separators between two digits of one value

_NUMBER = r"(?:\s*(?:number|num|no|nr|n°|#)\b\.?)?"
SORT, ACCOUNT, ROUTING, BLZ, KONTO = "sort", "account", "routing", "blz", "konto"
CCC, RIB, NIB, CBU = "ccc", "rib", "nib", "cbu"
_LABELS: dict[str, re.Pattern[str]] = {
    SORT: re.compile(r"\bsort[\s-]*code" + _NUMBER),
    ROUTING: re.compile(
        r"\b(?:aba\s*/\s*routing|routing\s*/\s*aba|routing(?:\s*transit)?|aba|rtn)" + _NUMBER
    ),
    ACCOUNT: re.compile(r"\b(?:bank\s+)?(?:account|acct|a/c)\b" + _NUMBER),
    BLZ: re.compile(r"\bblz\b|\bbankleitzahl"),
    KONTO: re.compile(
        r"\bkontonummer\b|\bkontonr\b|\bkonto\b(?:[\s.-]*nr\b\.?)?|\bkto\b\.?(?:[\s-]*nr\b\.?)?"
    ),
    CCC: re.compile(r"\bccc\b|\bcuenta\b(?:\s+bancaria)?"),
    RIB: re.compile(r"\brib\b|releve\s+d.identite\s+bancaire"),
    NIB: re.compile(r"\bnib\b"),
    CBU: re.compile(r"\bcbu\b"),
}
# How many characters each value has (min, max) and whether letters may be among them.
_SIZES: dict[str, tuple[int, int, bool]] = {
    SORT: (6, 6, False),
    ACCOUNT: (4, 17, False),
    ROUTING: (9, 9, False),
    BLZ: (8, 8, False),
    KONTO: (1, 10, False),
    CCC: (20, 20, False),
    RIB: (23, 23, True),
    NIB: (21, 21, False),
    CBU: (22, 22, False),
}
_AFTER_LABEL = re.compile(r"[\s:#=.()]*")


@dataclass(frozen=True)
class Labelled:
    """A value read after its label."""

    label: str
    value: str  # compact
    place: Place


def _take(text: str, start: int, size: tuple[int, int, bool]) -> tuple[str, int] | None:
    """The value at `start` of folded `text`: up to its size's characters, MAX_GAP
    separators between two; (value, end) where its length fits and it ends there."""
    low, high, letters = size
    taken: list[str] = []
    end = start
    gap = 0
    i = start
    while i < len(text) and len(taken) < high:
        c = text[i]
        if (c.isdigit() and c.isascii()) or (letters and is_account_char(c)):
            taken.append(c)
            end, gap = i + 1, 0
        elif separator(c) and gap < MAX_GAP and taken:
            gap += 1
        else:
            break
        i += 1
    if not low <= len(taken) <= high:
        return None
    if end < len(text) and is_account_char(text[end]) and (text[end].isdigit() or letters):
        return None  # the number runs on: another, longer one
    return "".join(taken), end


def _slots(lines: Sequence[Line], index: int, segment: int, after: int) -> list[tuple[int, int]]:
    """Where a label's value may be: after it on its segment, the next segment on its line,
    and the segment under it; (line, offset) each."""
    line = lines[index]
    starts = segment_starts(line)
    out = [(index, after)]
    if segment + 1 < len(line):
        out.append((index, starts[segment + 1]))
    if index + 1 < len(lines):
        here = line[segment]
        below = lines[index + 1]
        below_starts = segment_starts(below)
        for k, seg in enumerate(below):
            if min(here.x1, seg.x1) - max(here.x0, seg.x0) > 0 or abs(seg.x0 - here.x0) < 0.02:
                out.append((index + 1, below_starts[k]))
                break
    return out


def labelled_values(lines: Sequence[Line]) -> list[Labelled]:
    """Every value read after one of the labels above."""
    folded = [fold(line_text(line)) for line in lines]
    plains = [plain(line_text(line)) for line in lines]
    found: list[Labelled] = []
    seen: set[tuple[str, int, int]] = set()
    for index, line in enumerate(lines):
        starts = segment_starts(line)
        for name, pattern in _LABELS.items():
            for m in pattern.finditer(plains[index]):
                segment = max((k for k, s in enumerate(starts) if s <= m.start()), default=0)
                for at_line, at in _slots(lines, index, segment, m.end()):
                    text = folded[at_line]
                    skip = _AFTER_LABEL.match(text, at)
                    begin = skip.end() if skip else at
                    got = _take(text, begin, _SIZES[name])
                    if got is None:
                        continue
                    key = (name, at_line, begin)
                    if key not in seen:
                        seen.add(key)
                        found.append(Labelled(name, got[0], Place(at_line, begin, at_line, got[1])))
                    break
    return found


def _near(a: Labelled, b: Labelled) -> bool:
    return abs(a.place.line - b.place.line) <= NEAR_LINES


def _pair(
    parts: Sequence[Labelled], partners: Sequence[Labelled]
) -> list[tuple[Labelled, Labelled | None]]:
    """Each part with its nearest partner (fewest lines apart, then nearest on the line)."""
    out = []
    for part in parts:
        near = [p for p in partners if _near(part, p) and p.place != part.place]
        near.sort(
            key=lambda p: (
                abs(p.place.line - part.place.line),
                abs(p.place.start - part.place.start),
            )
        )
        out.append((part, near[0] if near else None))
    return out


def _span(a: Labelled, b: Labelled | None) -> Place:
    if b is None:
        return a.place
    first, last = sorted((a.place, b.place), key=lambda p: (p.line, p.start))
    if first.line == last.end_line:
        return Place(first.line, first.start, last.end_line, last.end)
    return Place(first.line, first.start, last.end_line, last.end, first.end, last.start)


def _valid(check: Callable[[str], bool], value: str) -> bool:
    try:
        return bool(check(value))
    except Exception:  # a library's refusal of an odd input is a failed check
        return False


def _german(blz: str, konto: str) -> Account:
    known = bool(registry.get_banks_by_code("DE", blz))
    iban = iban_of("DE", blz + konto.rjust(10, "0")) if known else None
    return Account(DE, blz + konto, iban is not None, iban)


def _single(found: Labelled) -> Account | None:
    value = found.value
    if found.label == CCC:
        valid = _valid(_ccc.is_valid, value)
        return Account(OTHER, value, valid, _ccc.to_iban(value).replace(" ", "") if valid else None)
    if found.label == RIB:
        iban = iban_of("FR", value)
        return Account(OTHER, value, iban is not None, iban)
    if found.label == NIB:
        iban = iban_of("PT", value)
        return Account(OTHER, value, iban is not None, iban)
    if found.label == CBU:
        return Account(OTHER, value, _valid(_cbu.is_valid, value))
    return None


def _uk(sort: Labelled, account: Labelled | None) -> Account:
    if account is None or not 6 <= len(account.value) <= 8:
        return Account(UK, sort.value, False)
    return Account(UK, sort.value + account.value.rjust(8, "0"), True)


def _us(routing: Labelled, account: Labelled | None) -> Account:
    valid = _valid(_rtn.is_valid, routing.value) and account is not None
    return Account(US, routing.value + (account.value if account else ""), valid)


def _de(blz: Labelled, konto: Labelled | None) -> Account:
    return Account(DE, blz.value, False) if konto is None else _german(blz.value, konto.value)


# The two-part accounts: (the bank's part, the account's part, how they make an account).
_PAIRS: tuple[tuple[str, str, Callable[[Labelled, Labelled | None], Account]], ...] = (
    (SORT, ACCOUNT, _uk),
    (ROUTING, ACCOUNT, _us),
    (BLZ, KONTO, _de),
)


def national_accounts(lines: Sequence[Line]) -> list[tuple[Account, Place]]:
    """Every labelled national account on these lines, each with where it is printed."""
    values = labelled_values(lines)
    by = {name: [v for v in values if v.label == name] for name in _LABELS}
    out: list[tuple[Account, Place]] = []
    paired: set[Place] = set()
    for part, partner, make in _PAIRS:
        for found, other in _pair(by[part], by[partner]):
            account = make(found, other)
            if other is not None and len(account.value) > len(found.value):
                paired.add(other.place)
                out.append((account, _span(found, other)))
            else:
                out.append((account, found.place))
    for number in by[ACCOUNT]:
        if number.place not in paired and _valid(_nz.is_valid, number.value):
            out.append((Account(OTHER, number.value, True), number.place))
    for name in (CCC, RIB, NIB, CBU):
        for found in by[name]:
            made = _single(found)
            if made is not None:
                out.append((made, found.place))
    return out
