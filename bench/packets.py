"""Packets assembled from real and generated labelled documents: how exactly they split, and
whether each part's key fields read as well as the same document sent alone.

    python bench/packets.py              40 packets of 2 to 8 documents from the real set
                                         (tests/data/real_invoices, 42, 18 of them scans) and
                                         the generated set (7 languages x text/scan x 3)
    python bench/packets.py --smoke      5 packets of 2 or 3 text-layer documents (< 1 min)
    python bench/packets.py --packets N --per-cell N --workers W --seed S --verbose

Each packet is a real PDF (the documents' pages back to back), uploaded to moto under the
shipped rules' packet prefix and put through the pipeline's own step bodies: split, read the
page batches (text layer, or real tesseract on scans), `plan parts` (the rules page engine and
the shipped thresholds), then `write_and_start` (each part written as its own PDF by PDFium,
its run "started" by a recording starter), and each part through split, read, classify and
extract as its own run would. Every document is also run alone, the same way. A document and
the scan made from it (the same invoice twice) are never put in one packet.

Boundaries are the pages where a document starts, page 1 aside. The last line of stdout is
one JSON object:

    packets, documents, pages, scanned_pages, seconds
    machine        {precision, recall, boundaries, true_boundaries}: the plan as proposed
                   (an unsure page counts as the proposal says)
    after_review   {precision, recall, ...}: what the parts start from, the unsure boundaries
                   decided as the split stage's reviewer would (by the truth), the rest as
                   proposed
    reviewed_packets   packets that waited on the split stage (at least one unsure page)
    unsure_pages       unsure boundaries asked of a person, and how many were real boundaries
    pages_lost, pages_in_two_parts   over the parts written (target 0 and 0)
    fields         {alone, in_packets, points}: exact match of printed key fields, over the
                   same (document, field) occurrences: sent alone, and read from the part that
                   holds the document's first page (points = in_packets - alone, x 100)
    classified     {alone, in_packets}: share of documents whose part got their true type
    by_set         {real|generated: {machine, after_review, fields}}
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import _common
from _extraction.generated import Document, corpus
from _extraction.real import real_documents
from _extraction.scoring import same
from _extraction.step import BenchStep
from pypdf import PdfReader, PdfWriter

from docflow import aws
from docflow.document import Field
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from tests.kit.sandbox import moto_sandbox

PREFIX = "incoming/packets/"


class RecordingStarter:
    """The intake starter's interface: the parts' runs, kept to be run here."""

    def __init__(self) -> None:
        self.started: list[DocumentRef] = []  # list.append is atomic: workers share one

    def start(self, doc: DocumentRef) -> bool:
        self.started.append(doc)
        return True

    def start_named(self, name: str, payload: str) -> bool:
        raise NotImplementedError


def assemble(
    pool: list[Document], count: int, sizes: tuple[int, int], seed: int
) -> list[list[Document]]:
    """`count` packets of `sizes` documents each, drawn from `pool` (seeded)."""
    rnd = random.Random(seed)  # test data, not crypto
    packets = []
    for _ in range(count):
        want, chosen, invoices = rnd.randint(*sizes), [], set()
        for doc in rnd.sample(pool, len(pool)):
            same_invoice = (doc.issuer, doc.truth.get("invoice_number"), doc.truth.get("po_number"))
            if same_invoice in invoices:
                continue  # a document and the scan made from it: the same invoice twice
            invoices.add(same_invoice)
            chosen.append(doc)
            if len(chosen) == want:
                break
        packets.append(chosen)
    return packets


def concatenated(docs: list[Document]) -> tuple[bytes, list[int]]:
    """The packet's PDF and the first page of each document in it."""
    writer, starts, page = PdfWriter(), [], 1
    for doc in docs:
        starts.append(page)
        writer.append(io.BytesIO(doc.pdf))
        page += len(PdfReader(io.BytesIO(doc.pdf)).pages)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue(), starts


