"""The vendor's name from the document's own evidence, when no `Vendor:` label names it.

Every cell of the first page's issuer area (its top third) that reads like a name is a
candidate; the customer's block (`Bill to`, `Rechnungsempfänger`, `Client`, ... and what is
under or beside it) is not. Evidence for a candidate, each adding to its score:

    a legal-form suffix        B.V., GmbH, AG, S.A., SAS, Ltd, Inc., LLC, S.r.l., Pvt. Ltd., ...
    the largest print          the tallest cell among the candidates (a logo's text, a heading)
    a tax or company number    VAT/GST/SIREN/KvK/... printed on the lines right under it
    the document's own domain  an e-mail or web address whose name matches it
    the top of the page        among the first lines

Without a suffix and without two other pieces of evidence a name stays under the review
threshold, so a guess is always checked by a person.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from docflow.extract.declarations.parse import fold
from docflow.extract.rules_engine.layout import Cell, Page, below, right_of
from docflow.extract.rules_engine.matching import find_labels, has_tax_id, is_customer_label

# Legal forms: long ones in any case (`LTD`, `Gmbh`), short ones only as printed (`AG`, `SA`,
# `AS`), which are words too in some languages.
_LONG_FORMS = (
    r"GmbH(?:\s*&\s*Co\.?\s*KG)?|KGaA|e\.\s?K\.|B\.\s?V\.?|N\.\s?V\.?|V\.O\.F\.|"
    r"S\.\s?A\.(?:\s?S\.)?|SASU|SARL|S\.A\.R\.L\.|EURL|S\.\s?L\.(?:\s?U\.)?|"
    r"S\.\s?p\.\s?A\.|S\.\s?r\.\s?l\.?|S\.n\.c\.|Lda\.?|Ltda\.?|S/A|Ltd\.?|Limited|"
    r"Pvt\.?\s*Ltd\.?|Private\s+Limited|LLP|LLC|L\.L\.C\.|Inc\.?|Incorporated|Corp\.?|"
    r"Corporation|Pty\.?\s*Ltd\.?|Sp\.\s?z\s?o\.\s?o\.|Srl|SpA|PLC|"
    r"Sdn\.?\s*Bhd\.?|Bhd\.?|Pte\.?\s*Ltd\.?"
)
_SHORT_FORMS = r"AG|KG|OHG|UG|SE|BV|NV|SA|SAS|SL|SLU|ME|EI|Oy|AB|A/S|ApS|AS|Co\.|CO"
LEGAL_FORM = re.compile(
    rf"(?<![\w])(?:(?i:{_LONG_FORMS})|{_SHORT_FORMS})(?![\w])",
)
# A line that ends with a legal form names a company.
COMPANY_SUFFIX = re.compile(rf"(?:{LEGAL_FORM.pattern})\s*$")
_ADDRESS = re.compile(
    r"^\d+\s|\b(?:str\.|strasse|straße|rue|street|road|avenue|ave\.|calle|via|weg|laan|rua"
    r"|allee|platz|chemin|boulevard|av\.|jalan|jln|lorong|taman)\b|\d{4,5}\s+\w",
    re.IGNORECASE,
)
_NAME_KEY = re.compile(
    r"^(?:name|company|firma|firmenname|nom|raison sociale|nombre|razon social|denominacion"
    r"|ragione sociale|denominazione|naam|bedrijfsnaam|nome|razao social)\s*:\s*",
    re.IGNORECASE,
)
_NOT_A_NAME = re.compile(r"@|www\.|https?://|\d{4,}", re.I)
# A person addressed by title (`Dhr.`, `Herr`, `Mme`) is the customer, not the issuer.
_SALUTATION = re.compile(
    r"^(?:dhr|mevr|mw|herrn?|frau|mr|mrs|ms|mme|mlle|m|sr|sra|sig|sig\.ra|dott|sr\.a)\.?\s",
    re.IGNORECASE,
)
TOP = 0.33  # the issuer's area: the first third of the page
# The sender line over an address window (DIN 5008 and its cousins): `Name · Street 1 · 12345
# City`, separated by dots, bullets, bars or dashes. Its first part is the issuer.
_SENDER_SPLIT = re.compile(r"\s+[·●•|–-]\s+|\s*[·●•|]\s*")
_POSTCODE = re.compile(r"\b\d{4,5}\b|\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b")


@dataclass(frozen=True)
class VendorGuess:
    value: str
    confidence: float
    page: int
    box: list[float] | None
    raw: str
    source: str = "issuer"  # `sender-line`: the first part of a DIN 5008 sender line


# Lines that are no part of a customer's address, though no blank line parts them from it:
# the issuer's bank details or a payment instruction (folded: lower case, no accents).
_NOT_ADDRESS = re.compile(
    r"bankverbindung|bank\s*details|coordonnees\s+bancaires|datos\s+bancarios"
    r"|coordinate\s+bancarie|bankgegevens|\bpay(?:able|ment)?\s+to\b|uberweis|virement"
    r"|bonifico|transferencia|overboeking",
    re.IGNORECASE,
)


def _ends_customer_block(cell: Cell) -> bool:
    """A field's label opening the line (`Gesamtbetrag:`, `Invoice date`) or the issuer's
    bank details: the customer's lines ended above it."""
    text = cell.text.strip()
    hits = find_labels(text, ocr=False)
    # A label of no field (`IBAN`, `Kundennummer`, `USt-IdNr.`) may be the customer's own.
    opens = bool(hits and hits[0].start == 0 and hits[0].field is not None)
    return opens or bool(_NOT_ADDRESS.search(fold(text)))


