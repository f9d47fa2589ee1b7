"""One page's accounts and payment instructions, as the bank-details check needs them.

    found          every account printed: IBANs in any form (`ibans`), labelled national
                   accounts (`national`), and, after an account's label, a value no check
                   recognizes (`other`, `valid=False`: an IBAN cut short, a misprint)
    cues           the words around them (`labels`)
    purpose(f)     the nearest pay-to, mandate or reader's cue of a found account
    instructions   the pay-to words and account labels that ask the reader to pay to an
                   account (their own purpose is not a mandate's or the reader's)
    settled        the page says nothing is left to pay (`paid in full`, a mandate) and asks
                   for no transfer

A found account's value stays inside the caller's step; what leaves it is `Account.masked`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from docflow.accounts.ibans import find_ibans
from docflow.accounts.labels import (
    LABEL,
    MANDATE,
    PAY_TO,
    SETTLED,
    Cue,
    asks_transfer,
    cues,
    nearest,
)
from docflow.accounts.lines import Line, Place, line_text, segment_starts
from docflow.accounts.model import DE, IBAN, OTHER, UK, US, Account
from docflow.accounts.national import national_accounts
from docflow.accounts.normalize import fold, is_account_char, plain, separator

MIN_DIGITS = 6  # a value after an account's label with fewer digits is no account
MAX_CHARS = 34  # an IBAN's longest
_LEAD = " \t:#=.()-"


@dataclass(frozen=True)
class Found:
    account: Account
    place: Place
    labelled: bool  # printed where an account's label puts its value


@dataclass(frozen=True)
class PageAccounts:
    found: tuple[Found, ...]
    cues: tuple[Cue, ...]

    def purpose(self, found: Found) -> Cue | None:
        """The pay-to, mandate or reader's cue nearest the account (labels.nearest)."""
        stops = {f.place.line for f in self.found if f.place.line != found.place.line}
        p = found.place
        # One broken over two lines ends on its line where it stops (a column beside it is
        # after it, as on one line).
        end = p.end if p.end_line == p.line else p.stop
        return nearest(self.cues, p.line, p.start, end, stops)

    def instructions(self) -> list[Cue]:
        """The pay-to words and account labels that ask the reader to pay to an account: a
        label or transfer whose own nearest purpose is no mandate's or reader's."""
        out = []
        for cue in self.cues:
            if cue.kind not in (PAY_TO, LABEL):
                continue
            others = [c for c in self.cues if c != cue]
            said = nearest(others, cue.line, cue.start, cue.end)
            if said is None or said.kind == PAY_TO or (cue.kind == PAY_TO and said.line < cue.line):
                out.append(cue)
        return out

    @property
    def settled(self) -> bool:
        """Nothing is left to pay: the page says it is paid, or will be debited, and asks
        for no transfer (an account's label alone, in a paid invoice's footer, asks none)."""
        says = any(c.kind in (SETTLED, MANDATE) for c in self.cues)
        return says and not any(asks_transfer(c) for c in self.instructions())


def _label_slots(lines: Sequence[Line], cue: Cue) -> list[tuple[int, int]]:
    """Where a label's value may be printed: after it on its line, in the next segment,
    in the segment under it."""
    line = lines[cue.line]
    starts = segment_starts(line)
    segment = max((k for k, s in enumerate(starts) if s <= cue.start), default=0)
    out = [(cue.line, cue.end)]
    if segment + 1 < len(line):
        out.append((cue.line, starts[segment + 1]))
    if cue.line + 1 < len(lines):
        here = line[segment]
        below = lines[cue.line + 1]
        for k, seg in enumerate(below):
            if min(here.x1, seg.x1) - max(here.x0, seg.x0) > 0 or abs(seg.x0 - here.x0) < 0.02:
                out.append((cue.line + 1, segment_starts(below)[k]))
                break
    return out


def _token(text: str, at: int) -> tuple[str, int, int] | None:
    """An account-like value at `at` of folded `text`: letters and digits, separators
    between, at least MIN_DIGITS digits; (compact, start, end)."""
    while at < len(text) and text[at] in _LEAD:
        at += 1
    taken, start, end, gap = [], at, at, 0
    for i in range(at, len(text)):
        c = text[i]
        if is_account_char(c):
            taken.append(c)
            end, gap = i + 1, 0
        elif separator(c) and gap < 2 and taken:
            gap += 1
        else:
            break
        if len(taken) > MAX_CHARS:
            return None
    value = "".join(taken)
    if sum(c.isdigit() for c in value) < MIN_DIGITS:
        return None
    return value, start, end