def read_as_document(ref: DocumentRef) -> dict[str, Any]:
    """A document through its run's step bodies: split, read, classify, extract."""
    from docflow.pipeline.classify import classify_document
    from docflow.pipeline.extract import extract_fields
    from docflow.pipeline.read_batch import read_page_batch
    from docflow.pipeline.results import BatchSummary
    from docflow.pipeline.split import split_document

    step = BenchStep()
    split = split_document(ref)(step)
    if not split.ok:
        return {"docType": "failed", "fields": {}, "pages": 0}
    read = [read_page_batch(ref, i, a, b)(step) for i, (a, b) in enumerate(split.plan)]
    found = classify_document(ref, [BatchSummary.from_json(b) for b in read])(step)
    fields = extract_fields(ref, found.doc_type, split.plan)(step).fields if found.extract else {}
    return {"docType": found.doc_type, "fields": fields, "pages": split.pages}


def upload(bucket: str, key: str, data: bytes) -> DocumentRef:
    put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=data)
    return DocumentRef(bucket, key, put["VersionId"], "01")


def run_packet(
    index: int, docs: list[Document], bucket: str, starter: RecordingStarter
) -> dict[str, Any]:
    from docflow.packets.plan import parts_from_starts
    from docflow.pipeline.packet import plan_packet, write_and_start
    from docflow.pipeline.read_batch import read_page_batch
    from docflow.pipeline.split import split_document

    data, truth = concatenated(docs)
    ref = upload(bucket, f"{PREFIX}bench-{index:03d}.pdf", data)
    step = BenchStep()
    split = split_document(ref)(step)
    assert split.ok and split.packet, split
    for i, (a, b) in enumerate(split.plan):
        read_page_batch(ref, i, a, b)(step)
    plan = plan_packet(ref, split)(step)
    proposed = {first for first, _, _ in plan.parts}
    unsure = set(plan.unsure)
    # The split stage's reviewer decides the unsure pages (here: by the truth); the rest stand.
    decided = (proposed - unsure) | (unsure & set(truth))
    parts = [list(p) for p in parts_from_starts(sorted(decided), split.pages)]
    answers = write_and_start(ref, parts)(step)
    mine = [d for d in list(starter.started) if d.part and d.part.parent_id == ref.document_id]
    read = {(d.part.first, d.part.last): read_as_document(d) for d in mine if d.part}
    written = [(a, b) for a, b, how in answers if how == "started"]
    covered = [p for a, b in written for p in range(a, b + 1)]
    found = []
    for first in truth:
        holder = next((r for (a, b), r in read.items() if a <= first <= b), None)
        found.append(holder or {"docType": "failed", "fields": {}})
    return {
        "pages": split.pages,
        "truth": truth,
        "proposed": sorted(proposed),
        "unsure": sorted(unsure),
        "decided": sorted(decided),
        "lost": split.pages - len(set(covered)),
        "twice": len(covered) - len(set(covered)),
        "found": found,
    }


