"""Cross-checks of the amounts against the rest of the page, after the labels chose them.

    tax rate    a tax line that prints a rate (`IVA 21%`, `MwSt. 19 %`, `TVA 20 %`, `BTW (21%)`)
                checks the tax amount: net x rate = tax within rounding is `match`, anything
                else `mismatch`; a page that prints several rates checks nothing (the tax is
                a sum over rates). The verdict is evidence for the calibration, not a check.
    unread tax  a line in the page that names a tax and a rate and prints an amount, while
                no tax amount was read: the rules missed a tax line (`I.V.A. (21%)`, or a
                label OCR misread), so a person reads it (`unread-tax-line`).
    unread due  a line that asks to pay by a deadline (`A régler avant le 29/03/2026`,
                `zahlbar spätestens`, `pay before`) and prints a date other than the invoice
                date, while no due date was read: a printed due date the labels missed is
                never left out silently (`unread-due-date`).
    sign digit  on a scan, every amount of a page starting with the same 4 or 8 and no
                currency sign beside any of them: OCR read the sign (`€`, `$`) as a digit.
                The document goes to a person (`ocr-currency-sign`); where dropping that
                digit makes net + tax = total, the amounts are taken without it.
    derived net a net amount the page does not print is total minus tax when both are
                confident; it is marked `derived` and never counts as read.
    printed sum a total whose label went unread (`OBEN: RM 73.00` for `TOTAL:` on a receipt)
                is the amount the page prints that equals net + tax, a non-zero tax read:
                two readings and the page's own figure agree.

Pure: found fields and the laid-out pages in, evidence and findings out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from docflow.document import Check
from docflow.extract.base import Evidence, FoundField
from docflow.extract.declarations.parse import find_amounts, find_dates, fold
from docflow.extract.rules_engine.layout import Page
from docflow.extract.rules_engine.matching import fold_keep_length

# The words that name a sales tax, folded: a line with one of them and a percentage is a tax
# line whatever label the rules file gives it.
_TAX_WORDS = re.compile(
    r"(?<![a-z])(?:i\.?\s?v\.?\s?a|m\.?\s?w\.?\s?st|u\.?\s?st|t\.?\s?v\.?\s?a|v\.?\s?a\.?\s?t|"
    r"b\.?\s?t\.?\s?w|g\.?\s?s\.?\s?t|h\.?\s?s\.?\s?t|tax|steuer|imposta|impuesto|imposto|taxe)"
    r"(?![a-z])",
    re.IGNORECASE,
)
_RATE = re.compile(r"(?<![\d.,])(\d{1,2}(?:[.,]\d{1,2})?)\s?%")
_CENTS_AT = re.compile(r"-?\d[\d.,'\u00a0\u202f ]*[.,]\d{2}(?!\d)")
ROUNDING = Decimal("0.02")  # per-line rounding leaves a tax a cent or two off net x rate
SIGN_DIGITS = "48"  # what OCR makes of `€` and `$` most often
MIN_SIGN_AMOUNTS = 3


@dataclass(frozen=True)
class TaxLine:
    page: int
    text: str
    rates: tuple[Decimal, ...]
    amounts: tuple[str, ...]  # the amounts printed on the line, beside its rate


def tax_lines(pages: Sequence[Page]) -> list[TaxLine]:
    """Every line that names a tax and prints a rate."""
    out = []
    for page in pages:
        for cells in page.lines:
            text = " ".join(c.text for c in cells)
            folded = fold_keep_length(text)
            if not _TAX_WORDS.search(folded):
                continue
            rates = tuple(
                Decimal(m[1].replace(",", ".")) / 100
                for m in _RATE.finditer(text)
                if 0 < Decimal(m[1].replace(",", ".")) <= 35
            )
            if not rates:
                continue
            amounts = tuple(a.value for a in find_amounts(text))
            out.append(TaxLine(page.number, text, rates, amounts))
    return out


def rate_verdict(fields: Mapping[str, FoundField], lines: Sequence[TaxLine]) -> str | None:
    """`match`, `mismatch`, or None when nothing can be checked."""
    rates = {r for line in lines for r in line.rates}
    net, tax = fields.get("net_amount"), fields.get("tax_amount")
    if len(rates) != 1 or net is None or tax is None:
        return None
    (rate,) = rates
    expected = Decimal(net.value) * rate
    slack = max(ROUNDING, abs(expected) * Decimal("0.002"))
    return "match" if abs(expected - Decimal(tax.value)) <= slack else "mismatch"


def unread_tax_line(fields: Mapping[str, FoundField], lines: Sequence[TaxLine]) -> Check | None:
    """A finding when a tax line with an amount is printed and no tax amount was read."""
    if "tax_amount" in fields:
        return None
    for line in lines:
        # The amount beside a rate that is not the rate itself (`IVA (21%) 210,00`).
        if any(Decimal(a) != 0 for a in line.amounts):
            return Check(
                "unread-tax-line",
                f"page {line.page} prints a tax line the rules did not read: {line.text[:80]!r}",
                "tax_amount",
            )
    return None


# Words that set a payment deadline, folded (a due date's label the rules file may not know).
_DEADLINE = re.compile(
    r"(?<![a-z])(?:zahlbar|fallig|faellig|spatestens|due|payable|pay (?:by|before|until)|"
    r"regler|a payer|echeance|vencimiento|vence|scadenza|entro il|vervaldatum|te betalen|"
    r"betalen voor|vencimento|pagar ate)(?![a-z])"
)


def unread_due_date(fields: Mapping[str, FoundField], pages: Sequence[Page]) -> Check | None:
    """A finding when no due date was read and a line asks to pay by a date that is not the
    invoice date read."""
    if "due_date" in fields:
        return None
    issued = fields["invoice_date"].value if "invoice_date" in fields else None
    for page in pages:
        for line in page.lines:
            text = " ".join(c.text for c in line)
            if not _DEADLINE.search(fold(text)):
                continue
            if any(d.iso != issued for d in find_dates(text)):
                return Check(
                    "unread-due-date",
                    f"page {page.number} asks to pay by a date the rules did not "
                    f"read as the due date: {text[:80]!r}",
                    "due_date",
                )
    return None


def sign_digit(texts: Mapping[int, str]) -> tuple[int, str] | None:
    """(page, digit) of the first OCR page whose amounts all start with one 4 or 8 and have
    no currency sign before them, or None. `texts` holds the OCR pages' text."""
    for number, text in sorted(texts.items()):
        starts: set[str] = set()
        count = 0
        signed = False
        for line in text.splitlines():
            for amount in find_amounts(line):
                if not _CENTS_AT.match(line, amount.start):
                    continue  # a count or a code, not money
                count += 1
                starts.add(amount.value.lstrip("-")[0])
                signed = signed or amount.currency is not None
        if count >= MIN_SIGN_AMOUNTS and len(starts) == 1 and not signed:
            digit = next(iter(starts))
            if digit in SIGN_DIGITS:
                return number, digit
    return None


