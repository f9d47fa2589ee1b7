"""What a page says about where it sits in a packet, read by rules from its text, words and size.

Each signal is one a person uses at a mailroom table: a title at the top (INVOICE, Rechnung,
Purchase Order), a page counter (Page 1 of 3, Seite 2/2) that restarts or goes on, a document
number or an issuer's tax id or IBAN that changes, a total line that closed the previous page,
a change of page size, orientation or letterhead, and a page that repeats the one before (the
ORIGINAL / DUPLICADO copies of one invoice). Values (numbers, ids) live only in these records,
inside the step that compares them: what is stored and checkpointed is scores and reason codes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from docflow.extract.declarations.labels import STRONG, WEAK
from docflow.extract.rules_engine.layout import Page, from_text, from_words
from docflow.readers.base import Word
from docflow.rules.model import Rules
from docflow.suppliers.ids import find_ids

# Title lines, by the type they open (lower case, accents folded). A line at the top of the
# page that is short and holds one of these starts a document of that type.
TITLES: dict[str, tuple[str, ...]] = {
    "invoice": (
        "invoice",
        "tax invoice",
        "rechnung",
        "handelsrechnung",
        "factura",
        "facture",
        "fattura",
        "fattura elettronica",
        "factuur",
        "fatura",
        "nota fiscal",
        "danfe",
    ),
    "credit-note": (
        "credit note",
        "credit memo",
        "gutschrift",
        "avoir",
        "nota de credito",
        "nota di credito",
        "creditnota",
    ),
    "purchase-order": (
        "purchase order",
        "bestellung",
        "orden de compra",
        "bon de commande",
        "ordine di acquisto",
        "inkooporder",
        "bestelling",
        "ordem de compra",
    ),
    "contract": (
        "agreement",
        "contract",
        "vertrag",
        "contrato",
        "contrat",
        "contratto",
        "overeenkomst",
    ),
    "report": ("report", "bericht", "informe", "rapport", "rapporto"),
}
TOP_BAND = 0.3  # the share of the page (from the top) where titles and letterheads sit
HEADER_BAND = 0.15
TITLE_MAX_WORDS = 8
TOP_LINES = 8  # without boxes: the first lines stand for the top of the page

_COUNTER = re.compile(
    r"\b(?:page|seite|pagina|pag|blatt|bladzijde|folha|feuille)\.?\s*:?\s*"
    r"(\d{1,4})(?:\s*(?:of|von|de|di|sur|van|/)\s*(\d{1,4}))?\b",
    re.IGNORECASE,
)
# A line that opens with a total's label, its amount on the line or on the next (a label
# above its value): the end of a bill.
_TOTAL_LABELS = (
    "grand total|total due|total amount|amount due|amount payable|balance due|invoice total"
    "|order total|total|gesamtbetrag|rechnungsbetrag|zahlbetrag|endsumme|bruttosumme"
    "|rechnungssumme|summe|total a pagar|importe total|total factura|total general"
    "|net a payer|total ttc|montant ttc|montant total|totale documento|totale|te betalen"
    "|totaalbedrag|totaal|bedrag incl|valor total|total geral"
)
_TOTAL = re.compile(
    rf"^[ \t*]*(?:{_TOTAL_LABELS})(?![a-z])[^\n\d]*(?:\d|\n[^\n\d]*\d)",
    re.IGNORECASE | re.MULTILINE,
)
_TITLE_PATTERNS = {
    doc_type: re.compile(
        "(?<![a-z])(?:"
        + "|".join(re.escape(t) for t in sorted(titles, key=len, reverse=True))
        + ")(?![a-z])"
    )
    for doc_type, titles in TITLES.items()
}
# A title word followed by one of these opens a label (`Invoice date:`), not a title.
_LABEL_AFTER = re.compile(
    r"\s*(?:date|datum|fecha|data|number|no\b|nr\b|total|amount|address|period|due|to\b"
    r"|terms|details|lines|items|reference|ref\b|id\b)",
)
_ID_VALUE = r"([A-Za-z0-9][A-Za-z0-9\-/._]{0,30}\d[A-Za-z0-9\-/._]{0,30})"
_WORD = re.compile(r"[a-z]{3,}")
_TOKEN = re.compile(r"\w+")


def fold(text: str) -> str:
    """Lower case, accents dropped: `Número` and `numero` are one label."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _number_pattern() -> re.Pattern[str]:
    labels = {*STRONG["invoice_number"], *STRONG["po_number"]}
    labels |= {*WEAK["invoice_number"], *WEAK["po_number"]}
    labels = {fold(label) for label in labels if len(label) > 2}
    joined = "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))
    # `Invoice No. INV-2093`, `Rechnung # RE-2017/505`, `Factura Nº 0005-00011643`.
    return re.compile(
        rf"(?<![a-z])(?:{joined})\s*(?:n[o°º]\.?|nr\.?|#|:)?\s*[:#.]?\s*{_ID_VALUE}",
        re.IGNORECASE,
    )


