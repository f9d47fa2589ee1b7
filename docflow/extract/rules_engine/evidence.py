"""Evidence about the whole document rather than one label: its language and date order, its
currency (a label, the signs beside its amounts, a country's tax numbers for a bare `$`),
numbers in a known shape with no label, and a point-of-sale prefix of an invoice number."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from docflow.extract.base import FoundField, PageInput
from docflow.extract.declarations.labels import LANGUAGE_MARKERS
from docflow.extract.declarations.parse import DMY, MDY, currency_in, find_amounts, find_dates, fold
from docflow.extract.rules_engine.layout import Page
from docflow.extract.rules_engine.matching import fold_keep_length
from docflow.extract.rules_engine.segments import FALLBACK, SAME_LINE, UNSURE, Candidate, Segment

_FALLBACK_IDS = {
    "invoice_number": re.compile(r"\bINV-?\d{3,}\b"),
    "po_number": re.compile(r"\bPO-?\d{3,}\b"),
}


def detect_language(text: str) -> str | None:
    folded = fold(text)
    scores = {
        lang: sum(len(re.findall(rf"(?<!\w){re.escape(m)}(?!\w)", folded)) for m in markers)
        for lang, markers in LANGUAGE_MARKERS.items()
    }
    best = max(scores, key=lambda k: scores[k])
    return best if scores[best] else None


def date_order(language: str | None, currency: str | None) -> str | None:
    """Which way 04/03/2026 reads: the language says it, or for English the currency does."""
    if language in ("de", "es", "fr", "it", "nl", "pt"):
        return DMY
    if currency == "USD":
        return MDY
    if currency in ("EUR", "GBP", "CHF", "INR") or (language is None and currency):
        return DMY
    return None


def read_currency(
    segments: Sequence[Segment],
    amounts: Sequence[Candidate],
    pages: Sequence[PageInput],
    factors: dict[int, float],
) -> FoundField | None:
    """The currency label's value, else the one printed beside the amounts, else anywhere."""
    for seg in segments:
        if seg.field == "currency" and (code := currency_in(seg.text.upper())):
            return FoundField(
                code,
                SAME_LINE * factors.get(seg.cell.page, 1.0),
                seg.cell.page,
                box=seg.cell.box,
                raw=seg.cell.text,
                evidence={"source": "label"},
            )
    seen: Counter[str] = Counter()
    first: dict[str, Candidate] = {}
    for cand in amounts:
        for amount in find_amounts(cand.raw):
            if amount.value == cand.value and amount.currency:
                seen[amount.currency] += 1
                first.setdefault(amount.currency, cand)
    if len(seen) == 1:
        code = next(iter(seen))
        cand = first[code]
        # `$` is also the Canadian, Australian, Argentine, Mexican ... dollar or peso: the
        # document's tax numbers may say which country it is from; a code or `€`/`£` is sure.
        symbol_only = code == "USD" and "USD" not in cand.raw.upper()
        if symbol_only:
            code = dollar_country(pages) or code
        base = 0.85 if symbol_only else 0.93
        factor = factors.get(cand.page, 1.0)
        source = "dollar-sign" if symbol_only else "beside-amounts"
        return FoundField(
            code,
            base * factor,
            cand.page,
            box=cand.box,
            raw=cand.raw,
            evidence={"source": source, "amounts": seen[code]},
        )
    if len(seen) > 1:
        code, _ = seen.most_common(1)[0]
        return FoundField(
            code,
            UNSURE,
            first[code].page,
            box=first[code].box,
            raw=first[code].raw,
            evidence={"source": "mixed-signs"},
        )
    for page in pages:
        if code := _beside_amounts(page.text) or currency_in(_WORDS.sub(" ", page.text)):
            if code == "USD" and "USD" not in page.text:
                code = dollar_country(pages) or code
            return FoundField(
                code,
                FALLBACK * factors.get(page.page, 1.0),
                page.page,
                evidence={"source": "page"},
            )
    # No sign and no code anywhere: a fiscal document of a country that prints its tax
    # numbers (a Brazilian NF-e's CNPJ) is in that country's money, which a person confirms.
    if code := dollar_country(pages):
        return FoundField(
            code, UNSURE, pages[0].page if pages else 1, evidence={"source": "country"}
        )
    return None


