"""A 200-page invoice annex: every page is read and its words stored beside its text, but the
extract step reads only the rules' first pages (`[fields] max_pages`), so its memory and work
do not grow with the annex. Measured with tracemalloc; no wall clock is asserted."""

from __future__ import annotations

import tracemalloc
from collections.abc import Sequence
from typing import Any

from docflow import aws
from docflow.extract.base import Extraction, PageInput
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.pipeline.classify import classify_document
from docflow.pipeline.extract import extract_fields
from docflow.pipeline.read_batch import read_page_batch
from docflow.pipeline.results import BatchSummary
from docflow.pipeline.split import split_document
from docflow.runtime import runtime, use_runtime
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack

PAGES = 200
ANNEX_LINE = "Item {n:05d}   Replacement part, annex to the invoice   1   12.50   12.50"


class RecordingEngine:
    """The real rules engine, recording how many pages each call was given."""

    name = "rules"

    def __init__(self) -> None:
        self.inner = RulesEngine()
        self.pages_given: list[int] = []

    def extract(self, pages: Sequence[PageInput], names: Sequence[str]) -> Extraction:
        self.pages_given.append(len(pages))
        return self.inner.extract(pages, names)


class _Step:
    attempt = 1

    class logger:
        @staticmethod
        def info(*_: Any, **__: Any) -> None: ...

        @staticmethod
        def warning(*_: Any, **__: Any) -> None: ...


def annex_pdf() -> bytes:
    annex = "\n".join(ANNEX_LINE.format(n=n) for n in range(40))
    return pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS, *([annex] * (PAGES - 1)))


def test_a_200_page_annex_extracts_from_its_first_pages_in_bounded_memory(
    stack: Stack, shipped_rules: None
) -> None:
    engine = RecordingEngine()
    use_runtime(runtime().with_(field_engine=engine))
    doc = stack.upload("in/annex.pdf", annex_pdf())
    step = _Step()
    split = split_document(doc)(step)
    assert split.ok and split.pages == PAGES
    read = [read_page_batch(doc, i, a, b)(step) for i, (a, b) in enumerate(split.batches)]
    batches = [BatchSummary.from_json(r) for r in read]
    found = classify_document(doc, batches)(step)
    assert found.doc_type == "invoice"

    tracemalloc.start()
    extracted = extract_fields(doc, "invoice", split.plan)(step)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    max_pages = runtime().rules.fields.max_pages
    assert engine.pages_given == [max_pages]
    assert extracted.fields["total_amount"].value == "1100.00"
    assert peak < 32 * 1024 * 1024, f"extract peaked at {peak / 2**20:.1f} MiB"
    # Every page's words are stored beside its text, for the review page's boxes.
    listed = aws.client("s3").list_objects_v2(
        Bucket=load_settings().artifact_bucket, Prefix=f"docs/{doc.document_id}/"
    )
    words = [o["Key"] for o in listed.get("Contents", []) if o["Key"].endswith(".words.json")]
    assert len(words) == PAGES