_NUMBER = _number_pattern()


@dataclass(frozen=True)
class PageSignals:
    """One page's signals. `readable` false: PDFium refused the page, nothing is known of it."""

    page: int
    readable: bool = True
    blank: bool = False
    doc_type: str = ""  # the rules file's type whose words the page holds most
    title: str = ""  # the type a title line at the top of the page names
    counter: tuple[int, int] | None = None  # (n, of); of is 0 when the page prints no total
    numbers: frozenset[str] = frozenset()  # document numbers printed after a number label
    issuer_ids: frozenset[str] = frozenset()  # checked tax ids and IBANs
    closes: bool = False  # a total line: the end of a bill
    size: tuple[int, int] = (0, 0)  # points, rounded
    header: frozenset[str] = frozenset()  # the letterhead's words (no digits)
    tokens: frozenset[str] = field(default=frozenset(), repr=False)  # every word, for repeats


def read_signals(
    page: int,
    text: str,
    words: Sequence[Word],
    size: tuple[float, float],
    rules: Rules | None,
) -> PageSignals:
    """Pure: a page's signals from its text, its words (boxes; may be empty) and its size."""
    rounded = (round(size[0]), round(size[1]))
    if not text.strip():
        return PageSignals(page, blank=True, size=rounded)
    layout = from_words(page, words) if words else from_text(page, text)
    top, header = _bands(layout, bool(words))
    folded = fold(text)
    return PageSignals(
        page=page,
        doc_type=_doc_type(text, rules),
        title=_title(top),
        counter=_counter(folded),
        numbers=frozenset(m.group(1).upper().strip("./-") for m in _NUMBER.finditer(folded)),
        issuer_ids=frozenset(f"{i.kind}:{i.value}" for i in find_ids(text)),
        closes=bool(_TOTAL.search(folded)),
        size=rounded,
        header=frozenset(_WORD.findall(" ".join(header))),
        tokens=frozenset(_TOKEN.findall(folded)),
    )


def unreadable(page: int) -> PageSignals:
    return PageSignals(page, readable=False)


def _bands(layout: Page, boxed: bool) -> tuple[list[str], list[str]]:
    """The lines at the top of the page (titles) and in its letterhead, folded."""
    lines = [(" ".join(c.text for c in line), line[0].y0) for line in layout.lines if line]
    if not boxed:
        texts = [fold(t) for t, _ in lines]
        return texts[:TOP_LINES], texts[:3]
    top = [fold(t) for t, y in lines if y < TOP_BAND]
    header = [fold(t) for t, y in lines if y < HEADER_BAND]
    return top, header


def _title(lines: list[str]) -> str:
    """The type a title line names: a short line that opens with a title (`INVOICE 103767`,
    `Rechnung # RE-505`) or a two-word one that ends with it (`SERVICES AGREEMENT`); not a
    label line (`Invoice date: ...`) nor a section heading inside a longer line."""
    for line in lines:
        words = line.strip(" -*•|#").split()
        if not words or len(words) > TITLE_MAX_WORDS:
            continue
        text = " ".join(words)
        for doc_type, pattern in _TITLE_PATTERNS.items():
            opens = pattern.match(text)
            if opens and not _LABEL_AFTER.match(text[opens.end() :]):
                return doc_type
            closes = pattern.search(text)
            if closes and len(words) <= 2 and not text[closes.end() :].strip(" :"):
                return doc_type
    return ""


def _counter(folded: str) -> tuple[int, int] | None:
    for match in _COUNTER.finditer(folded):
        n, of = int(match.group(1)), int(match.group(2) or 0)
        if n >= 1 and (of == 0 or n <= of):
            return n, of
    return None


def _doc_type(text: str, rules: Rules | None) -> str:
    if rules is None:
        return ""
    hits = {t.name: n for t in rules.types if (n := t.hits(text)) >= t.min_hits}
    return max(sorted(hits), key=lambda name: hits[name]) if hits else ""