def customer_cells(page: Page) -> set[int]:
    """ids of the cells in a customer block: the label's cell, its right neighbour and the
    cells under it, down to the first blank gap or the first line that is no address."""
    marked: set[int] = set()
    for cell in page.cells():
        if not is_customer_label(cell.text):
            continue
        marked.add(id(cell))
        if (right := right_of(page, cell)) is not None:
            marked.add(id(right))
        for _down, under in below(page, cell, max_lines=6):
            if _ends_customer_block(under):
                break
            marked.add(id(under))
    return marked


def _name_like(cell: Cell) -> bool:
    text = cell.text.strip()
    letters = sum(c.isalpha() for c in text)
    if letters < 3 or len(text) > 80 or letters < len(text) * 0.5:
        return False
    if _NOT_A_NAME.search(text):
        return False
    hits = find_labels(text, ocr=False)
    return not (hits and hits[0].start == 0)


_HOST = re.compile(r"(?:@|www\.|https?://)((?:[a-z0-9-]+\.)+[a-z]{2,})", re.IGNORECASE)
_PUBLIC = re.compile(r"\.(?:gov|gob|gouv|govt|admin|europa)\.|\.(?:gov|edu|int)$")


def _domains(pages: Sequence[Page], customer: set[int]) -> list[str]:
    """The names of the organisations whose mail or web addresses the document prints (not a
    mail provider's, not a government portal's, not one in the customer's block)."""
    names = []
    for page in pages:
        for cell in page.cells():
            if id(cell) in customer:
                continue
            for m in _HOST.finditer(cell.text):
                host = m[1].lower().removeprefix("www.")
                if _PUBLIC.search(f".{host}"):
                    continue
                names.append(host.split(".")[-2] if host.count(".") >= 1 else host)
    common = {"gmail", "outlook", "hotmail", "yahoo", "gmx", "web", "orange", "free", "live"}
    return [n for n in dict.fromkeys(names) if n not in common and len(n) >= 3]


