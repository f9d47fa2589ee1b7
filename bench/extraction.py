"""Straight-through and accuracy of the `extract` step with the `rules` engine, on a generated
and a real labelled set.

    python bench/extraction.py            generated: 7 languages x text-layer/scanned x 12,
                                          real: every document in tests/data/real_invoices
    python bench/extraction.py --smoke    generated: 7 x 2 x 1, real: six of its text-layer
                                          documents (warm at min_confirmations 2 only), types:
                                          four text-layer documents, variants: one stream
    python bench/extraction.py --per-cell N --workers W --verbose
    python bench/extraction.py --only real --match '_scan|receipt' --verbose
    python bench/extraction.py --only variants [--variants N]   the variants section alone
    python bench/extraction.py --only types   receipts, bank statements, contracts and a
                                          claim form (tests/data/real_documents), per type
    python bench/extraction.py --report DIR    also write DIR/extraction.json and the
                                          reliability diagram DIR/extraction-reliability.png
    python bench/extraction.py --fit      refit docflow/extract/rules_engine/calibration.json
                                          on this run
    python bench/extraction.py --only variants --fit-profile    refit the profile reads' table
                                          (docflow/suppliers/profile_calibration.json) on
                                          the variants' warm replay (measure again after it)
    python bench/extraction.py --reads DIR    keep each document's page reads in DIR and
                                          reuse them (a rules change measured in seconds;
                                          never for the figures of record)

Every document is a real PDF (a text layer, or a scan read by real tesseract with the rules
file's languages), uploaded to moto and put through the pipeline's own step bodies in order:
split, read the page batches, classify, extract. The last line of stdout is one JSON object:

    {"generated": {"cold": {...}, "cross_validated": {...}, "warm": null},
     "real":      {"cold": {...}, "cross_validated": {...},
                  "warm": {"1": {...}, "2": {...}, "2+names": {...}}, "lines": {...}},
     "variants":  {"originals", "with_variants", "skipped", "dropped", "documents", "streams",
                   "min_confirmations", "warm": {...}, "cold": {...},
                   "cross_validated": {...}, "generate_seconds", "seconds"},
     "types":     {type: {documents, classified, straight_through, fields_review_rate,
                         silent_wrong, fields, tables, by_stage}},
     "calibration": {"table": "fitted" | "refitted", "thresholds": {field: t}},
     "seconds": s}

`cold` (an empty supplier registry, no learned profiles; the shipped calibration table):

    documents, fields                 documents, and printed fields (truth not null) scored
    straight_through                  share of documents finalized with no review stage of
                                      any kind and every printed field right (the headline)
    review_rate                       share of documents given any review stage
    fields_review_rate                share given a `fields`/`triage` stage (a person who
                                      checks the fields)
    silent_wrong                      wrong values in documents whose fields no person
                                      checked (target 0)
    silent_missing                    printed fields absent in such documents (target 0)
    exact_match                       share of printed fields read exactly (normal form)
    text_layer_exact_match, scanned_exact_match
    ece                               expected calibration error of the extracted fields'
                                      confidences (10 bins, every field given a value)
    classified                        share of documents classified as their true type
    by_stage {stage: documents given it}   which stages hold documents back
    by_language {lang: {documents, straight_through, review_rate, fields_review_rate,
                        exact_match, silent_wrong, silent_missing}}
    by_field {name: {fields, exact_match, ece, silent_wrong, silent_missing, flagged}}

`cross_validated`: straight_through, review_rate, fields_review_rate, silent_wrong,
silent_missing, ece, when
each issuer's documents are scored with a calibration and thresholds fitted on every other
issuer's documents of both sets (leave-one-issuer-out, `bench/_extraction/calibrate.py`):
the figure to trust, since the shipped table was fitted on these very documents.

`warm` (real only): {"1": {...}, "2": {...}, "2+names": {...}}, the set replayed in order
with `[suppliers] min_confirmations` 1 and 2, each supplier's first document reviewed and
learned, every later one a person reviews or audits taught too, `audit_rate` the share the
audit sampler sent to a person; `2+names` with every supplier in the registry by its name,
so one with no checked id learns too (`bench/_extraction/warm.py`); null for the generated
set.

`lines` (real only): the invoices' line items against the rows written by hand in the truth
files: documents and rows in truth, documents read, rows exact (matched by value, each truth
row once), documents exact, silent-wrong rows, documents whose read rows add up to the read
net amount, per issuer (`bench/_extraction/lines.py` says each key).

`variants`: the real set's layouts with new values printed in place (`bench/_extraction/
variants.py`, cached under `.docflow/bench/variants/v<version>/`), five a born-digital
original and their scans where the set has its scan; each stream of five replayed against
a filling registry at `min_confirmations` 2, the first two reviewed and taught, the last
three measured (`bench/_extraction/variant_figures.py` says each key). `--smoke`: one
original's five. Never fitted on (`--fit` leaves them out); their `cross_validated` fits
leave out the issuer's documents of every set.

`types`: the real documents of the types beyond invoices, scored against what each type
declares (`bench/_extraction/types.py` says each key); measured, never fitted on.

`--verbose` prints each miss on stderr. How values compare: `bench/_extraction/scoring.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import _common
from _extraction.calibrate import Record, cross_validate, fit_all
from _extraction.generated import Document, corpus
from _extraction.lines import misses as lines_misses
from _extraction.lines import section as lines_section
from _extraction.profile_fit import fitted as fit_profile_table
from _extraction.profile_fit import write as write_profile_table
from _extraction.reads import ReadCache
from _extraction.real import real_documents
from _extraction.reliability import draw_reliability
from _extraction.scoring import ece, judge, score
from _extraction.step import run_document
from _extraction.types import declared_kinds, score_types, type_documents
from _extraction.types import misses as type_misses
from _extraction.variant_figures import cold_runs, read_cache, reads_folder, with_cross_validated
from _extraction.variant_figures import section as variants_section
from _extraction.variants import SMOKE as VARIANTS_SMOKE
from _extraction.variants import VERSION as VARIANTS_VERSION
from _extraction.variants import N as VARIANTS
from _extraction.variants import variant_set
from _extraction.warm import warm_by_confirmations

from docflow.extract.declarations.labels import BUILTIN_KINDS as FIELD_KINDS
from docflow.local.resources import LocalNames
from tests.kit.sandbox import moto_sandbox

# A smoke run's share of the real set and of the other types: enough to run every section.
SMOKE_REAL, SMOKE_TYPES = 6, 4


def run_one(doc: Document, bucket: str, reads: ReadCache | None = None) -> dict[str, Any]:
    return run_document(doc, bucket, reads)[2]


def run_set(
    docs: list[Document], bucket: str, workers: int, reads: ReadCache | None
) -> list[dict[str, Any]]:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda d: run_one(d, bucket, reads), docs))


def _issuer(doc: Document) -> str:
    # The generated set's issuer is its vendor; the real set's, its truth's `issuer`.
    return getattr(doc, "issuer", "") or str(doc.truth.get("vendor_name") or doc.ident)


def _figures(docs: list[Document], results: list[dict[str, Any]]) -> dict[str, Any]:
    verdicts = [judge(d, r) for d, r in zip(docs, results, strict=True)]
    n = len(verdicts)
    pairs = [
        (float(f["confidence"] or 0.0), f["ok"])
        for v in verdicts
        for f in v["fields"].values()
        if f["scored"]
    ]
    return {
        "straight_through": round(sum(v["straight_through"] for v in verdicts) / n, 4),
        "review_rate": round(sum(v["any_stage"] for v in verdicts) / n, 4),
        "fields_review_rate": round(sum(v["reviewed"] for v in verdicts) / n, 4),
        "silent_wrong": sum(v["silent_wrong"] for v in verdicts),
        "silent_missing": sum(v["silent_missing"] for v in verdicts),
        "ece": ece(pairs),
        "_pairs": pairs,
    }


def _silent(docs: list[Document], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each wrong or missing value in a document no person saw."""
    out = []
    for doc, result in zip(docs, results, strict=True):
        verdict = judge(doc, result)
        for field, f in verdict["fields"].items():
            if not verdict["reviewed"] and (f["wrong"] or f["missing"]):
                out.append(
                    {"doc": doc.ident, "field": field, "truth": f["truth"], "got": f["value"]}
                    | {"confidence": f["confidence"]}
                )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a handful of documents")
    parser.add_argument("--per-cell", type=int, default=12, help="documents per language/mode")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="print each miss on stderr")
    parser.add_argument(
        "--only", choices=("generated", "real", "variants", "types"), help="one set"
    )
    parser.add_argument("--variants", type=int, default=VARIANTS, help="variants an original")
    parser.add_argument("--match", help="only the documents whose name matches this regex")
    parser.add_argument("--report", help="a folder for extraction.json and the PNG")
    parser.add_argument("--fit", action="store_true", help="refit the calibration table")
    parser.add_argument(
        "--fit-profile",
        action="store_true",
        help="refit the profile reads' table (docflow/suppliers/profile_calibration.json) on "
        "the variants' warm replay",
    )
    parser.add_argument("--reads", help="a folder to keep and reuse page reads in (dev only)")
    args = parser.parse_args()
    _common.quiet()
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # tesseracts side by side, one thread each
    started = time.monotonic()
    sets: dict[str, list[Document]] = {}
    if args.only in (None, "generated"):
        sets["generated"] = corpus(1 if args.smoke else args.per_cell)
    if args.only in (None, "real"):
        real = real_documents()
        sets["real"] = [d for d in real if not d.scanned][:SMOKE_REAL] if args.smoke else real
    found = None
    if args.only in (None, "variants"):
        began = time.monotonic()
        found = variant_set(args.variants, only=VARIANTS_SMOKE if args.smoke else None)
        generate_seconds = time.monotonic() - began
        sets["variants"] = found.documents
    # The other types are their own section: never in `sets`, so never fitted on.
    typed = type_documents() if args.only in (None, "types") else []
    if args.smoke:
        typed = [d for d in typed if not d.scanned][:SMOKE_TYPES]
    if args.match:
        sets = {k: [d for d in v if re.search(args.match, d.ident)] for k, v in sets.items()}
        typed = [d for d in typed if re.search(args.match, d.ident)]
    names = LocalNames(prefix="bench")
    env = {"DOCFLOW_OCR_DPI": "300", "DOCFLOW_RULES_PATH": "", "DOCFLOW_EXTRACT_ENGINE": "rules"}
    out: dict[str, Any] = {}
    reads = ReadCache(Path(args.reads)) if args.reads else None
    runs: dict[str, list[dict[str, Any]]] = {}
    warmed: dict[str, Any] = {}
    with moto_sandbox(names, env), reads_folder() as kept:
        bucket = names("DocumentBucket")
        for name, docs in sets.items():
            if name == "variants" and found is not None:  # its own section, below
                began = time.monotonic()
                # `--reads` keeps the variants' page reads too (development only).
                variant_reads = reads or read_cache(kept)
                runs[name] = cold_runs(docs, bucket, args.workers, variant_reads)
                found.documents = docs  # as --match left them
                warmed[name] = variants_section(
                    found, bucket, args.workers, runs[name], variant_reads, generate_seconds, began
                )
                for detail in warmed[name].pop("_details"):
                    if args.verbose:
                        print(name, "warm", json.dumps(detail), file=sys.stderr)
                profile_reads = warmed[name].pop("_reads")
                if args.fit_profile:  # the profile table, fitted on this replay's reads
                    streams = warmed[name]["streams"]
                    on = {"set": f"variants v{VARIANTS_VERSION}", "streams": streams}
                    write_profile_table(fit_profile_table(profile_reads, on))
                    warmed[name]["profile_table"] = "refitted"
                continue
            runs[name] = run_set(docs, bucket, args.workers, reads)
            if name == "real":  # the same documents replayed, the registry filling up
                # A smoke run checks the replay runs, at the shipped number only.
                counts = (2,) if args.smoke else (1, 2)
                warmed[name] = warm_by_confirmations(docs, bucket, runs[name], reads, counts)
                for count, figures in warmed[name].items():
                    figures.pop("_results")
                    figures.pop("_reads")
                    for detail in figures.pop("_details"):
                        if args.verbose:
                            print(name, f"warm{count}", json.dumps(detail), file=sys.stderr)
        typed_runs = run_set(typed, bucket, args.workers, reads) if typed else []
    records = [
        Record(name, _issuer(doc), doc, result, result["evidence"])
        for name, docs in sets.items()
        for doc, result in zip(docs, runs[name], strict=True)
    ]
    from docflow.extract.rules_engine.calibration import TABLE, load_table
    from docflow.extract.rules_engine.calibration import thresholds as fitted_thresholds

    names_ = list(FIELD_KINDS)
    table_name = "fitted"
    # The variants are measured, never fitted on: the shipped table and the other sets'
    # leave-one-issuer-out figures stay what they were.
    every, records = records, [r for r in records if r.set != "variants"]
    if args.fit:
        table = fit_all(records, names_)
        table["fitted_on"] = {k: len(v) for k, v in sets.items() if k != "variants"}
        TABLE.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
        load_table.cache_clear()
        table_name = "refitted"
        # What the refitted table gives on the same run (a tuned, in-sample figure).
        limits = fitted_thresholds(table)
        from _extraction.calibrate import applied

        runs = {name: [applied(r, table, limits) for r in every if r.set == name] for name in sets}
    validated = cross_validate(records, names_) if len(records) > 1 else []
    pngs: dict[str, list[tuple[float, bool]]] = {}
    if "variants" in sets and len({r.group for r in every}) > 1:
        with_cross_validated(
            warmed["variants"], sets["variants"], cross_validate(every, names_, only="variants")
        )
    for name, docs in sets.items():
        if name == "variants":
            out[name] = warmed[name]
            continue
        scored = score(docs, runs[name])
        misses = scored.pop("_misses")
        pngs[f"{name}, shipped table"] = scored.pop("_pairs")
        if args.verbose:
            for miss in misses:
                print(name, json.dumps(miss, ensure_ascii=False), file=sys.stderr)
        held = [v for r, v in zip(records, validated, strict=False) if r.set == name]
        section: dict[str, Any] = {
            "cold": scored,
            "cross_validated": None,
            "warm": warmed.get(name),
        }
        if len(held) == len(docs):
            section["cross_validated"] = _figures(docs, held)
            if args.verbose:  # the values a fit without their issuer let through unseen
                for miss in _silent(docs, held):
                    print(name, "cross_validated", json.dumps(miss), file=sys.stderr)
            pngs[f"{name}, leave-one-issuer-out"] = section["cross_validated"].pop("_pairs")
        if name == "real":
            section["lines"] = lines_section(docs, runs[name])
            if args.verbose:
                for miss in lines_misses(docs, runs[name]):
                    print(name, "lines", json.dumps(miss, ensure_ascii=False), file=sys.stderr)
        out[name] = section
    if typed:
        kinds = declared_kinds()
        out["types"] = score_types(typed, typed_runs, kinds)
        if args.verbose:
            for miss in type_misses(typed, typed_runs, kinds):
                print("types", json.dumps(miss, ensure_ascii=False), file=sys.stderr)
    out["calibration"] = {"table": table_name, "thresholds": fitted_thresholds(load_table())}
    out["seconds"] = round(time.monotonic() - started, 1)
    if args.report:
        folder = Path(args.report)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "extraction.json").write_text(json.dumps(out, indent=1) + "\n")
        draw_reliability(pngs, folder / "extraction-reliability.png")
    _common.emit(out)


if __name__ == "__main__":
    main()
