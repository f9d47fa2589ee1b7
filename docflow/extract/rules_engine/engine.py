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
                  (net + tax = total, `amounts.py`) rise by 0.15, to 0.97 x OCR at most
    whole numbers x0.85 (an amount is printed with its cents)

so the checks can send what the engine is unsure of to a person. Where each label points is
`segments.py`; evidence about the whole document (language, currency, unlabelled numbers) is
`evidence.py`; the vendor's name, when no label names it, comes from the issuer block
(`vendor.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

from docflow.document import Check
from docflow.extract.base import Evidence, Extraction, FoundField, PageInput, Wanted, declared
from docflow.extract.declarations.kinds import AMOUNT, DATE, ID, TEXT
from docflow.extract.declarations.labels import READ_AS
from docflow.extract.declarations.parse import (
    currency_in,
    find_amounts,
    find_dates,
    parse_date_loosely,
)
from docflow.extract.rules_engine.amounts import LIFT, RECONCILED, picked_all, reconcile
from docflow.extract.rules_engine.calibration import calibrate, load_table
from docflow.extract.rules_engine.calibration import thresholds as fitted_thresholds
from docflow.extract.rules_engine.crosscheck import (
    derive_net,
    printed_sum,
    rate_verdict,
    sign_digit,
    tax_lines,
    unread_due_date,
    unread_tax_line,
    without_sign_digit,
)
from docflow.extract.rules_engine.declared_fields import read_declared
from docflow.extract.rules_engine.evidence import (
    date_order,
    detect_language,
    read_currency,
    unlabelled,
    with_point_of_sale,
)
from docflow.extract.rules_engine.identifiers import read_identifier
from docflow.extract.rules_engine.layout import Page, from_text, from_words
from docflow.extract.rules_engine.matching import find_labels
from docflow.extract.rules_engine.segments import (
    UNSURE,
    WEAK_LABEL,
    Candidate,
    Segment,
    find_segments,
)
from docflow.extract.rules_engine.vendor import COMPANY_SUFFIX, guess_vendor

REPAIRED = 0.6
# OCR drops or swaps accents (`Müller` -> `Muller`) with a confident score: free text that OCR
# read in a language that has them is not to be trusted unchecked.
OCR_ACCENTS = 0.85
_TAX_NUMBER = re.compile(r"\b[A-Z]{2}\s?\d{2}\s?\d{3}\s?\d{3}\s?\d{3}\b")


def _ocr_factor(page: PageInput) -> float:
    if page.engine == "textlayer":
        return 1.0
    return max(0.0, min(1.0, page.confidence / 100.0 + 0.04))


def layout_of(page: PageInput) -> Page:
    return from_words(page.page, page.words) if page.words else from_text(page.page, page.text)


class RulesEngine:
    name = "rules"

    def extract(self, pages: Sequence[PageInput], wanted: Wanted) -> Extraction:
        # The fields with built-in labels (`labels.toml`); the type's other declared fields
        # and its tables are read by their declarations.
        names = [n for n in declared(wanted).scalar_names if n in READ_AS]
        text = "\n".join(p.text for p in pages)
        language = detect_language(text)
        layouts = [layout_of(p) for p in pages]
        factors = {p.page: _ocr_factor(p) for p in pages}
        ocr = {p.page: p.engine != "textlayer" for p in pages}
        segments = [s for lay in layouts for s in find_segments(lay, ocr[lay.number])]
        candidates: list[Candidate] = []
        # Amounts first: their currencies decide which way a numeric date reads.
        for seg in segments:
            if READ_AS[seg.field] == AMOUNT:
                candidates.extend(_read(seg, None, language, factors))
        currency = read_currency(segments, candidates, pages, factors)
        order = date_order(language, currency.value if currency else None)
        for seg in segments:
            if READ_AS[seg.field] != AMOUNT:
                candidates.extend(_read(seg, order, language, factors))
        candidates.extend(unlabelled(pages, segments, factors))
        found, repaired = _choose(_without_item_columns(candidates))
        if "invoice_number" in found:
            found["invoice_number"] = with_point_of_sale(found["invoice_number"], layouts)
        if "vendor_name" not in found and layouts:
            first = layouts[0].number
            factor = factors.get(first, 1.0)
            if ocr.get(first) and language not in (None, "en"):
                factor *= OCR_ACCENTS
            guess = guess_vendor(layouts, factor)
            if guess:
                found["vendor_name"] = FoundField(
                    guess.value,
                    guess.confidence,
                    guess.page,
                    box=guess.box,
                    raw=guess.raw,
                    evidence={"source": guess.source, "ocr": round(factor, 3)},
                )
        if currency and "currency" not in found:
            found["currency"] = currency
        if "total_amount" in names and (total := printed_sum(found, layouts)) is not None:
            found["total_amount"] = total
        found, findings = _cross_checked(found, layouts, pages, ocr)
        table = load_table()
        limits = fitted_thresholds(table)
        found = calibrate(found, table)
        if (net := derive_net(found, limits)) is not None and "net_amount" in names:
            found["net_amount"] = net
        kept = {n: f for n, f in found.items() if n in names}
        # A label that starts its cell with nothing readable after it: a smudged value, which
        # the checks must send to a person even when the field is not required. On a text
        # layer nothing is smudged: a label with nothing at all after it (`Bestellnummer:`
        # and a blank) is a form field left empty, not a value lost.
        labelled = {
            s.field for s in segments if s.strong and s.starts_cell and (s.ocr or _printed(s))
        }
        rejected = [
            {"field": n, "reason": "label found, value unreadable"}
            for n in sorted(labelled)
            if n in names and n not in found
        ]
        # The type's other declared fields and its tables, by their declarations.
        more, unread = read_declared(declared(wanted), layouts, factors, ocr, order)
        kept.update(more)
        result = Extraction(self.name, kept, [*rejected, *unread], language=language)
        result.repairs = {n: o for n, o in repaired.items() if n in names}
        result.findings = [f for f in findings if f.field in names]
        result.thresholds = {n: t for n, t in limits.items() if n in names}
        return result


def _printed(seg: Segment) -> bool:
    """Something is printed after the label in its own cell (`Total due: ####`); a segment
    of a neighbouring cell (the label's value looked for beside or under it) starts at 0."""
    if seg.start == 0:
        return False
    hits = [h for h in find_labels(seg.cell.text, False) if h.end <= seg.start]
    after = seg.cell.text[hits[-1].end if hits else seg.start :]
    return bool(after.strip(" :.-\t"))


def _cross_checked(
    found: dict[str, FoundField],
    layouts: Sequence[Page],
    pages: Sequence[PageInput],
    ocr: dict[int, bool],
) -> tuple[dict[str, FoundField], list[Check]]:
    """The fields with the page-wide evidence added (`crosscheck.py`), and the findings that
    send the document to a person."""
    out = {
        name: replace(f, evidence={**f.evidence, "scanned": ocr.get(f.page, False)})
        for name, f in found.items()
    }
    findings: list[Check] = []
    lines = tax_lines(layouts)
    if (verdict := rate_verdict(out, lines)) is not None:
        tax = out["tax_amount"]
        out["tax_amount"] = replace(tax, evidence={**tax.evidence, "tax_rate": verdict})
    if (unread := unread_tax_line(out, lines)) is not None:
        findings.append(unread)
    if (due := unread_due_date(out, layouts)) is not None:
        findings.append(due)
    signed = sign_digit({p.page: p.text for p in pages if ocr.get(p.page)})
    if signed is not None:
        page, digit = signed
        out = without_sign_digit(out, digit)
        findings.append(
            Check(
                "ocr-currency-sign",
                f"every amount on page {page} starts with {digit}: a currency sign read as "
                "a digit?",
                "total_amount",
            )
        )
    return out, findings


def _read(
    seg: Segment, order: str | None, language: str | None, factors: dict[int, float]
) -> list[Candidate]:
    kind = READ_AS[seg.field]
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
    evidence: Evidence = {
        "source": "label" if seg.strong else "weak-label",
        "position": round(base, 3),
        "label": round(seg.quality, 3),
        "form": 0.0 if scale is None else round(scale, 3),
        "ocr": round(ocr, 3),
        "repaired": bool(repaired),
    }
    return [
        Candidate(
            seg.field,
            value,
            confidence * ocr,
            seg.cell.page,
            seg.cell.text,
            seg.order,
            box,
            repaired,
            ocr,
            evidence,
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


def _choose(candidates: Sequence[Candidate]) -> tuple[dict[str, FoundField], dict[str, str]]:
    """One value per field: amounts by reconciliation, else the strongest reading; labels
    that disagree make it unsure. Also which fields' values needed an OCR repair."""
    by_name: dict[str, list[Candidate]] = {}
    for cand in candidates:
        by_name.setdefault(cand.name, []).append(cand)
    chosen: dict[str, FoundField] = {}
    repaired: dict[str, str] = {}
    picked, reconciled, flipped = reconcile(by_name)
    for name, parts in picked.items():
        total = sum((Decimal(c.value) for c in parts), Decimal(0))
        if flipped and name == "tax_amount":
            total = -total
        value = str(total.quantize(Decimal("0.01")))
        lead = max(parts, key=lambda c: c.confidence)
        ocr = min(c.ocr for c in parts)
        weakest = min(c.confidence for c in picked_all(picked))
        confidence = max(min(c.confidence for c in parts), min(RECONCILED * ocr, weakest + LIFT))
        evidence: Evidence = {
            **lead.evidence,
            "ocr": round(ocr, 3),
            "reconciled": True,
            "parts": len(parts),
            "agree": _agreeing(by_name[name], value),
        }
        chosen[name] = FoundField(
            value,
            confidence,
            lead.page,
            box=lead.box,
            raw=" + ".join(c.raw for c in parts),
            evidence=evidence,
        )
    for name, cands in by_name.items():
        if name in chosen or (reconciled and READ_AS[name] == AMOUNT):
            continue
        # A later amount is the grand total after the subtotal; an earlier date or number is
        # the header's, before the footer's print date.
        later = 1 if READ_AS[name] == AMOUNT else -1
        # Between equally sure amounts a zero is the lesser reading: `VALOR DO ICMS 171,60`
        # beside `VALOR DO IPI 0,00` says the document's tax is not zero.
        best = max(cands, key=lambda c: (round(c.confidence, 2), _nonzero(c), later * c.order))
        confidence = best.confidence
        rivals = len({c.value for c in cands if c.confidence >= best.confidence - 0.1}) > 1
        if rivals:
            confidence = min(confidence, UNSURE)
        if best.repaired:
            repaired[name] = best.repaired
        evidence = {
            **best.evidence,
            "ocr": round(best.ocr, 3),
            "reconciled": False,
            "rivals": rivals,
            "values": len({c.value for c in cands}),
            "agree": _agreeing(cands, best.value),
        }
        chosen[name] = FoundField(
            best.value, confidence, best.page, box=best.box, raw=best.raw, evidence=evidence
        )
    return chosen, repaired


def _agreeing(cands: Sequence[Candidate], value: str) -> int:
    """How many different labels read this same value (independent readings agree)."""
    return len({c.order for c in cands if c.value == value})


_LABEL_OF = re.compile(r"[\W\d_]+$")


def _without_item_columns(candidates: list[Candidate]) -> list[Candidate]:
    """A label printed with three or more different amounts is a line item's (`Valore
    totale: 5.00`, `... 20.00`, `... 4.50` for each row), not the document's total."""

    def label(c: Candidate) -> tuple[str, str] | None:
        text = _LABEL_OF.sub("", c.raw).lower()
        return (c.name, text) if READ_AS[c.name] == AMOUNT and text else None

    values: dict[tuple[str, str], set[str]] = {}
    for c in candidates:
        if (key := label(c)) is not None:
            values.setdefault(key, set()).add(c.value)
    return [c for c in candidates if len(values.get(label(c) or ("", ""), ())) < 3]


def _nonzero(cand: Candidate) -> bool:
    return READ_AS[cand.name] == AMOUNT and Decimal(cand.value) != 0


# COMPANY_SUFFIX: for the enrich rules engine, which names a document's parties with it.
__all__ = ["COMPANY_SUFFIX", "RulesEngine", "layout_of"]
