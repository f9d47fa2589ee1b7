"""The `rules` engine: printed labels, their positions and value patterns. Local and free.

Each page is laid out as lines of cells (`layout.py`, from the reader's word boxes, or from the
text when the engine gave none). Every known label (`labels.toml`, seven languages, matched
fuzzily on OCR pages) gives candidates: the value in its own cell, else the nearest cell to its
right, else the cells under it. Each candidate's confidence is the product of its evidence:

    position      0.95 own cell or right (strong label), 0.90 weak label (`INVOICE INV-1`),
                  0.88 / 0.85 / 0.82 one / two / three lines under its label
    label         1.0 for an exact label, the fuzzy score for an OCR-misread one
    value         x0.95 a day/month order the language or currency decided, x0.9 a date only
                  `dateparser` could read; 0.45 an undecidable day/month order
    OCR           the OCR confidence of the value's own words (the page's, without words)
    repair        x0.6 an identifier whose OCR confusions were repaired (`INV-O005`)
    agreement     0.45 when labels disagree about a field; amounts that reconcile
                  (net + tax = total) rise to 0.97 x OCR

so the checks can send what the engine is unsure of to a person. The vendor's name, when no
label names it, comes from the issuer block (`vendor.py`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from docflow.extract.amounts import LIFT, RECONCILED, picked_all, reconcile
from docflow.extract.base import Extraction, FoundField, PageInput
from docflow.extract.fields import AMOUNT, DATE, FIELD_KINDS, ID, TEXT
from docflow.extract.identifiers import read_identifier
from docflow.extract.labels import LANGUAGE_MARKERS
from docflow.extract.layout import Cell, Page, below, from_text, from_words, right_of
from docflow.extract.matching import LabelHit, find_labels, fold_keep_length
from docflow.extract.parse import (
    DMY,
    MDY,
    currency_in,
    find_amounts,
    find_dates,
    fold,
    parse_date_loosely,
)
from docflow.extract.vendor import guess_vendor

SAME_LINE, NEXT_LINE, WEAK_LABEL, FALLBACK = 0.95, 0.88, 0.90, 0.70
HEADER = 0.6  # an amount under a column header of a table
UNSURE = 0.45
REPAIRED = 0.6
# OCR drops or swaps accents (`Müller` -> `Muller`) with a confident score: free text that OCR
# read in a language that has them is not to be trusted unchecked.
OCR_ACCENTS = 0.85
# What stands between a label and its value: `No.`, `Nr.`, `n°`, `#`, and OCR's readings of
# `nº` (`n2`, `n°`), which would otherwise be taken for the number itself.
_TAX_NUMBER = re.compile(r"\b[A-Z]{2}\s?\d{2}\s?\d{3}\s?\d{3}\s?\d{3}\b")
_SKIP = re.compile(
    r"^[\s:#.\-=]*(?:(?:no|nr|num|number|nummer|numero|n2|n)\b\.?|n°|nº|#)?[\s:#.\-=]*",
    re.IGNORECASE,
)
_FALLBACK_IDS = {
    "invoice_number": re.compile(r"\bINV-?\d{3,}\b"),
    "po_number": re.compile(r"\bPO-?\d{3,}\b"),
}
_LANG_CODES = {"en": "en", "de": "de", "fr": "fr", "es": "es", "it": "it", "nl": "nl", "pt": "pt"}


@dataclass(frozen=True)
class Candidate:
    name: str
    value: str
    confidence: float
    page: int
    raw: str
    order: int
    box: list[float] | None = None
    repaired: str | None = None
    ocr: float = 1.0  # the OCR factor its confidence carries


@dataclass(frozen=True)
class Segment:
    """A label's value text: in its own cell, to its right, or `down` lines under it."""

    field: str
    strong: bool
    text: str
    cell: Cell
    start: int  # where the value starts in `cell.text`
    order: int
    base: float
    quality: float
    ocr: bool
    starts_cell: bool


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


def _ocr_factor(page: PageInput) -> float:
    if page.engine == "textlayer":
        return 1.0
    return max(0.0, min(1.0, page.confidence / 100.0 + 0.04))


def layout_of(page: PageInput) -> Page:
    return from_words(page.page, page.words) if page.words else from_text(page.page, page.text)


