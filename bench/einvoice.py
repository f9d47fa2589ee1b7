"""Structured invoices read from their EN 16931 data: exact, validated, and how fast.

    python bench/einvoice.py            every sample in tests/data/einvoice, 5 rounds for time
    python bench/einvoice.py --smoke    every sample, 1 round
    python bench/einvoice.py --picture x.png   also draws one hybrid whose page IBAN changed

Each sample has a hand-checked truth beside it (tests/data/einvoice/README.md). Per format
(syntax and flavor, with the Factur-X/ZUGFeRD profile):

    fields_exact   header fields equal to the truth (number, type, dates, currency, seller
                   and buyer names and VAT ids, net, tax, total, payable, order reference,
                   buyer reference, IBANs, BIC), amounts compared as decimals
    lines_exact    line items whose description, quantity, unit, unit price, net, VAT
                   category and rate all equal the truth
    vat_exact      VAT breakdown rows equal to the truth
    rules_expected invalid files whose fatal rules are exactly those the truth names, and
                   valid files with no fatal rule and a passing XSD
    seconds_per_document  detect + read + validate, the median over the rounds (the first
                   round also compiles Saxon's stylesheets: `first_seconds` shows it)

    hybrid         mismatches made from the valid hybrid PDFs (the invoice number, the total
                   and the payee IBAN changed on the page or in the XML), each run through
                   the split, page read and extract steps on moto: caught/made per side and
                   kind, and false alarms on the unchanged files (bench/_hybrid.py)

The last line of stdout is one JSON object: {"documents", "formats": {...}, "fields_exact",
"lines_exact", "rules_expected", "mismatches", "seconds_per_document", "first_seconds",
"hybrid", "ok"}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import _common
from _hybrid import hybrid_section

from docflow.einvoice import EInvoice, detect, read, validate
from docflow.local.resources import LocalNames
from tests.kit.sandbox import moto_sandbox

DATA = _common.ROOT / "tests" / "data" / "einvoice"
HEADER = (
    "number", "type_code", "issue_date", "due_date", "currency", "net", "tax", "total",
    "payable", "po_number", "buyer_reference", "ibans", "bic",
)  # fmt: skip


def same(want: Any, got: Any) -> bool:
    if isinstance(want, str) and isinstance(got, str):
        try:
            return Decimal(want) == Decimal(got)
        except InvalidOperation:
            return want == got
    if isinstance(want, list):
        return isinstance(got, (list, tuple)) and list(want) == list(got)
    return bool(want == got)


def field_checks(truth: dict[str, Any], invoice: EInvoice) -> dict[str, bool]:
    got = invoice.to_json()
    checks = {name: same(truth[name], got[name]) for name in HEADER if name in truth}
    for party in ("seller", "buyer"):
        for key, want in truth[party].items():
            checks[f"{party}.{key}"] = same(want, got[party][key])
    checks["document_type"] = truth["document_type"] == invoice.document_type
    return checks


def rows_exact(want: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[bool]:
    if len(want) != len(got):
        return [False] * max(len(want), 1)
    return [all(same(v, g[k]) for k, v in w.items()) for w, g in zip(want, got, strict=True)]


def run_one(path: Path) -> tuple[dict[str, Any], float]:
    truth = json.loads(path.with_suffix(".truth.json").read_text())
    start = time.perf_counter()
    found = detect(path.read_bytes())
    assert found is not None, path.name
    invoice = read(found)
    report = validate(found)
    seconds = time.perf_counter() - start
    fields = field_checks(truth, invoice)
    want_detect = truth["detect"]
    got_detect = {k: getattr(found, k) for k in want_detect}
    fatal = sorted({f.rule for f in report.fatal})
    rules_ok = fatal == sorted(truth["fatal_rules"]) and (
        bool(truth["fatal_rules"]) or report.xsd == "passed"
    )
    got = invoice.to_json()
    return {
        "name": path.name,
        "format": f"{found.flavor}" + (f"/{found.level}" if found.level else ""),
        "detect_ok": got_detect == want_detect,
        "fields": fields,
        "lines": rows_exact(truth["lines"], got["lines"]),
        "vat": rows_exact(truth["vat"], got["vat"]),
        "rules_ok": rules_ok,
        "fatal": fatal,
    }, seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--picture", type=Path, help="a PNG of one page whose IBAN was changed")
    args = parser.parse_args()
    _common.quiet()
    samples = sorted(p for p in DATA.iterdir() if p.suffix in (".xml", ".pdf"))
    rounds = 1 if args.smoke else 5
    times: dict[str, list[float]] = {}
    results: list[dict[str, Any]] = []
    for n in range(rounds):
        for path in samples:
            result, seconds = run_one(path)
            times.setdefault(path.name, []).append(seconds)
            if n == 0:
                results.append(result)
    formats: dict[str, dict[str, Any]] = {}
    mismatches = []
    for r in results:
        f = formats.setdefault(r["format"], {"documents": 0, "fields": [0, 0], "lines": [0, 0]})
        f["documents"] += 1
        f["fields"][0] += sum(r["fields"].values())
        f["fields"][1] += len(r["fields"])
        f["lines"][0] += sum(r["lines"])
        f["lines"][1] += len(r["lines"])
        bad = [k for k, ok in r["fields"].items() if not ok]
        if bad or not all(r["lines"]) or not all(r["vat"]) or not r["rules_ok"]:
            mismatches.append({"name": r["name"], "fields": bad, "fatal": r["fatal"]})
        if not r["detect_ok"]:
            mismatches.append({"name": r["name"], "detect": False})
    for f in formats.values():
        f["fields_exact"] = round(f["fields"][0] / f["fields"][1], 4)
        f["lines_exact"] = round(f["lines"][0] / max(f["lines"][1], 1), 4)
        del f["fields"], f["lines"]
    fields_total = sum(len(r["fields"]) for r in results)
    lines_total = sum(len(r["lines"]) for r in results)
    per_doc = [statistics.median(t) for t in times.values()]
    valid_hybrids = [
        p
        for p in samples
        if p.suffix == ".pdf"
        and not json.loads(p.with_suffix(".truth.json").read_text())["fatal_rules"]
    ]
    names = LocalNames(prefix="bench")
    with moto_sandbox(names, {"DOCFLOW_RULES_PATH": "", "DOCFLOW_EXTRACT_ENGINE": "rules"}):
        hybrid = hybrid_section(valid_hybrids, names("DocumentBucket"), args.picture)
    _common.emit(
        {
            "documents": len(results),
            "rounds": rounds,
            "formats": formats,
            "fields_exact": round(
                sum(sum(r["fields"].values()) for r in results) / fields_total, 4
            ),
            "lines_exact": round(sum(sum(r["lines"]) for r in results) / lines_total, 4),
            "vat_exact": all(all(r["vat"]) for r in results),
            "rules_expected": sum(r["rules_ok"] for r in results),
            "rules_of": len(results),
            "mismatches": mismatches,
            "seconds_per_document": round(statistics.median(per_doc), 4),
            "max_seconds": round(max(max(t) for t in times.values()), 4),
            "first_seconds": round(sum(t[0] for t in times.values()), 3),
            "hybrid": hybrid,
            "ok": not mismatches
            and hybrid["caught"] == hybrid["made"]
            and not hybrid["false_alarms"],
        }
    )


if __name__ == "__main__":
    main()