def boundaries(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    said = sum(len(set(r[key]) - {1}) for r in runs)
    real = sum(len(set(r["truth"]) - {1}) for r in runs)
    right = sum(len((set(r[key]) & set(r["truth"])) - {1}) for r in runs)
    return {
        "precision": round(right / said, 4) if said else 1.0,
        "recall": round(right / real, 4) if real else 1.0,
        "boundaries": said,
        "true_boundaries": real,
        "right": right,
    }


def _value(fields: Mapping[str, Field], name: str) -> Any:
    found = fields.get(name)
    return found.value if found is not None else None


def field_figures(pairs: list[tuple[Document, dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Exact match of printed fields alone and in packets, over the same occurrences."""
    alone = packed = total = 0
    typed_alone = typed_packed = 0
    for doc, by_itself, in_packet in pairs:
        typed_alone += by_itself["docType"] == doc.doc_type
        typed_packed += in_packet["docType"] == doc.doc_type
        for name, truth in doc.truth.items():
            if truth is None:
                continue
            total += 1
            alone += same(name, _value(by_itself["fields"], name), truth)
            packed += same(name, _value(in_packet["fields"], name), truth)
    n = len(pairs) or 1
    return {
        "fields": total,
        "alone": round(alone / total, 4) if total else None,
        "in_packets": round(packed / total, 4) if total else None,
        "points": round(100 * (packed - alone) / total, 2) if total else None,
        "classified": {
            "alone": round(typed_alone / n, 4),
            "in_packets": round(typed_packed / n, 4),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="5 small text-layer packets")
    parser.add_argument("--packets", type=int, default=40)
    parser.add_argument("--per-cell", type=int, default=3, help="generated documents per cell")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--verbose", action="store_true", help="each wrong boundary on stderr")
    args = parser.parse_args()
    _common.quiet()
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    started = time.monotonic()
    real = real_documents()
    generated = corpus(1 if args.smoke else args.per_cell)
    for doc in generated:
        doc.issuer = doc.issuer or str(doc.truth.get("vendor_name") or doc.ident)
    pool = [*real, *generated]
    count, sizes = (5, (2, 3)) if args.smoke else (args.packets, (2, 8))
    if args.smoke:
        pool = [d for d in pool if not d.scanned]
    packets = assemble(pool, count, sizes, args.seed)
    env = {"DOCFLOW_OCR_DPI": "300", "DOCFLOW_RULES_PATH": "", "DOCFLOW_EXTRACT_ENGINE": "rules"}
    names = LocalNames(prefix="bench")
    with moto_sandbox(names, env):
        from docflow.runtime import runtime, use_runtime

        bucket = names("DocumentBucket")
        starter = RecordingStarter()
        use_runtime(runtime().with_(starter=starter))
        unique = {d.ident: d for docs in packets for d in docs}
        with ThreadPoolExecutor(max_workers=args.workers) as pool_:
            alone = dict(
                zip(
                    unique,
                    pool_.map(
                        lambda d: read_as_document(upload(bucket, f"alone/{d.ident}.pdf", d.pdf)),
                        unique.values(),
                    ),
                    strict=True,
                )
            )
            runs = list(
                pool_.map(lambda p: run_packet(p[0], p[1], bucket, starter), enumerate(packets))
            )
    out = figures(packets, runs, alone)
    out["seconds"] = round(time.monotonic() - started, 1)
    if args.verbose:
        for docs, run in zip(packets, runs, strict=True):
            if set(run["decided"]) != set(run["truth"]) or set(run["proposed"]) != set(
                run["truth"]
            ):
                print(
                    [d.ident for d in docs],
                    run["truth"],
                    run["proposed"],
                    run["unsure"],
                    file=sys.stderr,
                )
    _common.emit(out)


def figures(
    packets: list[list[Document]], runs: list[dict[str, Any]], alone: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    pairs = [
        (doc, alone[doc.ident], found)
        for docs, run in zip(packets, runs, strict=True)
        for doc, found in zip(docs, run["found"], strict=True)
    ]
    unsure_real = sum(len(set(r["unsure"]) & set(r["truth"])) for r in runs)
    fields = field_figures(pairs)
    by_set = {}
    for name, keep in (
        ("real", lambda d: d.layout == "real"),
        ("generated", lambda d: d.layout != "real"),
    ):
        chosen = [p for p in pairs if keep(p[0])]
        by_set[name] = field_figures(chosen)
    return {
        "packets": len(runs),
        "documents": len(pairs),
        "pages": sum(r["pages"] for r in runs),
        "scanned_documents": sum(d.scanned for docs in packets for d in docs),
        "machine": boundaries(runs, "proposed"),
        "after_review": boundaries(runs, "decided"),
        "reviewed_packets": sum(bool(r["unsure"]) for r in runs),
        "unsure_pages": {
            "asked": sum(len(r["unsure"]) for r in runs),
            "real_boundaries": unsure_real,
        },
        "pages_lost": sum(r["lost"] for r in runs),
        "pages_in_two_parts": sum(r["twice"] for r in runs),
        "fields": {k: fields[k] for k in ("fields", "alone", "in_packets", "points")},
        "classified": fields["classified"],
        "by_set": by_set,
    }


if __name__ == "__main__":
    main()
