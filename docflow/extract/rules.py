"""The `rules` engine: printed labels and value patterns over the page text. Local and free.

For each line it finds every known label (`labels.py`), reads the value printed after it (or,
for a label alone on its line, on the next line) with the locale-aware parsers in `parse.py`,
and scores it:

    0.95  a specific label with its value on the same line      (`Invoice number: INV-1`)
    0.88  the value on the line after its label
    0.90  a bare title or generic label (`INVOICE INV-1`, `Date: ...`)
    x0.95 a day/month order decided by the document's language or currency
    0.45  a day/month order nothing decided, or labels that disagree about one field
    x     the page's OCR confidence, for pages read by OCR

so the checks can send what the engine is unsure of to a person.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from docflow.extract.base import Extraction, FoundField, PageInput
from docflow.extract.fields import AMOUNT, DATE, FIELD_KINDS, ID, TEXT
from docflow.extract.labels import IGNORED, LANGUAGE_MARKERS, STRONG, WEAK
from docflow.extract.parse import DMY, MDY, currency_in, find_amounts, find_dates, fold

SAME_LINE, NEXT_LINE, WEAK_LABEL, FALLBACK = 0.95, 0.88, 0.90, 0.70
UNSURE = 0.45
# Local OCR reads with tesseract's English model, which drops accents (`Müller` -> `Muller`):
# free text it reads in a German, Spanish or French document is not to be trusted unchecked.
OCR_ACCENTS = 0.8


def _pattern(label: str) -> str:
    return r"\s+".join(re.escape(word) for word in label.split())


def _label_regex() -> tuple[re.Pattern[str], dict[str, tuple[str | None, bool]]]:
    meaning: dict[str, tuple[str | None, bool]] = {}
    for name, labels in WEAK.items():
        meaning.update({label: (name, False) for label in labels})
    for name, labels in STRONG.items():
        meaning.update({label: (name, True) for label in labels})
    meaning.update({label: (None, True) for label in IGNORED})
    ordered = sorted(meaning, key=len, reverse=True)
    alternation = "|".join(_pattern(label) for label in ordered)
    return re.compile(rf"(?<![\w])(?:{alternation})(?![\w])", re.IGNORECASE), meaning


_LABELS, _MEANING = _label_regex()
# What stands between a label and its value: `No.`, `Nr.`, `n°`, `#`, and OCR's readings of
# `nº` (`n2`, `n°`), which would otherwise be taken for the number itself.
_SKIP = re.compile(
    r"^[\s:#.\-=]*(?:(?:no|nr|num|number|nummer|numero|n2)\b\.?|n°|nº|#)?[\s:#.\-=]*",
    re.IGNORECASE,
)
_ID_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9\-/._]*[A-Za-z0-9]|^[0-9]")
_COMPANY = re.compile(
    r"\b(GmbH|AG|KG|Ltd\.?|Limited|Inc\.?|LLC|PLC|S\.L\.U?\.?|SL|S\.A\.S?\.?|SA|SAS|SARL|SRL"
    r"|Corp\.?|Co\.|B\.V\.|BV|e\.K\.)\s*$",
    re.IGNORECASE,
)
# Public for the enrich rules engine, which names a document's parties with it.
COMPANY_SUFFIX = _COMPANY
_FALLBACK_IDS = {
    "invoice_number": re.compile(r"\bINV-?\d{3,}\b"),
    "po_number": re.compile(r"\bPO-?\d{3,}\b"),
}


def fold_keep_length(text: str) -> str:
    """Accents removed character by character, so offsets still point into the original."""
    out = []
    for char in text:
        bare = "".join(
            c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
        )
        out.append(bare if len(bare) == 1 else char)
    return "".join(out)


@dataclass(frozen=True)
class Candidate:
    name: str
    value: str
    confidence: float
    page: int
    raw: str
    order: int


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
    if language in ("de", "es", "fr"):
        return DMY
    if currency == "USD":
        return MDY
    if currency in ("EUR", "GBP", "CHF") or (language is None and currency):
        return DMY
    return None


class RulesEngine:
    name = "rules"

    def extract(self, pages: Sequence[PageInput], names: Sequence[str]) -> Extraction:
        text = "\n".join(p.text for p in pages)
        language = detect_language(text)
        segments = [seg for page in pages for seg in _segments(page, language)]
        candidates: list[Candidate] = []
        # Amounts first: their currencies decide which way a numeric date reads.
        for seg in segments:
            if seg.field and FIELD_KINDS[seg.field] == AMOUNT:
                candidates.extend(_read(seg, None))
        currency = _currency(segments, candidates, pages)
        order = date_order(language, currency.value if currency else None)
        for seg in segments:
            if seg.field and FIELD_KINDS[seg.field] != AMOUNT:
                candidates.extend(_read(seg, order))
        candidates.extend(_fallbacks(pages, segments))
        found = _choose(candidates)
        if currency and "currency" not in found:
            found["currency"] = currency
        wanted = {n: f for n, f in found.items() if n in names}
        # A label that starts its line and nothing readable after it: a smudged value, which
        # the checks must send to a person even when the field is not required.
        # Dates count wherever their label stands: a date label is never a title.
        labelled = {
            s.field
            for s in segments
            if s.field and ((s.strong and s.starts_line) or FIELD_KINDS[s.field] == DATE)
        }
        rejected = [
            {"field": n, "reason": "label found, value unreadable"}
            for n in sorted(labelled)
            if n in names and n not in found
        ]
        return Extraction(self.name, fields=wanted, rejected=rejected, language=language)


@dataclass(frozen=True)
class Segment:
    field: str | None
    strong: bool
    text: str  # the value text after the label (original characters)
    raw: str  # the whole line, for the record
    page: int
    factor: float  # the page's OCR factor
    order: int
    next_line: bool = False
    starts_line: bool = False
    ocr_model_misses_accents: bool = False


def _ocr_factor(page: PageInput) -> float:
    if page.engine == "textlayer":
        return 1.0
    return max(0.0, min(1.0, page.confidence / 100.0 + 0.04))


def _segments(page: PageInput, language: str | None) -> list[Segment]:
    lines = page.text.splitlines()
    factor = _ocr_factor(page)
    accents = page.engine == "tesseract" and language not in (None, "en")
    found: list[Segment] = []
    for number, line in enumerate(lines):
        folded = fold_keep_length(line)
        matches = list(_LABELS.finditer(folded))
        for i, m in enumerate(matches):
            name, strong = _MEANING.get(_key(m[0]), (None, True))
            end = matches[i + 1].start() if i + 1 < len(matches) else len(line)
            value = line[m.end() : end]
            value = value[_SKIP.match(value).end() :] if _SKIP.match(value) else value  # type: ignore[union-attr]
            order = page.page * 10_000 + number * 10 + i
            starts = not line[: m.start()].strip()
            found.append(
                Segment(
                    name,
                    strong,
                    value.strip(),
                    line,
                    page.page,
                    factor,
                    order,
                    starts_line=starts,
                    ocr_model_misses_accents=accents,
                )
            )
            # A label alone on its line (`MwSt 19%` counts as alone) may have its value on the
            # next one; `_read` uses that reading only when the same line gives no value.
            alone = not line[: m.start()].strip() and len(matches) == 1
            generic_date = name is not None and FIELD_KINDS[name] == DATE
            if alone and (strong or generic_date) and _blank_beyond_rate(value):
                nxt = next((ln for ln in lines[number + 1 : number + 3] if ln.strip()), "")
                if nxt and not _LABELS.search(fold_keep_length(nxt)):
                    found.append(
                        Segment(
                            name,
                            strong,
                            nxt.strip(),
                            nxt,
                            page.page,
                            factor,
                            order,
                            True,
                            starts_line=True,
                            ocr_model_misses_accents=accents,
                        )
                    )
    return found


def _blank_beyond_rate(value: str) -> bool:
    return not any(c.isalnum() for c in re.sub(r"\(?\d+(?:[.,]\d+)?\s*%\)?", "", value))


def _key(label: str) -> str:
    return " ".join(fold(label).split())


def _read(seg: Segment, order: str | None) -> list[Candidate]:
    assert seg.field is not None
    base = SAME_LINE if seg.strong else WEAK_LABEL
    if seg.next_line:
        base = NEXT_LINE if seg.strong else NEXT_LINE - 0.03
    value, scale = _value(FIELD_KINDS[seg.field], seg, order)
    if value is None:
        return []
    confidence = UNSURE if scale is None else base * scale
    return [Candidate(seg.field, value, confidence * seg.factor, seg.page, seg.raw, seg.order)]


def _value(kind: str, seg: Segment, order: str | None) -> tuple[str | None, float | None]:
    """The value in a segment and a confidence scale (None: unsure whatever the label)."""
    if kind == ID:
        token = seg.text.split()[0] if seg.text.split() else ""
        m = _ID_TOKEN.match(token)
        return (m[0], 1.0) if m and any(c.isdigit() for c in m[0]) else (None, 1.0)
    if kind == TEXT:
        text = re.split(r"\s{2,}|\s\|\s", seg.text)[0].strip(" :-,")
        if sum(c.isalpha() for c in text) < 2 or not seg.strong:
            return None, 1.0
        return text, OCR_ACCENTS if seg.ocr_model_misses_accents else 1.0
    if kind == DATE:
        dates = find_dates(seg.text, order)
        if not dates:
            return None, 1.0
        if dates[0].ambiguous:
            return dates[0].iso, 0.95 if dates[0].resolved else None
        return dates[0].iso, 1.0
    if kind == AMOUNT:
        amounts = find_amounts(seg.text)
        return (amounts[-1].value, 1.0) if amounts else (None, 1.0)
    return currency_in(seg.text.upper()) or None, 1.0


def _currency(
    segments: Sequence[Segment], amounts: Sequence[Candidate], pages: Sequence[PageInput]
) -> FoundField | None:
    """The currency label's value, else the one printed beside the amounts, else anywhere."""
    for seg in segments:
        if seg.field == "currency" and (code := currency_in(seg.text.upper())):
            return FoundField(code, SAME_LINE * seg.factor, seg.page, raw=seg.raw)
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
        # `$` is also the Canadian, Australian, ... dollar; a code or `€`/`£` is not.
        symbol_only = code == "USD" and "USD" not in cand.raw.upper()
        base = 0.85 if symbol_only else 0.93
        factor = next((_ocr_factor(p) for p in pages if p.page == cand.page), 1.0)
        return FoundField(code, base * factor, cand.page, raw=cand.raw)
    if len(seen) > 1:
        code, _ = seen.most_common(1)[0]
        return FoundField(code, UNSURE, first[code].page, raw=first[code].raw)
    for page in pages:
        if code := currency_in(page.text):
            return FoundField(code, FALLBACK * _ocr_factor(page), page.page)
    return None


