"""The `rules` engine: deterministic, local, free. What it reads from the text:

    title      the first line of the first page that reads like a heading (not a form's
               label), one naming the type (`Invoice # 508`) first among the first lines
    abstract   the first sentences of the document, up to 600 characters (extractive)
    parties    names with a company suffix (extract's own pattern) and "between A and B"
    keyDates   dates found by extract's date parser, labelled by the words before them
    risk       one reason per rule that fires, with the page it fired on; the weights add up
               to the level (high at 3: unlimited liability with automatic renewal is high)

Risk rules: automatic renewal, unlimited liability, payment terms over 60 days (a payment
sentence with a number of days: an amount after "net" is no term), a contract
without a signature page, and sensitive data found by the classifier's detectors (on an
invoice, less the issuer's own payee IBANs: docflow/classify/sensitive.py). Each rule
names the document types it judges (`RULES`): a memo is no contract, so it lacks no signature.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from docflow.enrich.base import EnrichAnswer, EnrichInput, PageText
from docflow.enrich.schema import ABSTRACT_MAX, Enrichment, KeyDate, RiskReason
from docflow.extract.declarations.parse import find_dates, fold
from docflow.extract.rules_engine.engine import COMPANY_SUFFIX
from docflow.rules.detectors import FINDERS

MAX_PARTIES = 8
MAX_DATES = 10
PAYMENT_DAYS_LIMIT = 60
HIGH, MEDIUM = 3, 1  # weight sums at which the level is high, medium

_AUTO_RENEW = re.compile(
    r"\b(?:automatic(?:ally)?\s+renew\w*|renew\w*\s+automatically|auto-?renew\w*|"
    r"evergreen|tacit(?:ly)?\s+renew\w*)\b",
    re.IGNORECASE,
)
_UNLIMITED = re.compile(
    r"\b(?:unlimited\s+liability|liability\s+(?:\w+\s+){0,3}(?:is|shall\s+be)\s+unlimited|"
    r"without\s+(?:any\s+)?limit(?:ation)?\s+(?:of|on)\s+liability|"
    r"uncapped\s+liability)\b",
    re.IGNORECASE,
)
# A payment term in days, in a payment sentence: `net 30 days`, `payable within 90 days`,
# `Payment terms: 45 days`, `zahlbar innerhalb von 30 Tagen`, `paiement à 45 jours`,
# `betalingstermijn: 14 dagen`. The unit is required and the number whole: `net 288.79` on an
# invoice's line is an amount, and a bare `net 30` is not read as a term.
_PAYMENT_DAYS = re.compile(
    r"(?<![\w.,])(?:net|within|payable\s+(?:with)?in|due\s+(?:with)?in|"
    r"payment\s+terms?\s*:?|payment\s+(?:of|within)|zahlbar\s+innerhalb(?:\s+von)?|"
    r"zahlungsziel\s*:?|innerhalb(?:\s+von)?|paiement\s+(?:à|a)|à|"
    r"betalingstermijn\s*:?|binnen)\s*"
    r"(\d{1,3})(?![\d.,]\d)\s*(?:calendar\s+|kalender)?(?:days?|tagen?|jours?|dagen)\b",
    re.IGNORECASE,
)
_SIGNATURE = re.compile(
    r"\b(?:signature|signed\s+by|signatory|in\s+witness\s+whereof|/s/|unterschrift|firma)\b",
    re.IGNORECASE,
)
_BETWEEN = re.compile(
    r"\bbetween\s+(.{2,80}?)\s*(?:\([^)]{0,40}\)\s*)?,?\s+and\s+(.{2,80}?)\s*(?:\(|,|;|\.\s|$)",
    re.IGNORECASE | re.MULTILINE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_SPACE = re.compile(r"\s+")
_LABEL_WORDS = 5

ANY_TYPE: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RiskRule:
    weight: int
    message: str
    types: frozenset[str] = ANY_TYPE  # the document types it judges; empty: every type

    def judges(self, doc_type: str) -> bool:
        return not self.types or doc_type in self.types


RULES: dict[str, RiskRule] = {
    "unlimited-liability": RiskRule(2, "liability is unlimited"),
    "automatic-renewal": RiskRule(1, "the agreement renews automatically"),
    "long-payment-terms": RiskRule(1, "payment terms exceed 60 days"),
    "missing-signature": RiskRule(1, "the contract has no signature page", frozenset({"contract"})),
    "sensitive-data": RiskRule(1, "sensitive data found"),
}


class RulesEnricher:
    name = "rules"

    def enrich(self, document: EnrichInput) -> EnrichAnswer:
        pages = [p for p in document.pages if p.text.strip()]
        reasons = risk_reasons(document, pages)
        weight = sum(RULES[r["code"]].weight for r in reasons)
        level = "high" if weight >= HIGH else "medium" if weight >= MEDIUM else "low"
        heading = title(pages, document.doc_type)
        enrichment: Enrichment = {
            "summary": {
                "title": heading,
                "abstract": abstract(pages, heading),
                "parties": parties(pages),
                "keyDates": key_dates(pages),
            },
            "risk": {"level": level, "reasons": reasons},
        }
        return EnrichAnswer(engine=self.name, enrichment=enrichment)


# A label with no value (`Date :`, `CLIENT :`) or a short pair (`Customer:2`, `Date: 2026-01-31`)
# is a form's field, not the document's heading.
_LABEL_ONLY = re.compile(r"^[^:]{1,60}:$")
_SHORT_PAIR = re.compile(r"^[\w .'#-]{1,24}:\s*\S{1,12}$")
# Words a heading of each type starts with, in the rules file's languages.
TYPE_WORDS: dict[str, tuple[str, ...]] = {
    "invoice": ("invoice", "tax invoice", "rechnung", "facture", "factuur", "fattura", "factura"),
    "credit-note": ("credit note", "gutschrift", "avoir", "creditnota", "nota di credito"),
    "purchase-order": ("purchase order", "bestellung", "bon de commande", "inkooporder"),
}
_HEADING_LINES = 8


def title(pages: Sequence[PageText], doc_type: str) -> str:
    """The first heading-like line of the first page, one that names the document's type
    (`Invoice # RE-508`) first if one of the first lines does."""
    headings = [line for page in pages[:1] for line in _headings(page.text)]
    words = TYPE_WORDS.get(doc_type, (doc_type.replace("-", " "),))
    named = re.compile("(?:" + "|".join(re.escape(w) for w in words) + r")\b")
    for line in headings[:_HEADING_LINES]:
        if named.match(fold(line)):
            return line
    if headings:
        return headings[0]
    return f"{doc_type.replace('-', ' ').capitalize()} document"


def _headings(text: str) -> list[str]:
    out = []
    for raw in text.splitlines():
        line = _SPACE.sub(" ", raw).strip()
        if not 3 <= len(line) <= 120 or sum(c.isalpha() for c in line) < 3:
            continue
        if _LABEL_ONLY.match(line) or _SHORT_PAIR.match(line):
            continue
        out.append(line)
    return out


def abstract(pages: Sequence[PageText], heading: str = "") -> str:
    """Whole sentences from the start of the text (after the title), up to the limit; cut at
    a word otherwise."""
    text = _SPACE.sub(" ", " ".join(p.text for p in pages[:3])).strip()
    if heading and text.startswith(heading):
        text = text[len(heading) :].strip()
    kept = ""
    for sentence in _SENTENCE.split(text):
        if len(sentence.split()) < 4:
            continue
        joined = f"{kept} {sentence}".strip()
        if len(joined) > ABSTRACT_MAX:
            break
        kept = joined
    if kept:
        return kept
    cut = text[:ABSTRACT_MAX]
    return cut.rsplit(" ", 1)[0] if len(text) > ABSTRACT_MAX and " " in cut else cut


_LEAD = re.compile(r"^(?:[\W_]+|(?:the|for|by|and|between|of)\s+)+", re.IGNORECASE)


def _clean_party(raw: str) -> str:
    """`______ for Acme Ltd` and `the Acme Ltd,` are both `Acme Ltd`."""
    name = _LEAD.sub("", _SPACE.sub(" ", raw)).strip(" ,;:.\"'“”")
    return name[:200]


def parties(pages: Sequence[PageText]) -> list[str]:
    found: list[str] = []

    def add(name: str) -> None:
        name = _clean_party(name)
        if len(name) >= 2 and name.lower() not in {f.lower() for f in found}:
            found.append(name)

    for page in pages:
        for match in _BETWEEN.finditer(page.text):
            add(match.group(1))
            add(match.group(2))
        for raw in page.text.splitlines():
            line = raw.strip()
            if len(line) <= 80 and COMPANY_SUFFIX.search(line):
                add(line.rsplit(":", 1)[-1])
    return found[:MAX_PARTIES]


def key_dates(pages: Sequence[PageText]) -> list[KeyDate]:
    found: list[KeyDate] = []
    for page in pages:
        for line in page.text.splitlines():
            folded = fold(line)
            for value in find_dates(line):
                before = (line if len(folded) == len(line) else folded)[: value.start]
                words = re.findall(r"[^\W\d_][\w'-]*", before)[-_LABEL_WORDS:]
                entry: KeyDate = {"label": " ".join(words)[:100] or "date", "date": value.iso}
                if entry not in found:
                    found.append(entry)
                if len(found) >= MAX_DATES:
                    return found
    return found


def _reason(code: str, page: int, detail: str = "") -> RiskReason:
    message = RULES[code].message + (f" ({detail})" if detail else "")
    return {"code": code, "message": message, "page": max(1, page)}


def _first_page(pages: Sequence[PageText], pattern: re.Pattern[str]) -> int | None:
    return next((p.page for p in pages if pattern.search(p.text)), None)


def risk_reasons(document: EnrichInput, pages: Sequence[PageText]) -> list[RiskReason]:
    found = _found(document, pages)
    return [r for r in found if RULES[r["code"]].judges(document.doc_type)]


def _found(document: EnrichInput, pages: Sequence[PageText]) -> list[RiskReason]:
    """Every rule's finding, before a rule's types are asked whether it judges this document."""
    reasons = []
    page = _first_page(pages, _UNLIMITED)
    if page:
        reasons.append(_reason("unlimited-liability", page))
    page = _first_page(pages, _AUTO_RENEW)
    if page:
        reasons.append(_reason("automatic-renewal", page))
    for p in pages:
        days = [int(m.group(1)) for m in _PAYMENT_DAYS.finditer(p.text)]
        longest = max(days, default=0)
        if longest > PAYMENT_DAYS_LIMIT:
            reasons.append(_reason("long-payment-terms", p.page, f"{longest} days"))
            break
    if pages and not _first_page(pages, _SIGNATURE):
        last = document.page_count or max(p.page for p in pages)
        reasons.append(_reason("missing-signature", last))
    sensitive = _sensitive(document, pages)
    if sensitive:
        reasons.append(sensitive)
    return reasons


def _sensitive(document: EnrichInput, pages: Sequence[PageText]) -> RiskReason | None:
    """From the classifier's counts (the whole document); the page is the first one the
    same detectors find something on among the pages read here (page 1 if none of them)."""
    named = document.review_on or tuple(document.sensitive)
    counted = {d: n for d, n in sorted(document.sensitive.items()) if n and d in named}
    if not counted:
        return None
    page = next(
        (
            p.page
            for p in pages
            if any(next(FINDERS[d](p.text), None) for d in counted if d in FINDERS)
        ),
        1,
    )
    detail = ", ".join(f"{d.replace('_', ' ')} x{n}" for d, n in counted.items())
    return _reason("sensitive-data", page, detail)
