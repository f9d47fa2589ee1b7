"""Accuracy of the `extract` step with the `rules` engine on a generated, labelled set.

    python bench/extraction.py            240 documents (4 languages x text-layer/scanned x 30)
    python bench/extraction.py --smoke    16 documents, well under a minute
    python bench/extraction.py --per-cell N --workers W

Every document is a real PDF (text layer, or a 300-dpi scan read by real tesseract), uploaded
to moto and put through the pipeline's own step bodies in order: read the page batch, classify,
extract. The last line of stdout is one JSON object:

    documents, exact_match                 share of expected fields read exactly (normal form)
    by_field {name: rate}, by_language {lang: rate}
    text_layer_exact_match, scanned_exact_match
    routed_to_review                       share of documents the checks sent to a person
    routed_text_layer, routed_scanned      the same, by kind of page
    wrong_but_confident                    share of wrong or missing values on documents that
                                           were NOT sent to a person (target 0)
    classified                             share of documents classified as their true type
    wrong_values, seconds
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import _common
from _extraction_corpus import Document, corpus

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

    put = aws.client("s3").put_object(Bucket=bucket, Key=f"bench/{doc.ident}.pdf", Body=doc.pdf)
    ref = DocumentRef(bucket, f"bench/{doc.ident}.pdf", put["VersionId"], "01")
    step = _Step()
    batch = read_page_batch(ref, 0, 1, 1)(step)
    found = classify_document(ref, [batch])(step)
    if not found.get("extract"):
        return {"docType": found["docType"], "fields": {}, "checks": [], "stages": []}
    extracted = extract_fields(ref, found["docType"], [[1, 1]])(step)
    return {"docType": found["docType"], **extracted}


def score(docs: list[Document], results: list[dict[str, Any]]) -> dict[str, Any]:
    hits: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    wrong = uncaught = routed = classified = 0
    routed_by_mode: dict[bool, list[int]] = {False: [0, 0], True: [0, 0]}
    for doc, result in zip(docs, results, strict=True):
        review = bool(result["stages"])
        routed += review
        routed_by_mode[doc.scanned][0] += review
        routed_by_mode[doc.scanned][1] += 1
        classified += result["docType"] == doc.doc_type
        for name, truth in doc.truth.items():
            value = result["fields"].get(name, {}).get("value")
            ok = value == truth
            for key in (
                f"field:{name}",
                f"lang:{doc.language}",
                f"mode:{'scanned' if doc.scanned else 'text'}",
                "all",
            ):
                hits[key][0] += ok
                hits[key][1] += 1
            if not ok:
                wrong += 1
                uncaught += not review
    rate = lambda key: round(hits[key][0] / hits[key][1], 4) if hits[key][1] else None  # noqa: E731
    return {
        "documents": len(docs),
        "exact_match": rate("all"),
        "by_field": {k[6:]: rate(k) for k in sorted(hits) if k.startswith("field:")},
        "by_language": {k[5:]: rate(k) for k in sorted(hits) if k.startswith("lang:")},
        "text_layer_exact_match": rate("mode:text"),
        "scanned_exact_match": rate("mode:scanned"),
        "routed_to_review": round(routed / len(docs), 4),
        "routed_text_layer": round(routed_by_mode[False][0] / max(1, routed_by_mode[False][1]), 4),
        "routed_scanned": round(routed_by_mode[True][0] / max(1, routed_by_mode[True][1]), 4),
        "wrong_but_confident": round(uncaught / wrong, 4) if wrong else 0.0,
        "wrong_values": wrong,
        "classified": round(classified / len(docs), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="16 documents")
    parser.add_argument("--per-cell", type=int, default=30, help="documents per language/mode")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="print each miss on stderr")
    args = parser.parse_args()
    _common.quiet()
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # tesseracts side by side, one thread each
    per_cell = 2 if args.smoke else args.per_cell
    started = time.monotonic()
    docs = corpus(per_cell)
    names = LocalNames(prefix="bench")
    env = {"DOCFLOW_OCR_DPI": "300", "DOCFLOW_RULES_PATH": "", "DOCFLOW_EXTRACT_ENGINE": "rules"}
    with moto_sandbox(names, env):
        bucket = names("DocumentBucket")
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            results = list(pool.map(lambda d: run_one(d, bucket), docs))
    if args.verbose:
        import sys

        for doc, result in zip(docs, results, strict=True):
            for name, truth in doc.truth.items():
                got = result["fields"].get(name)
                if (got or {}).get("value") != truth:
                    print(
                        doc.ident,
                        doc.layout,
                        name,
                        repr(truth),
                        got,
                        [c["code"] for c in result["checks"]],
                        file=sys.stderr,
                    )
    out = score(docs, results)
    out["seconds"] = round(time.monotonic() - started, 1)
    _common.emit(out)


if __name__ == "__main__":
    main()