def _on_line(place: Place, line: int) -> tuple[int, int] | None:
    """The part of `line` a place covers (one broken over two lines covers the first from
    its start to where it stops, the last from where it resumes: a column beside it is not
    its)."""
    if place.line == place.end_line == line:
        return place.start, place.end
    if place.line == line:
        return place.start, place.stop
    if place.end_line == line:
        return place.resume, place.end
    return None


def _inside(place: Place, line: int, start: int, end: int) -> bool:
    return place.line == line and start <= place.start < max(end, start + 1)


def _unrecognized(
    lines: Sequence[Line], folded: Sequence[str], label: Cue, known: Sequence[Place]
) -> list[Found]:
    """The value after an account's label that no check recognized, or nothing; `known`:
    where accounts were read (and the halves an IBAN explains)."""
    for line, at in _label_slots(lines, label):
        text = folded[line]
        got = _token(text, at)
        spans = [span for p in known if (span := _on_line(p, line)) is not None]
        nearby = sorted(start for start, end in spans if end > at)
        if nearby and (got is None or nearby[0] <= got[1]):
            return []  # a recognized account stands there
        if got is not None:
            value, start, end = got
            return [Found(Account(OTHER, value, False), Place(line, start, line, end), True)]
    return []


_WORD = re.compile(r"[0-9A-Z]+")
_NUMBER_WORD = re.compile(r"[\s:#=.()\-]*(?:(?:n[°o]|nr|no|num|number|nummer)\b[\s:#=.()\-]*)?")


def _used_as_label(lines: Sequence[Line], folded: Sequence[str], cue: Cue) -> bool:
    """Whether an account's label word stands as a label: nothing after it on its segment
    (its value in the next cell, the line under it, or not readable as text), or a word
    with a digit in it (an account, however misprinted). A label word followed by words is prose or
    a header (`CCC DDDD EEEE` in a table's key, `check the IBAN carefully`)."""
    line = lines[cue.line]
    starts = segment_starts(line)
    segment = max((k for k, s in enumerate(starts) if s <= cue.start), default=0)
    end = starts[segment] + len(line[segment].text)
    text = folded[cue.line]
    skip = _NUMBER_WORD.match(text.lower(), cue.end, end)
    at = skip.end() if skip else cue.end
    if at >= end:
        return True
    word = _WORD.match(text, at)
    return word is not None and any(c.isdigit() for c in word.group())


def _explained(account: Account, ibans: Sequence[Account]) -> bool:
    """A half of a national account (a sort code, a routing number, a BLZ alone) that an
    IBAN on the page contains: the IBAN's bank code, printed again."""
    if account.valid or account.kind not in (UK, US, DE):
        return False
    return any(account.value in i.value[4:] for i in ibans if i.valid)


def read_page(lines: Sequence[Line]) -> PageAccounts:
    """The page's accounts and the words around them (module docstring)."""
    texts = [line_text(line) for line in lines]
    folded = [fold(t) for t in texts]
    found_cues = tuple(
        c
        for c in cues([plain(t) for t in texts])
        if c.kind != LABEL or _used_as_label(lines, folded, c)
    )
    labels = [c for c in found_cues if c.kind == LABEL]

    def labelled(place: Place) -> bool:
        return any(
            _inside(place, line, at, len(folded[line]))
            for cue in labels
            for line, at in _label_slots(lines, cue)
        )

    found: list[Found] = []
    for account, place in find_ibans(lines):
        # A lower-case look-alike that fails its check is a word (`at 12 3456 ...`); one
        # after an account's label is still read, as an unrecognized value, below.
        original = texts[place.line][place.start : place.start + 2]
        if account.valid or original.isupper():
            found.append(Found(account, place, labelled(place)))
    ibans = [f.account for f in found if f.account.kind == IBAN]
    known = [f.place for f in found]
    for account, place in national_accounts(lines):
        inside = any(
            span[0] <= place.start < span[1]
            for k in known
            if (span := _on_line(k, place.line)) is not None
        )
        known.append(place)
        if inside or _explained(account, ibans):
            continue  # digits of an IBAN already found, or its bank code printed again
        found.append(Found(account, place, True))
    for label in labels:
        extra = _unrecognized(lines, folded, label, known)
        found.extend(extra)
        known.extend(f.place for f in extra)
    found.sort(key=lambda f: (f.place.line, f.place.start))
    unique = list({(f.place.line, f.place.start): f for f in found}.values())
    return PageAccounts(tuple(unique), found_cues)
