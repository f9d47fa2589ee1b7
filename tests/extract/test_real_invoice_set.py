"""The real-invoice set under tests/data/real_invoices keeps its shape: documents, truth, sources.

The set is the yardstick the extraction benchmark measures against, so a missing truth file, a
value in the wrong form, a source folder without its licence or a set that shrank below its
promised breadth must fail here rather than skew the figures silently.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections import Counter
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest

from docflow.extract.checks.spec import parse_field_rules
from docflow.extract.declarations.kinds import VALUE_PATTERNS
from docflow.extract.declarations.labels import BUILTIN_KINDS as FIELD_KINDS

ROOT = Path(__file__).parents[1] / "data" / "real_invoices"
RULES = Path(__file__).parents[2] / "docflow" / "rules" / "rules.toml"

LANGUAGES = {"en", "de", "fr", "es", "it", "nl", "pt"}
DOC_TYPES = {"invoice", "purchase-order", "credit-note"}
TOP_KEYS = {"file", "language", "docType", "issuer", "scan", "derivedFrom", "fields", "notes"}
LINE_KEYS = {"tables", "linesAddUp"}  # every document's line items, written by hand
OPTIONAL_KEYS = {"linesNote"}  # why its lines do not add up to its net, or how they are read
# The `lines` table's columns and their kinds, as the invoice's declaration has them.
LINE_COLUMNS = {
    "description": "text",
    "quantity": "number",
    "unit_price": "amount",
    "amount": "amount",
}
LICENCE_NAMES = re.compile(r"^(LICEN[CS]E|COPYING)(\.(txt|md))?$", re.IGNORECASE)
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_SET_BYTES = 40 * 1024 * 1024


def _field_names() -> dict[str, tuple[str, ...]]:
    """Which fields each document type's truth holds: exactly docflow's own list for the type."""
    with RULES.open("rb") as f:
        rules = parse_field_rules(tomllib.load(f).get("fields"))
    invoice = rules.for_type("invoice")
    order = rules.for_type("purchase-order")
    assert invoice is not None and order is not None
    # A credit note is read with the invoice's fields (docflow has no separate type for it).
    # Tables (the line items) are under the truth's own `tables`.
    return {
        "invoice": invoice.scalar_names,
        "credit-note": invoice.scalar_names,
        "purchase-order": order.scalar_names,
    }


FIELD_NAMES = _field_names()


def truth_problems(truth: Any, folder: Path) -> list[str]:
    """Everything wrong with one truth object; empty when it is well formed."""
    if not isinstance(truth, dict):
        return ["truth is not a JSON object"]
    problems: list[str] = []
    required = TOP_KEYS | LINE_KEYS
    if not required <= set(truth) <= required | OPTIONAL_KEYS:
        problems.append(f"keys {sorted(truth)} != {sorted(required)} (+ {sorted(OPTIONAL_KEYS)})")
        return problems
    if truth["language"] not in LANGUAGES:
        problems.append(f"language {truth['language']!r}")
    if truth["docType"] not in DOC_TYPES:
        problems.append(f"docType {truth['docType']!r}")
        return problems
    for key in ("file", "issuer", "notes"):
        if not isinstance(truth[key], str) or not truth[key].strip():
            problems.append(f"{key} must be a non-empty string")
    if not isinstance(truth["scan"], bool):
        problems.append("scan must be true or false")
    derived = truth["derivedFrom"]
    if derived is not None:
        if not truth["scan"]:
            problems.append("derivedFrom is only for scans")
        if not (folder / str(derived)).is_file() or derived == truth["file"]:
            problems.append(f"derivedFrom {derived!r} is not another file in {folder.name}")
    fields = truth["fields"]
    if not isinstance(fields, dict):
        return [*problems, "fields is not an object"]
    wanted = FIELD_NAMES[truth["docType"]]
    if set(fields) != set(wanted):
        problems.append(f"fields {sorted(fields)} != {sorted(wanted)}")
    for name, value in fields.items():
        if name not in FIELD_KINDS:
            continue
        if value is not None and not (
            isinstance(value, str) and re.fullmatch(VALUE_PATTERNS[FIELD_KINDS[name]], value)
        ):
            problems.append(f"{name}={value!r} is not in docflow's normal form")
    amounts = [fields.get(k) for k in ("net_amount", "tax_amount", "total_amount")]
    if not problems and all(isinstance(a, str) for a in amounts):
        net, tax, total = (Decimal(a) for a in amounts)
        if net + tax != total:
            problems.append(f"net {net} + tax {tax} != total {total}")
    problems += lines_problems(truth)
    due, issued = fields.get("due_date"), fields.get("invoice_date")
    if not problems and due and issued and due < issued:
        problems.append(f"due date {due} before invoice date {issued}")
    for name in ("invoice_date", "due_date"):
        if fields.get(name) and not problems:
            _check_calendar(fields[name], name, problems)
    return problems


def lines_problems(truth: dict[str, Any]) -> list[str]:
    """The hand-written line items: rows in their columns' normal forms, and `linesAddUp`
    true exactly when the line amounts add up to the printed net within a cent."""
    tables, adds_up = truth["tables"], truth["linesAddUp"]
    if not isinstance(tables, dict) or set(tables) != {"lines"}:
        return ['tables must be {"lines": [...]}']
    rows = tables["lines"]
    if not isinstance(rows, list) or not isinstance(adds_up, bool):
        return ["tables.lines must be a list and linesAddUp true or false"]
    problems: list[str] = []
    for number, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not set(row) <= set(LINE_COLUMNS):
            problems.append(f"line {number}: columns {sorted(row)} not in {sorted(LINE_COLUMNS)}")
            continue
        if "description" not in row:
            problems.append(f"line {number}: no description")
        for column, value in row.items():
            kind = LINE_COLUMNS[column]
            if not (isinstance(value, str) and re.fullmatch(VALUE_PATTERNS[kind], value)):
                problems.append(f"line {number}: {column}={value!r} is not a {kind}")
            elif kind == "number" and "." in value and value.endswith("0"):
                problems.append(f"line {number}: {column}={value!r} is not plain")
    note = truth.get("linesNote")
    if note is not None and not (isinstance(note, str) and note.strip()):
        problems.append("linesNote must be a non-empty string")
    if problems:
        return problems
    net = truth["fields"].get("net_amount")
    total = sum((Decimal(r["amount"]) for r in rows if "amount" in r), Decimal(0))
    adds = bool(rows) and net is not None and abs(total - Decimal(net)) <= Decimal("0.01")
    if adds != adds_up:
        problems.append(f"linesAddUp is {adds_up} but the lines add up to {total}, net {net}")
    if rows and not adds_up and not note:
        problems.append("lines that do not add up to the net need a linesNote saying why")
    return problems


def _check_calendar(value: str, name: str, problems: list[str]) -> None:
    try:
        date.fromisoformat(value)
    except ValueError:
        problems.append(f"{name}={value!r} is not a calendar date")


def _pdfs() -> list[Path]:
    return sorted(ROOT.glob("*/*.pdf"))


def _truths() -> list[Path]:
    return sorted(ROOT.glob("*/*.truth.json"))


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _source_folders() -> list[Path]:
    return sorted(p for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def test_every_pdf_has_a_truth_file_and_every_truth_file_a_pdf():
    pdf_stems = {p.with_suffix("") for p in _pdfs()}
    truth_stems = {p.with_name(p.name.removesuffix(".truth.json")) for p in _truths()}
    assert pdf_stems, "no documents found"
    assert sorted(map(str, pdf_stems - truth_stems)) == [], "PDFs without a truth file"
    assert sorted(map(str, truth_stems - pdf_stems)) == [], "truth files without a PDF"


@pytest.mark.parametrize("path", _truths(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_truth_file_is_well_formed(path: Path):
    truth = _load(path)
    assert truth_problems(truth, path.parent) == []
    assert truth["file"] == path.name.removesuffix(".truth.json") + ".pdf"


def test_the_validator_catches_broken_truth():
    # The shape check above is only worth something if it rejects what is wrong.
    path = ROOT / "mustangproject" / "EN16931_Einfach.truth.json"
    good = _load(path)
    assert truth_problems(good, path.parent) == []
    breakages = {
        "comma amount": ("fields", "total_amount", "529,87"),
        "unknown language": (None, "language", "xx"),
        "German date": ("fields", "invoice_date", "15.11.2024"),
        "missing field": ("fields", "po_number", KeyError),
        "sums disagree": ("fields", "tax_amount", "56.86"),
        "no such day": ("fields", "due_date", "2024-11-31"),
        "derived from nothing": (None, "derivedFrom", "missing.pdf"),
        "lower-case currency": ("fields", "currency", "eur"),
        "no line truth": (None, "tables", KeyError),
        "a comma in a line": ("lines", 0, {"description": "Joghurt", "amount": "275,00"}),
        "an unknown column": ("lines", 1, {"description": "Joghurt", "vat": "19"}),
        "a line dropped": ("lines", 1, KeyError),
        "adds up, says not": (None, "linesAddUp", False),
    }
    for label, (section, key, value) in breakages.items():
        broken = copy.deepcopy(good)
        targets = {"fields": broken["fields"], "lines": broken["tables"]["lines"], None: broken}
        target = targets[section]
        if value is KeyError:
            del target[key]
        else:
            target[key] = value
        if key == "derivedFrom":
            broken["scan"] = True
        assert truth_problems(broken, path.parent), f"{label} was not caught"


def test_a_made_scan_has_the_lines_of_its_original():
    for path in _truths():
        truth = _load(path)
        if truth["derivedFrom"] is not None:
            original = _load(path.with_name(truth["derivedFrom"][: -len(".pdf")] + ".truth.json"))
            for key in ("tables", "linesAddUp", "linesNote"):
                assert truth.get(key) == original.get(key), f"{path.name}: {key}"


def test_line_truth_covers_the_set():
    # Line items are written for every document (`"lines": []` only where none is printed).
    truths = [_load(p) for p in _truths()]
    rows = [r for t in truths if t["derivedFrom"] is None for r in t["tables"]["lines"]]
    assert len(rows) >= 81
    assert sum(t["linesAddUp"] for t in truths if t["derivedFrom"] is None) >= 15


def test_every_source_folder_has_its_licence_and_names_its_files():
    folders = _source_folders()
    assert folders
    for folder in folders:
        names = {p.name for p in folder.iterdir()}
        assert any(LICENCE_NAMES.match(n) for n in names), f"{folder.name}: no licence file"
        assert "SOURCE.md" in names, f"{folder.name}: no SOURCE.md"
        source = (folder / "SOURCE.md").read_text(encoding="utf-8")
        assert "github.com/" in source and re.search(r"\b[0-9a-f]{40}\b", source), folder.name
        for pdf in folder.glob("*.pdf"):
            if _load(pdf.with_suffix(".truth.json"))["derivedFrom"] is None:
                assert pdf.name in source, f"{folder.name}/SOURCE.md does not name {pdf.name}"


def test_every_pdf_opens_and_derived_scans_have_no_text_layer():
    total = 0
    for pdf in _pdfs():
        size = pdf.stat().st_size
        total += size
        assert size < MAX_FILE_BYTES, f"{pdf.name} is {size} bytes"
        doc = pdfium.PdfDocument(pdf)
        try:
            assert len(doc) >= 1, pdf.name
            truth = _load(pdf.with_suffix(".truth.json"))
            if truth["derivedFrom"] is not None:
                for page in doc:
                    text = page.get_textpage().get_text_range()
                    assert text.strip() == "", f"{pdf.name} is meant to be image-only"
        finally:
            doc.close()
    assert total < MAX_SET_BYTES


def test_the_set_is_as_broad_as_promised():
    truths = [_load(p) for p in _truths()]
    assert len(truths) >= 42
    assert len({t["issuer"] for t in truths}) >= 27
    per_language = Counter(t["language"] for t in truths)
    assert set(per_language) == LANGUAGES, f"no document in {LANGUAGES - set(per_language)}"
    assert min(per_language.values()) >= 3, per_language
    assert sum(t["scan"] for t in truths) >= 17
    assert sum(t["derivedFrom"] is not None for t in truths) >= 11
    assert {t["docType"] for t in truths} >= {"invoice", "purchase-order"}