class RulesEngine:
    name = "rules"

    def extract(self, pages: Sequence[PageInput], names: Sequence[str]) -> Extraction:
        text = "\n".join(p.text for p in pages)
        language = detect_language(text)
        layouts = [layout_of(p) for p in pages]
        factors = {p.page: _ocr_factor(p) for p in pages}
        ocr = {p.page: p.engine != "textlayer" for p in pages}
        segments = [s for lay in layouts for s in _segments(lay, ocr[lay.number])]
        candidates: list[Candidate] = []
        # Amounts first: their currencies decide which way a numeric date reads.
        for seg in segments:
            if FIELD_KINDS[seg.field] == AMOUNT:
                candidates.extend(_read(seg, None, language, factors))
        currency = _currency(segments, candidates, pages, factors)
        order = date_order(language, currency.value if currency else None)
        for seg in segments:
            if FIELD_KINDS[seg.field] != AMOUNT:
                candidates.extend(_read(seg, order, language, factors))
        candidates.extend(_fallbacks(pages, segments, factors))
        found, repaired = _choose(candidates)
        if "invoice_number" in found:
            found["invoice_number"] = _with_point_of_sale(found["invoice_number"], layouts)
        if "vendor_name" not in found and layouts:
            first = layouts[0].number
            factor = factors.get(first, 1.0)
            if ocr.get(first) and language not in (None, "en"):
                factor *= OCR_ACCENTS
            guess = guess_vendor(layouts, factor)
            if guess:
                found["vendor_name"] = FoundField(
                    guess.value, guess.confidence, guess.page, box=guess.box, raw=guess.raw
                )
        if currency and "currency" not in found:
            found["currency"] = currency
        wanted = {n: f for n, f in found.items() if n in names}
        # A label that starts its cell with nothing readable after it: a smudged value, which
        # the checks must send to a person even when the field is not required.
        labelled = {s.field for s in segments if (s.strong and s.starts_cell)}
        rejected = [
            {"field": n, "reason": "label found, value unreadable"}
            for n in sorted(labelled)
            if n in names and n not in found
        ]
        result = Extraction(self.name, fields=wanted, rejected=rejected, language=language)
        result.repairs = {n: o for n, o in repaired.items() if n in names}
        return result


def _blank_beyond_rate(value: str) -> bool:
    return not any(c.isalnum() for c in re.sub(r"\(?\d+(?:[.,]\d+)?\s*%\)?", "", value))


def _segments(page: Page, ocr: bool) -> list[Segment]:
    found: list[Segment] = []
    for line_cells in page.lines:
        # A row of several labels is a table's header: the amounts under it are line items
        # more often than totals, so they score lower (reconciliation may still pick them).
        header = sum(_starts_with_label(c, ocr) for c in line_cells) >= 2
        for position, cell in enumerate(line_cells):
            hits = find_labels(cell.text, ocr)
            for i, hit in enumerate(hits):
                if hit.field is None:
                    continue
                end = hits[i + 1].start if i + 1 < len(hits) else len(cell.text)
                rest = cell.text[hit.end : end]
                skip = _SKIP.match(rest)
                start = hit.end + (skip.end() if skip else 0)
                value = cell.text[start:end]
                order = page.number * 1_000_000 + cell.line * 100 + position * 10 + i
                starts = not cell.text[: hit.start].strip()
                base = SAME_LINE if hit.strong else WEAK_LABEL
                common = (hit.field, hit.strong)
                kind = FIELD_KINDS[hit.field]
                # A name's label starts its cell and has a colon before its value: `Lieferant
                # GmbH` and `LOGO Vendeur` are a name and a caption, not a label and a value.
                if kind == TEXT and (not starts or (value.strip() and ":" not in rest[:3])):
                    continue
                found.append(
                    Segment(*common, value.strip(), cell, start, order, base, hit.quality, ocr,
                            starts)
                )
                if kind == ID and hit.field == "invoice_number":
                    found.extend(_date_after_number(cell, start, end, order, hit, ocr))
                # The cell's first label names it; later ones qualify it (`Total € incl. VAT`,
                # `Subtotaal ex. BTW`): only the first looks beside and under the cell, and only
                # when nothing after it in the cell is a value.
                lead = hit is next(h for h in hits if h.field)
                value = re.sub(r"^\s*\(\d{1,4}\)", "", value)  # `Handelsrechnung (380)`: a code
                tail = re.sub(r"^\s*\(\d{1,4}\)", "", cell.text[hit.end :])
                empty = _blank_beyond_rate(tail) if kind == TEXT else _no_digits(tail)
                # A label that ends its cell (`Positionen netto || 804,35`) has its value beside
                # it too.
                ends = kind != TEXT and (not value.strip(" :.-") or _no_digits(value))
                if lead and empty and kind == ID and not hit.strong:
                    found.extend(_number_to_the_right(page, cell, hit, order, ocr))
                if not (lead and empty and (starts or ends)):
                    continue
                if not (hit.strong or kind == DATE):
                    continue
                in_header = header and kind == AMOUNT
                found.extend(_neighbours(page, cell, common, order, hit.quality, ocr, in_header))
            named = [h for h in hits if h.field]
            if named and FIELD_KINDS[named[0].field or ""] == AMOUNT:
                found.extend(_amount_to_the_right(page, cell, named[0], ocr))
            if _PLACE_AND_DATE.search(cell.text) and (right := right_of(page, cell)) is not None:
                order = page.number * 1_000_000 + cell.line * 100 + position * 10
                found.append(Segment("invoice_date", False, right.text, right, 0, order,
                                     WEAK_LABEL, 1.0, ocr, True))
    return found


