"""IBANs however they are printed: any separators and grouping, either case, and broken over
two lines.

A candidate starts at a word's first letter: a country code with an IBAN (schwifty's
registry), then two check digits. From there the account's characters are taken, skipping
up to MAX_GAP separators between two of them (`normalize.separator`), until the country's
IBAN length is reached. Where the line ends first, the rest is taken from the next line: the
segment under the one the IBAN began in (its own column), or else the next line's start. A
candidate whose BBAN has its country's structure is an IBAN, valid when mod 97 passes; one
whose structure is not its country's is a word that happens to begin like one (`DE 12345
Berlin`), and no IBAN.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from schwifty import registry
from schwifty.exceptions import SchwiftyException
from schwifty.registry import IBANSpec

from docflow.accounts.lines import Line, Place, line_text, segment_starts, text_lines
from docflow.accounts.model import IBAN, Account, iban_valid
from docflow.accounts.normalize import NEWLINE, fold, is_account_char, separator

MAX_GAP = 3  # separators between two characters of one account (` - `)
# The most characters an IBAN may take on its line: 34 characters, MAX_GAP separators
# between each two. A candidate is read from no more (a page printed as one long line
# stays linear to read).
MAX_SPAN = 34 * (MAX_GAP + 1)


@dataclass(frozen=True)
class _Char:
    char: str
    line: int
    col: int


_BREAK = _Char(NEWLINE, -1, -1)


@lru_cache(maxsize=256)
def spec(country: str) -> IBANSpec | None:
    """The country's IBAN specification, or None where it has none."""
    try:
        return registry.get_iban_spec(country)
    except (SchwiftyException, ValueError, KeyError):
        return None


def _collect(stream: Sequence[_Char]) -> tuple[list[_Char], int] | None:
    """The IBAN's characters from the start of `stream`, and how many its country needs
    (fewer taken: the stream ran out first); None where it cannot begin an IBAN."""
    taken: list[_Char] = []
    needed = 0
    gap = 0
    broken = False
    for ch in stream:
        if needed and len(taken) == needed:
            break
        if ch.char == NEWLINE:
            if broken or len(taken) < 2:
                break
            broken, gap = True, -(10**6)  # a continuation line's indent is no gap
            continue
        if is_account_char(ch.char):
            n = len(taken)
            if (n < 2 and not ch.char.isalpha()) or (2 <= n < 4 and not ch.char.isdigit()):
                return None
            taken.append(ch)
            gap = 0
            if n == 1:
                found = spec(taken[0].char + taken[1].char)
                if found is None:
                    return None
                needed = found.iban_length
            continue
        if separator(ch.char) and gap < MAX_GAP:
            gap += 1
            continue
        break
    return (taken, needed) if needed else None


def _judge(taken: Sequence[_Char]) -> Account | None:
    """An IBAN where the characters have their country's structure; None where not."""
    value = "".join(c.char for c in taken)
    found = spec(value[:2])
    if found is None or not found.regex.match(value[4:]):
        return None
    valid = iban_valid(value)
    return Account(IBAN, value, valid, value if valid else None)


class _Page:
    def __init__(self, lines: Sequence[Line]) -> None:
        self.lines = lines
        self.folded = [fold(line_text(line)) for line in lines]

    def chars(self, line: int, start: int, stop: int | None = None) -> list[_Char]:
        text = self.folded[line]
        end = min(len(text) if stop is None else stop, start + MAX_SPAN)
        return [_Char(text[i], line, i) for i in range(start, end)]

    def continuations(self, line: int, segment: int) -> list[list[_Char]]:
        """Where an IBAN cut at the end of `segment` of `line` may go on: the segment of the
        next line under it (and the rest of that line), then the next line from its start."""
        nxt = line + 1
        if nxt >= len(self.lines) or not self.lines[nxt]:
            return []
        here = self.lines[line][segment]
        starts = segment_starts(self.lines[nxt])
        options: list[int] = []
        for k, below in enumerate(self.lines[nxt]):
            overlap = min(here.x1, below.x1) - max(here.x0, below.x0)
            if overlap > 0 or abs(below.x0 - here.x0) < 0.02:
                options.append(starts[k])
                break
        if 0 not in options:
            options.append(0)
        return [self.chars(nxt, start) for start in options]


