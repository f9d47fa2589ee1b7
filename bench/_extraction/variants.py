"""Variants of the real set's layouts: the same pages with new values printed in place.

For each born-digital invoice of `tests/data/real_invoices/` (not a scan), `N` variants: the
values its truth names are found where the page prints them (every occurrence), redacted
(text only: images and line art stay) and printed again in the same place, at the same size,
in the closest of the PDF base-14 fonts, in the same colour:

- the invoice number: the same shape with other digits (letters and separators kept);
- the invoice and due dates: moved by the same number of days, printed in the form found;
- every amount: multiplied by one integer k (2..9), so lines, net, tax and total still add
  up, printed in the document's number format (decimal mark, thousands separator, the
  sign and currency sign glued to it). Left alone: rates (`19,00 %`), a bare `1,00` (a
  quantity), amounts with three or more decimals (unit prices, quantities), and amounts
  larger than the document's largest truth amount (a share capital in the footer: the
  supplier's stable text, not the invoice's).

Amounts are re-printed flush right (columns of figures are), the rest flush left; a k whose
wider figures would run into other text is passed over for the next (seeded order). Each
variant's embedded files (a ZUGFeRD or Factur-X XML with the old values) and metadata are
dropped: a variant is a plain PDF of the new values.

A document is skipped, with its reason, when a truth value is not printed as the truth has
it, or no k fits; a variant whose text (pypdfium2) still holds an old value of a changed
field, or lacks a new one, is dropped and counted: never a half-changed variant. Where the
set holds a scan made from the original (`make_scans.py`), each variant gets its scan made
the same way. Deterministic: seeded by the file's name and the variant's number.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import random
import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pymupdf
import pypdfium2 as pdfium

from _extraction.generated import Document
from _extraction.page_text import Edit, Line, Skip, find, lines_of, spaced
from _extraction.printed import amounts_in, boundary, date_forms, new_number, thousands
from _extraction.real import REAL
from _extraction.reprint import Fonts, apply, room

VERSION = 5  # bump on any change to what is generated: the cache is keyed by it
N = 5  # variants of each original
DEBUG = False
# `--smoke`: one original's variants (text pages only: no scan of it in the set).
SMOKE = "ZTESTZUGFERD"
AMOUNT_FIELDS = ("net_amount", "tax_amount", "total_amount")
DATE_FIELDS = ("invoice_date", "due_date")
CACHE = Path(__file__).resolve().parents[2] / ".docflow" / "bench" / "variants"


def _seed(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")


def _number_edits(
    lines: list[Line], truth: dict[str, Any], rng: random.Random
) -> tuple[list[Edit], dict[str, Any]]:
    number = truth.get("invoice_number")
    if not number:
        return [], {}
    # A number glued to the word after it (`F20260023BUYER`: two text runs printed
    # abutting) is still the number.
    found = find(lines, boundary(number).removesuffix("(?![0-9A-Za-z])") + "(?![0-9])")
    if not found:
        raise Skip("invoice_number not printed as the truth has it")
    new = new_number(number, rng)
    return [Edit(ln, a, b, new, figure=False) for ln, a, b in found], {"invoice_number": new}


def _date_edits(
    lines: list[Line], truth: dict[str, Any], language: str, days: int
) -> tuple[list[Edit], dict[str, Any]]:
    edits: list[Edit] = []
    taken: set[tuple[int, int]] = set()
    changed: dict[str, Any] = {}
    forms = date_forms(language)
    for name in DATE_FIELDS:
        if not truth.get(name):
            continue
        old = date.fromisoformat(truth[name])
        new = old + timedelta(days=days)
        found = False
        for _tag, form in forms:
            for ln, a, b in find(lines, rf"(?<![0-9A-Za-z]){re.escape(form(old))}(?![0-9])"):
                found = True
                if (id(ln), a) not in taken:
                    taken.add((id(ln), a))
                    edits.append(Edit(ln, a, b, form(new), figure=False))
        if not found:
            raise Skip(f"{name} not printed in a known form")
        changed[name] = new.isoformat()
    return edits, changed


# A figure printed after one of these labels is a quantity or a rate, not an amount.
QUANTITY_OR_RATE = re.compile(
    r"(?i)(quantit|quantity|qty|menge|anzahl|qt[eé]|cantidad|cant\.|qtd|aantal|aliquota|"
    r"al[ií]quota|rate|satz|taux|tasa|tarief)[^\d]*$"
)


def _amount_edits(
    lines: list[Line], truth: dict[str, Any], skip: list[Edit], k: int
) -> tuple[list[Edit], dict[str, Any]]:
    values = [abs(Decimal(truth[f])) for f in AMOUNT_FIELDS if truth.get(f)]
    ceiling = max(values, default=Decimal(0))
    found = [(ln, a) for ln in lines for a in amounts_in(ln.text)]
    group = thousands([a for _ln, a in found])
    busy = {(id(e.line), i) for e in skip for i in range(e.start, e.end)}
    rates = _rates(lines, truth)
    edits = []
    for ln, a in found:
        if a.value == 0 or a.value > ceiling or (a.value == 1 and a.value not in values):
            continue
        if a.value in rates and a.value not in values:  # a rate column (`(21.00)`, `22.00`)
            continue
        if any((id(ln), i) in busy for i in range(a.start, a.end)):
            continue
        if QUANTITY_OR_RATE.search(ln.text[max(0, a.start - 24) : a.start]):
            continue
        new = a.printed(a.value * k, group)
        edits.append(Edit(ln, a.start, a.end, new, figure=True, key=a.value in values))
    printed = {_plain(e) for e in edits}
    changed = {}
    for f in AMOUNT_FIELDS:
        if truth.get(f) is None:
            continue
        value = Decimal(truth[f])
        if value and abs(value) not in printed:
            raise Skip(f"{f} not printed as the truth has it")
        changed[f] = f"{value * k:.2f}"
    return edits, changed


def _rates(lines: list[Line], truth: dict[str, Any]) -> set[Decimal]:
    """The tax rates the document shows: printed with `%`, and tax over net."""
    rates = {
        Decimal(m.group(1).replace(",", ".")).quantize(Decimal("0.01"))
        for ln in lines
        for m in re.finditer(r"(\d{1,2}(?:[.,]\d{1,2})?)\s?%", ln.text)
    }
    net, tax = truth.get("net_amount"), truth.get("tax_amount")
    if net and tax and Decimal(net):
        rates.add((Decimal(tax) / Decimal(net) * 100).quantize(Decimal("0.01")))
    return rates


def _plain(edit: Edit) -> Decimal | None:
    found = amounts_in(edit.old)
    return found[0].value if found else None


def _checked(pdf: bytes, edits: list[Edit]) -> None:
    """The variant's own text (read by pypdfium2, not PyMuPDF) holds every new value and
    no old one of a changed field."""
    doc = pdfium.PdfDocument(pdf)
    try:
        text = "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    finally:
        doc.close()
    text = re.sub(r"[\u00a0\u202f]", " ", text)
    news = {spaced(e.new) for e in edits}
    for e in edits:
        if not e.key:
            continue
        new, old = spaced(e.new.strip("().,;:*-")), spaced(e.old.strip("().,;:*-"))
        if e.figure:  # the figure alone, its sign and currency left out
            new, old = _figure(new), _figure(old)
            pattern = r"(?<![\d.,'])%s(?![\d])(?!\s?%%)"
        else:
            pattern = r"(?<![0-9A-Za-z])%s(?![0-9])"
        if not re.search(pattern % re.escape(new), text):
            raise Skip(f"text check: new {new!r} not in the variant's text")
        if old not in news and re.search(pattern % re.escape(old), text):
            raise Skip(f"text check: old {old!r} still in the variant's text")


def _figure(text: str) -> str:
    found = amounts_in(text)
    return text[found[0].start : found[0].end].lstrip("-\u2212$€£R") if found else text


def make_variant(
    pdf: bytes, truth: dict[str, Any], name: str, index: int
) -> tuple[bytes, dict[str, Any]]:
    """Variant `index` of the original `pdf` (named `name`, for the seed): (its bytes, its
    truth file's dict). Raises `Skip` with the reason when it cannot be made. Printed in
    the page's own fonts where it can; where that reads back wrong (a font whose text layer
    maps its glyphs otherwise), in the closest free fonts."""
    try:
        return _made(pdf, truth, name, index, own=True)
    except Skip as why:
        if not str(why).startswith("text check"):
            raise
    return _made(pdf, truth, name, index, own=False)


def _made(
    pdf: bytes, truth: dict[str, Any], name: str, index: int, own: bool
) -> tuple[bytes, dict[str, Any]]:
    rng = random.Random(_seed(f"{name}#{index}"))
    doc = pymupdf.open(stream=pdf, filetype="pdf")
    try:
        if any(p.rotation for p in doc):
            raise Skip("a rotated page")
        lines = {i: lines_of(p, i) for i, p in enumerate(doc)}
        fonts = Fonts(doc, own)
        every = [ln for page in lines.values() for ln in page]
        fields = dict(truth["fields"])
        edits, changed = _number_edits(every, fields, rng)
        days = rng.randint(20, 400)
        dated, moved = _date_edits(every, fields, truth["language"], days)
        edits += dated
        changed |= moved
        ks = list(range(2, 10))
        rng.shuffle(ks)
        pages = {i: p.rect for i, p in enumerate(doc)}
        for k in ks:
            priced, scaled = _amount_edits(every, fields, edits, k)
            crowded = room([*edits, *priced], lines, pages, fonts)
            if DEBUG:
                print(name, k, crowded)
            if not crowded:
                break
        else:
            raise Skip(f"no room for the new values at any k ({crowded})")
        edits += priced
        changed |= scaled
        apply(doc, edits, fonts)
        out = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    finally:
        doc.close()
    _checked(out, edits)
    # A variant's amounts are new, so the original's hand-written line items are not its own.
    kept = {k: v for k, v in truth.items() if k not in ("tables", "linesAddUp", "linesNote")}
    made = {
        **kept,
        "file": f"{Path(truth['file']).stem}~v{index}.pdf",
        "derivedFrom": truth["file"],
        "fields": {**fields, **changed},
        "variant": {"of": name, "index": index, "k": k, "days": days, "version": VERSION},
    }
    return out, made


def _make_scans() -> ModuleType:
    # The set's own scan maker, loaded from its file (it is the data set's tool, run as a
    # script; the variants' scans are made exactly as the set's).
    path = REAL / "make_scans.py"
    spec = importlib.util.spec_from_file_location("real_invoices_make_scans", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scan_of(pdf: bytes, folder: str, original: str, name: str) -> bytes:
    """The variant's scan, made as `make_scans.py` makes the original's (its pages, its
    faults, seeded by the variant's name)."""
    scans = _make_scans()
    rng = random.Random(scans._seed(name))
    doc = pdfium.PdfDocument(pdf)
    try:
        count = min(len(doc), scans.PAGES.get((folder, original), scans.MAX_PAGES))
        pages = [
            scans.degrade(doc[i].render(scale=scans.DPI / 72).to_pil(), rng) for i in range(count)
        ]
    finally:
        doc.close()
    buf = io.BytesIO()
    pages[0].save(
        buf,
        "PDF",
        resolution=scans.DPI,
        save_all=True,
        append_images=pages[1:],
        quality=55,
        creationDate=scans.FIXED_DATE,
        modDate=scans.FIXED_DATE,
        title=f"scan of {name}",
        producer="make_scans.py",
    )
    return buf.getvalue()


@dataclass
class VariantSet:
    documents: list[Document]  # in order: each original's text variants, then their scans
    originals: int  # born-digital originals tried
    skipped: dict[str, str]  # original -> why no variant was made
    dropped: dict[str, str]  # variant -> why it was dropped (some of an original's made)


def _scanned_sources() -> set[tuple[str, str]]:
    return set(_make_scans().SOURCES)


def _one(truth_path: Path, n: int, scanned: bool, cache: Path) -> dict[str, Any]:
    """An original's variants from the cache, made and cached if absent."""
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    pdf = truth_path.with_name(truth["file"]).read_bytes()
    name = f"{truth_path.parent.name}/{truth_path.with_name(truth['file']).stem}"
    key = hashlib.sha256(
        pdf + truth_path.read_bytes() + f"{VERSION}:{n}:{scanned}".encode()
    ).hexdigest()[:16]
    folder = cache / f"v{VERSION}" / key
    manifest = folder / "manifest.json"
    if manifest.is_file():
        return json.loads(manifest.read_text(encoding="utf-8"))
    folder.mkdir(parents=True, exist_ok=True)
    made: dict[str, Any] = {"name": name, "variants": [], "dropped": {}, "skipped": None}
    for index in range(n):
        try:
            out, vtruth = make_variant(pdf, truth, name, index)
        except Skip as why:
            if index == 0 and not str(why).startswith("text check"):
                made["skipped"] = str(why)  # the document's own values: no variant will do
                break
            made["dropped"][f"{name}~v{index}"] = str(why)
            continue
        (folder / vtruth["file"]).write_bytes(out)
        (folder / f"{Path(vtruth['file']).stem}.truth.json").write_text(
            json.dumps(vtruth, indent=1, ensure_ascii=False) + "\n"
        )
        made["variants"].append(vtruth["file"])
        if scanned:
            scan = scan_of(out, truth_path.parent.name, truth["file"], f"{name}~v{index}")
            (folder / f"{Path(vtruth['file']).stem}_scan.pdf").write_bytes(scan)
    made["folder"] = str(folder.relative_to(cache))
    manifest.write_text(json.dumps(made, indent=1) + "\n")
    return made


def variant_set(
    n: int = N, cache: Path = CACHE, root: Path = REAL, only: str | None = None
) -> VariantSet:
    """The variants of every born-digital original of the real set (`only`: a regex on the
    originals' names), made or read from `cache`."""
    scanned_sources = _scanned_sources()
    texts: list[Document] = []
    scans: list[Document] = []
    skipped: dict[str, str] = {}
    dropped: dict[str, str] = {}
    originals = 0
    for truth_path in sorted(root.glob("*/*.truth.json")):
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        ident = f"{truth_path.parent.name}/{Path(truth['file']).stem}"
        if truth["scan"] or truth.get("derivedFrom") or (only and not re.search(only, ident)):
            continue
        originals += 1
        scanned = (truth_path.parent.name, truth["file"]) in scanned_sources
        made = _one(truth_path, n, scanned, cache)
        if made["skipped"]:
            skipped[ident] = made["skipped"]
        dropped |= made["dropped"]
        folder = cache / made["folder"]
        for file in made["variants"]:
            stem = Path(file).stem
            vtruth = json.loads((folder / f"{stem}.truth.json").read_text(encoding="utf-8"))
            doc = _document(
                f"{truth_path.parent.name}/{stem}", vtruth, (folder / file).read_bytes(), False
            )
            texts.append(doc)
            if scanned:
                scan = (folder / f"{stem}_scan.pdf").read_bytes()
                scans.append(_document(f"{truth_path.parent.name}/{stem}_scan", vtruth, scan, True))
    return VariantSet([*texts, *scans], originals, skipped, dropped)


def _document(ident: str, truth: dict[str, Any], pdf: bytes, scanned: bool) -> Document:
    return Document(
        ident=ident,
        language=truth["language"],
        doc_type=truth["docType"],
        layout="variant",
        scanned=scanned,
        text="",
        truth=dict(truth["fields"]),
        pdf=pdf,
        issuer=truth["issuer"],
    )