def guess_vendor(pages: Sequence[Page], ocr_factor: float) -> VendorGuess | None:
    if not pages or not pages[0].lines:
        return None
    page = pages[0]
    customer = customer_cells(page)
    top_lines = max(3, int(len(page.lines) * TOP))
    candidates = [
        c
        for c in page.cells()
        if id(c) not in customer
        and (c.y0 < TOP if c.has_box else c.line < top_lines)
        and _name_like(c)
    ]
    sender = _sender_line(page, customer)
    if sender is not None:
        cell, value = sender
        score = 0.80 + (0.12 if LEGAL_FORM.search(value) else 0.0)
        confidence = min(0.95, score) * ocr_factor
        return VendorGuess(value, confidence, cell.page, cell.box, cell.text, "sender-line")
    if not candidates:
        return None
    tallest = max(c.height for c in candidates)
    if tallest <= page.line_height * 1.2:
        tallest = float("inf")  # all one size: no print is the largest
    domains = _domains(pages, customer)
    scored = [_score(page, cell, tallest, domains) for cell in candidates]
    score, cell, value = max(scored, key=lambda s: s[0])
    value = _continued(page, cell, value)
    confidence = min(0.97, score) * ocr_factor
    return VendorGuess(value, confidence, cell.page, cell.box, cell.text)


def _score(page: Page, cell: Cell, tallest: float, domains: list[str]) -> tuple[float, Cell, str]:
    """A candidate's score from its evidence, and its value."""
    value = cell.text.strip(" ,;:|-")
    score = 0.40
    if LEGAL_FORM.search(value):
        score += 0.30
    if cell.has_box and cell.height >= tallest * 0.95:
        score += 0.12
    if any(has_tax_id(u.text) for _d, u in below(page, cell, max_lines=4)):
        score += 0.08
    words = re.findall(r"[a-z0-9]+", fold(LEGAL_FORM.sub(" ", value)))
    if any(
        d.replace("-", "") in words or fuzz.ratio(d.replace("-", ""), "".join(words)) >= 80
        for d in domains
    ):
        score += 0.35  # the customer has a legal form too; the document's domain is ours
    if _ADDRESS.search(value):
        score -= 0.30  # a street or a town, not a name
    if _SALUTATION.match(value):
        score -= 0.30
    key = _NAME_KEY.match(fold(value))
    if key:
        value = value[key.end() :].strip()
        score += 0.30  # `Razón Social: X` outside the customer's block
    if cell.line <= 1:
        score += 0.12  # the very first lines: the letterhead
    if len(value.split()) == 1 and (value.isupper() or len(value) <= 5):
        score -= 0.2  # `DANFE`, `NF-e`, `ORIGINAL`: a title or a stamp, not a name
    return score, cell, value


def _continued(page: Page, cell: Cell, value: str) -> str:
    """A name broken over two lines at an `&` or `and` (`HOME MASTER HARDWARE &` over
    `ELECTRICAL`) is one name."""
    if not re.search(r"(?:&|\band|\bund|\bet|\by)$", value, re.IGNORECASE):
        return value
    for _down, under in below(page, cell, max_lines=1):
        if _name_like(under) and not _ADDRESS.search(under.text):
            return f"{value} {under.text.strip(' ,;:|-')}"
    return value


def _sender_line(page: Page, customer: set[int]) -> tuple[Cell, str] | None:
    """The first part of a sender line in the top third (`Kraxi GmbH · Flugzeugallee 17 ·
    12345 Papierfeld`), if the page has one."""
    top_lines = max(3, int(len(page.lines) * TOP))
    for cell in page.cells():
        if not (cell.y0 < TOP if cell.has_box else cell.line < top_lines):
            continue
        parts = [p.strip() for p in _SENDER_SPLIT.split(cell.text) if p.strip()]
        if len(parts) < 3 or len(cell.text) > 110 or any(len(p) > 45 for p in parts):
            continue
        if not any(_POSTCODE.search(p) for p in parts[1:4]):
            continue
        first = parts[0].strip(" ,;:")
        if len(first.split()) < 2 and "." not in first:
            continue  # one short word (`NF-e`) is a heading; `weclapp.com` is a name
        if is_customer_label(first):
            continue
        if sum(c.isalpha() for c in first) >= 3 and not _POSTCODE.search(first):
            return cell, first
    return None