def _cuts(page: _Page, line: int, pos: int) -> list[tuple[int, int]]:
    """Where the IBAN begun at `pos` may end on its line: at each later segment's boundary
    (another column follows), or at the line's end; (stop offset, segment index)."""
    segments = page.lines[line]
    starts = segment_starts(segments)
    first = max(k for k, s in enumerate(starts) if s <= pos) if starts else 0
    cuts = [(starts[k] - 1, k - 1) for k in range(first + 1, len(segments))]
    cuts = [(stop, k) for stop, k in cuts if stop - pos <= MAX_SPAN]
    return [*cuts, (len(page.folded[line]), len(segments) - 1)]


def _may_begin(text: str, pos: int) -> bool:
    """Cheaply: whether an IBAN may begin at `pos` of folded `text`: a country with an IBAN,
    then two digits (or the line's end after the country: the rest on the next line)."""
    head: list[str] = []
    gap = 0
    for c in text[pos : pos + 4 * (MAX_GAP + 1)]:
        if is_account_char(c):
            head.append(c)
            gap = 0
            if len(head) == 4:
                break
        elif separator(c) and gap < MAX_GAP:
            gap += 1
        else:
            break
    if len(head) < 2 or not (head[0].isalpha() and head[1].isalpha()):
        return False
    if spec(head[0] + head[1]) is None:
        return False
    return all(c.isdigit() for c in head[2:])


def _at(page: _Page, line: int, pos: int) -> tuple[Account, list[_Char]] | None:
    """The IBAN that begins at `pos` of `line`, if one does: the first valid reading of the
    ways it may run (to the line's end, to a column's end, on to the next line), or else
    the first of them with its country's structure (a misprint, a misread)."""
    if not _may_begin(page.folded[line], pos):
        return None
    head = _collect(page.chars(line, pos))
    if head is None:
        return None
    readings: list[tuple[Account, list[_Char]]] = []
    for stop, segment in _cuts(page, line, pos):
        prefix = page.chars(line, pos, stop)
        streams = [prefix] + [
            [*prefix, _BREAK, *cont] for cont in page.continuations(line, segment)
        ]
        for stream in streams:
            got = _collect(stream)
            if got is None or len(got[0]) != got[1]:
                continue
            account = _judge(got[0])
            if account is None:
                continue
            if account.valid:
                return account, got[0]
            readings.append((account, got[0]))
    return readings[0] if readings else None


def find_ibans(lines: Sequence[Line]) -> list[tuple[Account, Place]]:
    """Every IBAN on these lines, in reading order, each with where it is printed."""
    page = _Page(lines)
    # Per line: the parts IBANs from the line above took (their rest, in its own column).
    used: dict[int, list[tuple[int, int]]] = {}
    out: list[tuple[Account, Place]] = []
    for line, text in enumerate(page.folded):
        pos = 0
        while pos < len(text):
            taken_by = [end for start, end in used.get(line, ()) if start <= pos < end]
            if taken_by:
                pos = taken_by[0]
                continue
            c = text[pos]
            starts_word = (
                c.isascii() and c.isalpha() and not (pos and is_account_char(text[pos - 1]))
            )
            found = _at(page, line, pos) if starts_word else None
            if found is None:
                pos += 1
                continue
            account, taken = found
            last = taken[-1]
            if last.line == line:
                out.append((account, Place(line, pos, line, last.col + 1)))
                pos = last.col + 1
                continue
            # Broken over two lines: its first line goes on after where it stops (another
            # column), and the next line is read but for its rest.
            stop = max(c.col for c in taken if c.line == line) + 1
            resume = min(c.col for c in taken if c.line == last.line)
            out.append((account, Place(line, pos, last.line, last.col + 1, stop, resume)))
            used.setdefault(last.line, []).append((resume, last.col + 1))
            pos = stop
    return out


def find_in_text(text: str) -> Iterator[tuple[Account, int, int]]:
    """Every IBAN in plain text (lines at `\\n`), with its offsets in `text`."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for account, place in find_ibans(text_lines(text)):
        yield account, starts[place.line] + place.start, starts[place.end_line] + place.end