_NUMBER_KEY = re.compile(r"^\s*(?:nr|no|n°|nº|#|number|numero|nummer)\.?\s*:?\s*", re.IGNORECASE)


def _number_to_the_right(
    page: Page, cell: Cell, hit: LabelHit, order: int, ocr: bool
) -> list[Segment]:
    """`Rechnung || Nr. 471102`: a title whose number stands in the next cell behind `Nr.`."""
    assert hit.field is not None
    right = right_of(page, cell)
    m = _NUMBER_KEY.match(right.text) if right is not None else None
    if right is None or not m or not m.group().strip():
        return []
    found = [Segment(hit.field, False, right.text[m.end() :], right, m.end(), order, WEAK_LABEL,
                     hit.quality, ocr, True)]
    # `... || Nr. 47110815 || vom || 01.12.2025`: the date of the number, beside it.
    after = right_of(page, right)
    if after is not None and _DATE_OF.match(after.text):
        dated = after if find_dates(after.text) else right_of(page, after)
        if dated is not None and find_dates(dated.text):
            found.append(Segment("invoice_date", True, dated.text, dated, 0, order, NEXT_LINE,
                                 hit.quality, ocr, False))
    return found


# `München, den || 01.11.2024`: a letter's place and date, which is the invoice's date.
_PLACE_AND_DATE = re.compile(r"\w,\s*(?:den|le|el|il)$", re.IGNORECASE)
_DATE_OF = re.compile(r"^\s*(?:vom|von|du|del|de|dated|of|issued|den)\b", re.IGNORECASE)


def _no_digits(value: str) -> bool:
    return not any(c.isdigit() for c in re.sub(r"\(?\d+(?:[.,]\d+)?\s*%\)?", "", value))


def _amount_to_the_right(page: Page, cell: Cell, hit: LabelHit, ocr: bool) -> list[Segment]:
    """`USt. 19% auf 804,35 € || 152,83 €`: an amount label's cell holds a rate or a base, and
    the amount itself stands alone in the next cell; that reading is the stronger one."""
    assert hit.field is not None
    right = right_of(page, cell)
    if right is not None and _no_digits(right.text) and not _starts_with_label(right, ocr):
        right = right_of(page, right)  # `Nettobetrag || (zzgl. MwSt.) || 376,37`
    if right is None or not find_amounts(right.text) or _starts_with_label(right, ocr):
        return []
    if any(c.isalpha() for c in re.sub(r"[A-Z]{3}|€|\$|£|₹", "", right.text)):
        return []
    order = page.number * 1_000_000 + cell.line * 100 + 99
    return [Segment(hit.field, hit.strong, right.text, right, 0, order, SAME_LINE, hit.quality,
                    ocr, True)]


def _date_after_number(
    cell: Cell, start: int, end: int, order: int, hit: LabelHit, ocr: bool
) -> list[Segment]:
    """`Rechnung Nr. RE-1 vom 09.05.2017`, `Invoice # 508 issued at 2020-11-21`: a date printed
    right after the invoice's number, in the same cell, is the invoice's date."""
    value = cell.text[start:end]
    parts = value.split(maxsplit=1)
    if len(parts) < 2 or not find_dates(parts[1][:40]):
        return []
    offset = start + value.index(parts[1])
    return [Segment("invoice_date", True, parts[1], cell, offset, order, SAME_LINE, hit.quality,
                    ocr, False)]


def _neighbours(
    page: Page,
    cell: Cell,
    common: tuple[str, bool],
    order: int,
    quality: float,
    ocr: bool,
    in_header: bool = False,
) -> list[Segment]:
    """A label alone in its cell: the value may be the cell to its right or under it."""
    out = []
    right = right_of(page, cell)
    if right is not None and not _starts_with_label(right, ocr):
        out.append(Segment(*common, right.text, right, 0, order, SAME_LINE, quality, ocr, True))
    if FIELD_KINDS[common[0]] == TEXT:
        out.extend(_name_under(page, cell, common, order, quality, ocr))
    for down, under in below(page, cell, max_lines=4):
        if _starts_with_label(under, ocr):
            break
        if under.text.rstrip().endswith(":"):  # a key of its own (`Nummer:`), not a value
            continue
        base = (HEADER if in_header else NEXT_LINE) - 0.03 * (down - 1)
        out.append(Segment(*common, under.text, under, 0, order, base, quality, ocr, True))
        break
    return out


