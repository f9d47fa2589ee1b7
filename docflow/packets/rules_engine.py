"""The `rules` engine: a page's "starts a document" score from its signals, by weighed evidence.

Each signal adds to (a start) or takes from (a continuation) a page's log-odds, starting from a
prior that a page goes on the document before it; the score is the logistic of the sum. The
weights say how much a mailroom clerk trusts each sign: a page counter is near proof either way,
a document number that repeats or a page that repeats the one before (a copy) is strong, a
title or a new number is good evidence, a letterhead alone is weak. Evidence compares a page
with the part it would continue (its numbers, ids and type), not only with the page before.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from docflow.packets.engine import EngineAnswer, PacketPage, PageCall
from docflow.packets.signals import PageSignals, read_signals, unreadable
from docflow.rules.model import Rules

PRIOR = -2.0
WEIGHTS: dict[str, float] = {
    "counter-restart": 3.5,  # Page 1 of N
    "counter-continues": -4.0,  # Page 2 of N, after page 1 of N
    "counter-later": -3.0,  # Page 3 of N, whatever came before
    "title": 2.5,  # INVOICE, Purchase Order, AGREEMENT at the top
    "new-number": 2.0,  # a document number the part so far never printed
    "same-number": -3.5,  # the part's own number again
    "new-issuer": 1.0,  # a tax id or IBAN the part never printed, none of its own
    "same-issuer": -0.5,  # the part's issuer again (consecutive bills of one supplier share it)
    "previous-total": 1.0,  # the page before closed a bill with its total
    # Page size or orientation changed: a scanner keeps one size, a document rarely changes
    # its own; a receipt after an A4 invoice, a letter page after an A4 one.
    "layout-change": 2.5,
    "new-header": 0.5,  # another letterhead
    "same-header": -0.5,
    "type-change": 1.0,  # the page's words are another type's than the part's
    "repeat": -5.0,  # the page repeats the page before (a copy: ORIGINAL, DUPLICADO)
    "blank": -6.0,  # a blank page goes with the document before it
}
REPEAT = 0.9  # share of words in common that makes a page a copy of the one before


@dataclass
class _Part:
    """What the part a page would continue has shown so far."""

    numbers: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    doc_type: str = ""

    def take(self, page: PageSignals) -> None:
        self.numbers |= page.numbers
        self.ids |= page.issuer_ids
        self.doc_type = self.doc_type or page.doc_type or page.title


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def evidence(page: PageSignals, before: PageSignals | None, part: _Part) -> list[str]:
    """Pure: the reason codes that apply to `page`, given the page before and the part."""
    if page.blank:
        return ["blank"]
    found = [*_counter(page, before), *(["title"] if page.title else [])]
    found += _identity(page, part)
    if before is not None and before.readable:
        found += _neighbour(page, before)
    kind = page.doc_type or page.title
    if kind and part.doc_type and kind != part.doc_type:
        found.append("type-change")
    return found


def _counter(page: PageSignals, before: PageSignals | None) -> list[str]:
    if not page.counter:
        return []
    n, of = page.counter
    previous = before.counter if before else None
    if n == 1:
        return ["counter-restart"]
    if previous and previous[0] == n - 1 and previous[1] == of:
        return ["counter-continues"]
    return ["counter-later"]


def _identity(page: PageSignals, part: _Part) -> list[str]:
    """The page's document numbers and issuer ids against the part's."""
    found = []
    if page.numbers and part.numbers:
        found.append("same-number" if page.numbers & part.numbers else "new-number")
    elif page.numbers and page.title:
        found.append("new-number")  # a titled page's number, in a part that printed none
    if page.issuer_ids and part.ids:
        found.append("same-issuer" if page.issuer_ids & part.ids else "new-issuer")
    return found


def _neighbour(page: PageSignals, before: PageSignals) -> list[str]:
    """The page against the one before it: a total, the layout, the letterhead, a copy."""
    found = []
    if before.closes:
        found.append("previous-total")
    if before.size not in (page.size, (0, 0)):
        found.append("layout-change")
    if len(page.header) >= 3 and len(before.header) >= 3:
        similar = _jaccard(page.header, before.header)
        if similar < 0.2:
            found.append("new-header")
        elif similar > 0.6:
            found.append("same-header")
    if len(page.tokens) >= 20 and _jaccard(page.tokens, before.tokens) >= REPEAT:
        found.append("repeat")
    return found


def score(reasons: Sequence[str]) -> float:
    total = PRIOR + sum(WEIGHTS[r] for r in reasons)
    return 1.0 / (1.0 + math.exp(-total))


def score_pages(signals: Sequence[PageSignals], proposal_above: float = 0.5) -> list[PageCall]:
    """Pure: one call per page. A page counts as a start for the part that follows it when its
    score reaches `proposal_above` (so a later page is weighed against the part proposed)."""
    calls: list[PageCall] = []
    part = _Part()
    before: PageSignals | None = None
    for page in signals:
        if not page.readable:
            # Nothing is known of it: it goes with the part before (or opens the packet).
            calls.append(PageCall(page.page, "", 1.0 if not calls else 0.0, ("refused",)))
            continue
        if not calls:
            reasons: list[str] = ["first-page"]
            start = 1.0
        else:
            reasons = evidence(page, before, part)
            start = score(reasons)
        if start >= proposal_above:
            part = _Part()
        part.take(page)
        calls.append(PageCall(page.page, page.doc_type or page.title, start, tuple(reasons)))
        before = page
    return calls


class RulesPageEngine:
    name = "rules"

    def __init__(self, rules: Rules | None, proposal_above: float = 0.5) -> None:
        self.rules = rules
        self.proposal_above = proposal_above

    def signals(self, pages: Sequence[PacketPage]) -> list[PageSignals]:
        return [
            read_signals(p.page, p.text, p.words, p.size, self.rules)
            if p.readable
            else unreadable(p.page)
            for p in pages
        ]

    def classify(self, pages: Sequence[PacketPage]) -> EngineAnswer:
        return EngineAnswer(tuple(score_pages(self.signals(pages), self.proposal_above)))