def without_sign_digit(fields: dict[str, FoundField], digit: str) -> dict[str, FoundField]:
    """The amounts with their leading `digit` dropped, if that makes net + tax = total and
    the amounts as read do not add up; else the fields unchanged."""
    names = ("net_amount", "tax_amount", "total_amount")
    if not all(n in fields for n in names):
        return fields
    read = [Decimal(fields[n].value) for n in names]
    if abs(read[0] + read[1] - read[2]) <= Decimal("0.01"):
        return fields
    stripped = [_strip(fields[n].value, digit) for n in names]
    if any(s is None for s in stripped):
        return fields
    net, tax, total = (Decimal(s) for s in stripped if s is not None)
    if abs(net + tax - total) > Decimal("0.01"):
        return fields
    out = dict(fields)
    for name, value in zip(names, stripped, strict=True):
        assert value is not None
        old = fields[name]
        evidence: Evidence = {**old.evidence, "sign_digit": digit, "reconciled": True}
        out[name] = replace(old, value=value, evidence=evidence)
    return out


def _strip(value: str, digit: str) -> str | None:
    negative = value.startswith("-")
    body = value.lstrip("-")
    if not body.startswith(digit) or len(body.split(".")[0]) < 2:
        return None
    rest = str(Decimal(body[1:]).quantize(Decimal("0.01")))
    return f"-{rest}" if negative else rest


def derive_net(
    fields: Mapping[str, FoundField], thresholds: Mapping[str, float]
) -> FoundField | None:
    """Total minus tax, for a net the page does not print, when total and tax are both at or
    above their thresholds."""
    total, tax = fields.get("total_amount"), fields.get("tax_amount")
    if "net_amount" in fields or total is None or tax is None:
        return None
    if total.confidence < thresholds.get("total_amount", 1.0):
        return None
    if tax.confidence < thresholds.get("tax_amount", 1.0):
        return None
    net = Decimal(total.value) - Decimal(tax.value)
    if Decimal(total.value) > 0 and not Decimal(0) <= net <= Decimal(total.value):
        return None
    return FoundField(
        str(net.quantize(Decimal("0.01"))),
        min(total.confidence, tax.confidence),
        total.page,
        evidence={"source": "derived", "from": "total_amount - tax_amount"},
        derived=True,
    )


def printed_sum(fields: Mapping[str, FoundField], pages: Sequence[Page]) -> FoundField | None:
    """For a total no label gave: the last amount printed on the pages that equals net + tax
    (both read after their labels, the tax not zero), or None."""
    net, tax = fields.get("net_amount"), fields.get("tax_amount")
    if "total_amount" in fields or net is None or tax is None or Decimal(tax.value) == 0:
        return None
    if net.derived or tax.derived or net.evidence.get("rivals") or tax.evidence.get("rivals"):
        return None
    want = f"{Decimal(net.value) + Decimal(tax.value):.2f}"
    spots = [
        (page.number, cell, amount)
        for page in pages
        for cell in page.cells()
        for amount in find_amounts(cell.text)
        if amount.value == want
    ]
    if not spots:
        return None
    number, cell, amount = spots[-1]  # a total follows the lines it sums
    end = amount.end if amount.end >= 0 else len(cell.text)
    ocr = min(float(net.evidence.get("ocr", 1.0)), float(tax.evidence.get("ocr", 1.0)))
    return FoundField(
        want,
        min(net.confidence, tax.confidence),
        number,
        box=cell.sub_box(amount.start, end),
        raw=cell.text,
        evidence={"source": "printed-sum", "ocr": round(ocr, 3), "reconciled": True, "agree": 1},
    )