_NAME_KEY = re.compile(
    r"^(?:name|company|firma|firmenname|nom|raison sociale|nombre|razon social|denominacion"
    r"|ragione sociale|denominazione|naam|bedrijfsnaam|nome|razao social)\s*:?\s*",
    re.IGNORECASE,
)


def _name_under(
    page: Page, cell: Cell, common: tuple[str, bool], order: int, quality: float, ocr: bool
) -> list[Segment]:
    """`Verkäufer` over a block of keys: the value of its `Name:` key is the name."""
    for _down, under in below(page, cell, max_lines=6):
        m = _NAME_KEY.match(fold_keep_length(under.text))
        if not m:
            continue
        if under.text[m.end() :].strip():
            return [Segment(*common, under.text[m.end() :].strip(), under, m.end(), order,
                            NEXT_LINE, quality, ocr, True)]
        right = right_of(page, under)
        if right is not None:
            return [Segment(*common, right.text, right, 0, order, NEXT_LINE, quality, ocr, True)]
    return []


def _starts_with_label(cell: Cell, ocr: bool) -> bool:
    hits = find_labels(cell.text, ocr)
    return bool(hits) and not cell.text[: hits[0].start].strip()


def _read(
    seg: Segment, order: str | None, language: str | None, factors: dict[int, float]
) -> list[Candidate]:
    kind = FIELD_KINDS[seg.field]
    base = seg.base if seg.strong else min(seg.base, WEAK_LABEL)
    value, scale, span, repaired = _value(kind, seg, order, language)
    if value is None:
        return []
    confidence = UNSURE if scale is None else base * scale * seg.quality
    words = seg.cell.words_confidence(seg.start + span[0], seg.start + span[1]) if seg.ocr else None
    ocr = factors.get(seg.cell.page, 1.0) if words is None else min(1.0, words + 0.04)
    if repaired:
        confidence *= REPAIRED
    if kind == TEXT and seg.ocr and language not in (None, "en"):
        confidence *= OCR_ACCENTS
    box = seg.cell.sub_box(seg.start + span[0], seg.start + span[1])
    return [
        Candidate(
            seg.field, value, confidence * ocr, seg.cell.page, seg.cell.text, seg.order, box,
            repaired, ocr,
        )
    ]


def _value(
    kind: str, seg: Segment, order: str | None, language: str | None
) -> tuple[str | None, float | None, tuple[int, int], str | None]:
    """(value, confidence scale or None for unsure, its span in seg.text, repaired-from)."""
    text = seg.text
    whole = (0, len(text))
    if kind == ID:
        found = read_identifier(text, seg.ocr)
        if not found:
            return None, 1.0, whole, None
        token = text.split()[0]
        return found[0], 1.0, (0, len(token)), found[1]
    if kind == TEXT:
        value = re.split(r"\s{2,}|\s\|\s", text)[0].strip(" :-,")
        if sum(c.isalpha() for c in value) < 2 or not seg.strong:
            return None, 1.0, whole, None
        return value, 1.0, (0, len(value)), None
    if kind == DATE:
        dates = find_dates(text, order)
        if not dates:
            if len(text) >= 30:
                return None, 1.0, whole, None
            return parse_date_loosely(text, order, _languages(language)), 0.9, whole, None
        first = dates[0]
        if first.ambiguous:
            return first.iso, (0.95 if first.resolved else None), whole, None
        return first.iso, 1.0, whole, None
    if kind == AMOUNT:
        if _TAX_NUMBER.search(text):
            return None, 1.0, whole, None  # `N° TVA : FR 05 987 654 321` is no amount
        amounts = find_amounts(text)
        if not amounts:
            return None, 1.0, whole, None
        last = amounts[-1]
        # Invoices print amounts with their cents; a whole number is as often a code or a count.
        scale = 1.0 if re.search(r"[.,]\d{2}\s*\D{0,4}$", text[last.start :]) else 0.85
        return last.value, scale, (last.start, len(text)), None
    return currency_in(text.upper()) or None, 1.0, whole, None


def _languages(language: str | None) -> tuple[str, ...]:
    return ("en", language) if language and language != "en" else ("en",)