# Three capitals among other capitalised words are a word, not a code: `SDN BHD` (Malaysia's
# `Berhad`, not Bahrain's dinar), `SUMMER CUP 48X230ML` (a product, not the Cuban peso).
_WORDS = re.compile(r"(?<=[A-Z]{2} )[A-Z]{3}\b|\b[A-Z]{3}(?= [A-Z]{2})|\bBHD\b")


def _beside_amounts(text: str) -> str | None:
    """The currency printed most often right beside an amount anywhere on the page (`RM 4.13`
    on a receipt whose amounts have no label the engine knows)."""
    seen: Counter[str] = Counter()
    for line in text.splitlines():
        seen.update(
            a.currency
            for a in find_amounts(line)
            if a.currency and _CENTS.match(line, a.start)  # not `Roma RM 00144`: a postcode
        )
    return seen.most_common(1)[0][0] if seen else None


_CENTS = re.compile(r"-?\d[\d.,'\u00a0\u202f ]*[.,]\d{2}(?!\d)")


# Tax numbers that only one country prints, and the currency its `$` means.
_DOLLAR_COUNTRIES = (
    (re.compile(r"\bC\.?U\.?I\.?T\b|\bAFIP\b|\bIIBB\b"), "ARS"),
    (re.compile(r"\bR\.?F\.?C\b|\bCFDI\b"), "MXN"),
    (re.compile(r"\bCNPJ\b|\bCPF\b|R\$"), "BRL"),
    (re.compile(r"\bABN\b"), "AUD"),
    (re.compile(r"\bGST/HST\b|\bHST\b"), "CAD"),
)


def dollar_country(pages: Sequence[PageInput]) -> str | None:
    text = "\n".join(p.text for p in pages)
    for pattern, code in _DOLLAR_COUNTRIES:
        if pattern.search(text):
            return code
    return None


def unlabelled(
    pages: Sequence[PageInput], segments: Sequence[Segment], factors: dict[int, float]
) -> list[Candidate]:
    """Numbers in a known shape with no label."""
    out: list[Candidate] = []
    labelled = {s.field for s in segments}
    # A receipt prints its date with no label: the first date of the first page, unsure.
    dates = find_dates(pages[0].text) if pages and "invoice_date" not in labelled else []
    if dates and not dates[0].ambiguous:
        conf = FALLBACK * 0.85 * factors.get(pages[0].page, 1.0)
        out.append(
            Candidate(
                "invoice_date",
                dates[0].iso,
                conf,
                pages[0].page,
                "",
                10**9,
                evidence={"source": "unlabelled"},
            )
        )
    for page in pages:
        for name, pattern in _FALLBACK_IDS.items():
            if name not in labelled and (m := pattern.search(page.text)):
                conf = FALLBACK * factors.get(page.page, 1.0)
                out.append(
                    Candidate(
                        name, m[0], conf, page.page, m[0], 10**9, evidence={"source": "unlabelled"}
                    )
                )
    return out


_POINT_OF_SALE = re.compile(r"(?:punto de venta|pto\.? ?(?:de )?vta\.?)\D{0,8}(\d{4,5})\b", re.I)


def with_point_of_sale(number: FoundField, layouts: Sequence[Page]) -> FoundField:
    """A Latin-American invoice's number is its point of sale and its voucher number
    (`Punto de Venta: 00003  Comp. Nro: 00000128` -> `00003-00000128`)."""
    if not number.value.isdigit():
        return number
    for page in layouts:
        for cells in page.lines:
            line = " ".join(c.text for c in cells)
            m = _POINT_OF_SALE.search(fold_keep_length(line))
            if m and number.value in line[m.end() :]:
                return FoundField(
                    f"{m[1]}-{number.value}",
                    number.confidence,
                    number.page,
                    box=number.box,
                    raw=number.raw,
                    evidence={**number.evidence, "point_of_sale": True},
                )
    return number