def _fallbacks(pages: Sequence[PageInput], segments: Sequence[Segment]) -> list[Candidate]:
    """Numbers in a known shape with no label, and a company name heading the page."""
    out: list[Candidate] = []
    labelled = {s.field for s in segments}
    for page in pages:
        factor = _ocr_factor(page)
        for name, pattern in _FALLBACK_IDS.items():
            if name not in labelled and (m := pattern.search(page.text)):
                out.append(Candidate(name, m[0], FALLBACK * factor, page.page, m[0], 10**9))
        if "vendor_name" in labelled:
            continue
        for line in [ln.strip() for ln in page.text.splitlines() if ln.strip()][:6]:
            if _COMPANY.search(line) and not _LABELS.search(fold_keep_length(line)):
                out.append(Candidate("vendor_name", line, 0.85 * factor, page.page, line, 10**9))
                break
    return out


def _choose(candidates: Sequence[Candidate]) -> dict[str, FoundField]:
    """One value per field: the strongest reading; labels that disagree make it unsure."""
    by_name: dict[str, list[Candidate]] = {}
    for cand in candidates:
        by_name.setdefault(cand.name, []).append(cand)
    chosen: dict[str, FoundField] = {}
    for name, cands in by_name.items():
        best = max(cands, key=lambda c: (round(c.confidence, 2), c.order))
        confidence = best.confidence
        if len({c.value for c in cands if c.confidence >= best.confidence - 0.1}) > 1:
            confidence = min(confidence, UNSURE)
        chosen[name] = FoundField(best.value, confidence, best.page, raw=best.raw)
    return chosen