def _currency(
    segments: Sequence[Segment],
    amounts: Sequence[Candidate],
    pages: Sequence[PageInput],
    factors: dict[int, float],
) -> FoundField | None:
    """The currency label's value, else the one printed beside the amounts, else anywhere."""
    for seg in segments:
        if seg.field == "currency" and (code := currency_in(seg.text.upper())):
            return FoundField(code, SAME_LINE * factors.get(seg.cell.page, 1.0), seg.cell.page,
                              box=seg.cell.box, raw=seg.cell.text)
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
        return FoundField(code, base * factor, cand.page, box=cand.box, raw=cand.raw)
    if len(seen) > 1:
        code, _ = seen.most_common(1)[0]
        return FoundField(code, UNSURE, first[code].page, box=first[code].box, raw=first[code].raw)
    for page in pages:
        if code := currency_in(page.text):
            if code == "USD" and "USD" not in page.text:
                code = dollar_country(pages) or code
            return FoundField(code, FALLBACK * factors.get(page.page, 1.0), page.page)
    return None


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


def _fallbacks(
    pages: Sequence[PageInput], segments: Sequence[Segment], factors: dict[int, float]
) -> list[Candidate]:
    """Numbers in a known shape with no label."""
    out: list[Candidate] = []
    labelled = {s.field for s in segments}
    for page in pages:
        for name, pattern in _FALLBACK_IDS.items():
            if name not in labelled and (m := pattern.search(page.text)):
                conf = FALLBACK * factors.get(page.page, 1.0)
                out.append(Candidate(name, m[0], conf, page.page, m[0], 10**9))
    return out


_POINT_OF_SALE = re.compile(r"(?:punto de venta|pto\.? ?(?:de )?vta\.?)\D{0,8}(\d{4,5})\b", re.I)


def _with_point_of_sale(number: FoundField, layouts: Sequence[Page]) -> FoundField:
    """A Latin-American invoice's number is its point of sale and its voucher number
    (`Punto de Venta: 00003  Comp. Nro: 00000128` -> `00003-00000128`)."""
    if not number.value.isdigit():
        return number
    for page in layouts:
        for cells in page.lines:
            line = " ".join(c.text for c in cells)
            m = _POINT_OF_SALE.search(fold_keep_length(line))
            if m and number.value in line[m.end() :]:
                return FoundField(f"{m[1]}-{number.value}", number.confidence, number.page,
                                  box=number.box, raw=number.raw)
    return number


def _choose(candidates: Sequence[Candidate]) -> tuple[dict[str, FoundField], dict[str, str]]:
    """One value per field: amounts by reconciliation, else the strongest reading; labels
    that disagree make it unsure. Also which fields' values needed an OCR repair."""
    by_name: dict[str, list[Candidate]] = {}
    for cand in candidates:
        by_name.setdefault(cand.name, []).append(cand)
    chosen: dict[str, FoundField] = {}
    repaired: dict[str, str] = {}
    picked, reconciled, flipped = reconcile(by_name)  # type: ignore[arg-type]
    for name, cands in picked.items():
        parts: tuple[Candidate, ...] = cands  # type: ignore[assignment]
        total = sum((Decimal(c.value) for c in parts), Decimal(0))
        if flipped and name == "tax_amount":
            total = -total
        value = str(total.quantize(Decimal("0.01")))
        lead = max(parts, key=lambda c: c.confidence)
        ocr = min(c.ocr for c in parts)
        weakest = min(c.confidence for c in picked_all(picked))
        confidence = max(min(c.confidence for c in parts), min(RECONCILED * ocr, weakest + LIFT))
        chosen[name] = FoundField(
            value, confidence, lead.page, box=lead.box, raw=" + ".join(c.raw for c in parts)
        )
    for name, cands in by_name.items():
        if name in chosen or (reconciled and FIELD_KINDS[name] == AMOUNT):
            continue
        # A later amount is the grand total after the subtotal; an earlier date or number is
        # the header's, before the footer's print date.
        later = 1 if FIELD_KINDS[name] == AMOUNT else -1
        best = max(cands, key=lambda c: (round(c.confidence, 2), later * c.order))
        confidence = best.confidence
        if len({c.value for c in cands if c.confidence >= best.confidence - 0.1}) > 1:
            confidence = min(confidence, UNSURE)
        if best.repaired:
            repaired[name] = best.repaired
        chosen[name] = FoundField(best.value, confidence, best.page, box=best.box, raw=best.raw)
    return chosen, repaired


__all__ = ["Candidate", "RulesEngine", "date_order", "detect_language", "fold_keep_length"]
