"""Accuracy of the `extract` step with the `rules` engine, on a generated and a real labelled set.

    python bench/extraction.py            generated: 7 languages x text-layer/scanned x 12,
                                          real: every document in tests/data/real_invoices
    python bench/extraction.py --smoke    generated: 7 x 2 x 1, real: its text-layer documents
    python bench/extraction.py --per-cell N --workers W --verbose
    python bench/extraction.py --only real --match '_scan|receipt' --verbose

Every document is a real PDF (a text layer, or a scan read by real tesseract with the rules
file's languages), uploaded to moto and put through the pipeline's own step bodies in order:
split, read the page batches, classify, extract. The last line of stdout is one JSON object,
`{"generated": {...}, "real": {...}, "seconds": s}`, both sections of the same shape:

    documents, fields                 documents, and printed fields (truth not null) scored
    exact_match                       share of printed fields read exactly (normal form)
    text_layer_exact_match, scanned_exact_match
    ece                               expected calibration error of the extracted fields'
                                      confidences (10 bins, every field given a value)
    silent_wrong                      wrong values in documents that went through no `fields`
                                      or `triage` review (target 0)
    silent_missing                    printed fields not found, in documents with no review
    routed                            share of documents given a `fields`/`triage` stage
    classified                        share of documents classified as their true type
    by_language {lang: rate}, by_field {name: rate}
    warm (real only)                  the set replayed in order, each supplier's first document
                                      reviewed and learned: `bench/_extraction/warm.py`

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
from typing import Any

import _common
from _extraction.generated import Document, corpus
from _extraction.real import real_documents
from _extraction.scoring import score
from _extraction.warm import warm

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from docflow.local.tools.sandbox import moto_sandbox


class _Step:
    """What a step body gets from the SDK: a logger and the attempt number."""

    attempt = 1

    class logger:  # mirrors StepContext.logger
        @staticmethod
        def info(*_: Any, **__: Any) -> None: ...

        @staticmethod
        def warning(*_: Any, **__: Any) -> None: ...


def run_one(doc: Document, bucket: str) -> dict[str, Any]:
    from docflow.pipeline.classify import classify_document
    from docflow.pipeline.extract import extract_fields
    from docflow.pipeline.read_batch import read_page_batch
    from docflow.pipeline.split import split_document

    key = f"bench/{doc.ident}.pdf"
    put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=doc.pdf)
    ref = DocumentRef(bucket, key, put["VersionId"], "01")
    step = _Step()
    split = split_document(ref)(step)
    if not split["ok"]:
        return {"docType": "failed", "fields": {}, "checks": [], "stages": []}
    plan = split["batches"]
    batches = [read_page_batch(ref, i, first, last)(step) for i, (first, last) in enumerate(plan)]
    found = classify_document(ref, batches)(step)
    stages = found["stages"]
    if not found.get("extract"):
        return {"docType": found["docType"], "fields": {}, "checks": [], "stages": stages}
    extracted = extract_fields(ref, found["docType"], plan)(step)
    return {"docType": found["docType"], **extracted, "stages": [*stages, *extracted["stages"]]}


def run_set(docs: list[Document], bucket: str, workers: int) -> list[dict[str, Any]]:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda d: run_one(d, bucket), docs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a handful of documents")
    parser.add_argument("--per-cell", type=int, default=12, help="documents per language/mode")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="print each miss on stderr")
    parser.add_argument("--only", choices=("generated", "real"), help="run one set")
    parser.add_argument("--match", help="only the documents whose name matches this regex")
    args = parser.parse_args()
    _common.quiet()
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # tesseracts side by side, one thread each
    started = time.monotonic()
    sets: dict[str, list[Document]] = {}
    if args.only != "real":
        sets["generated"] = corpus(1 if args.smoke else args.per_cell)
    if args.only != "generated":
        real = real_documents()
        sets["real"] = [d for d in real if not d.scanned] if args.smoke else real
    if args.match:
        sets = {k: [d for d in v if re.search(args.match, d.ident)] for k, v in sets.items()}
    names = LocalNames(prefix="bench")
    env = {"DOCFLOW_OCR_DPI": "300", "DOCFLOW_RULES_PATH": "", "DOCFLOW_EXTRACT_ENGINE": "rules"}
    out: dict[str, Any] = {}
    with moto_sandbox(names, env):
        bucket = names("DocumentBucket")
        for name, docs in sets.items():
            results = run_set(docs, bucket, args.workers)
            scored = score(docs, results)
            if name == "real":  # the same documents replayed, the registry filling up
                scored["warm"] = warm(docs, bucket, results)
            misses = scored.pop("_misses")
            if args.verbose:
                for miss in misses:
                    print(name, json.dumps(miss, ensure_ascii=False), file=sys.stderr)
            out[name] = scored
    out["seconds"] = round(time.monotonic() - started, 1)
    _common.emit(out)


if __name__ == "__main__":
    main()
