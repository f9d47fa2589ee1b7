"""Step: merge the batches' features and classify the document; an e-invoice's type is the one
its type code states (`stated`), mapped onto the rules file's types, not its words; a document
the classifier would send to triage whose first page is a learned layout takes the type that
layout's reviews approved (`docflow.suppliers.match.layout_type`: a known supplier's invoice in
a language no rule knows is no triage)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig

from docflow.classify import Classified, merge_features
from docflow.ids import DocumentRef
from docflow.pipeline.einvoice_read import rules_type
from docflow.pipeline.result_json import ReadingTotals
from docflow.pipeline.results import BatchSummary, Classification
from docflow.pipeline.serdes import RecordSerDes
from docflow.pipeline.triage import offer_types
from docflow.readers.blank import BLANK
from docflow.rules.model import Rules
from docflow.runtime import runtime


def summarize_batches(batches: Sequence[BatchSummary]) -> ReadingTotals:
    """Pure: page count, engines and mean OCR confidence over all batches."""
    engines: Counter[str] = Counter()
    for batch in batches:
        engines.update(batch.engines)
    ocr_pages = sum(b.ocr_pages for b in batches)
    ocr_confidence = (
        round(sum(b.ocr_confidence_sum for b in batches) / ocr_pages, 2) if ocr_pages else None
    )
    return ReadingTotals(
        pages=sum(b.pages for b in batches),
        chars=sum(b.chars for b in batches),
        engines=dict(sorted(engines.items())),
        ocrConfidence=ocr_confidence,
    )


def every_page_blank(batches: Sequence[BatchSummary]) -> str | None:
    """Pure: the failure message when no page of the document has any ink, else None."""
    pages = sum(b.pages for b in batches)
    blank = sum(b.engines.get(BLANK, 0) for b in batches)
    if not pages or blank < pages:
        return None
    return (
        f"every page of the document is blank ({pages} page{'s' if pages != 1 else ''}, no "
        "ink on any): nothing to read or classify"
    )


CLASSIFY_STEP = StepConfig(serdes=RecordSerDes(Classification))


@durable_step
def classify_document(
    step: StepContext,
    doc: DocumentRef,
    batches: Sequence[BatchSummary],
    stated: str | None = None,
) -> Classification:
    """`stated`: an e-invoice's EN 16931 document type (invoice, credit-note,
    corrected-invoice...); its rules type is taken for certain, never triaged."""
    reading = summarize_batches(batches)
    features = merge_features(b.features for b in batches)
    rt = runtime()
    classifier = rt.classifier
    if stated is None:
        result = classifier.classify(features, reading["ocrConfidence"])
        known = _layout_type(step, doc) if _triaged(result, rt.rules) else None
        if known:
            typed = classifier.classify(features, reading["ocrConfidence"], forced=known)
            result = _typed_by_layout(result, typed)
    else:
        forced = rules_type(stated, (t.name for t in rt.rules.types))
        result = classifier.classify(features, reading["ocrConfidence"], forced=forced)
    # A triage stage offers the rules file's types, checkpointed here with the stage.
    found = Classification.from_json({**result, **reading})
    found = offer_types(found, getattr(classifier, "rules", None))
    step.logger.info(
        "document classified",
        extra={"docType": found.doc_type, "stages": [s.name for s in found.stages]},
    )
    return found


def _triaged(result: Classified, rules: Rules) -> bool:
    name = rules.triage_stage
    return bool(name) and any(s.get("name") == name for s in result["stages"])


def _layout_type(step: StepContext, doc: DocumentRef) -> str | None:
    """The type a learned layout's reviews approved, when page 1 is that layout; None when it
    is none, or the registry cannot be read (the document then goes to triage, as before)."""
    from docflow.extract.rules_engine.engine import layout_of
    from docflow.pipeline.extract_pages import page_inputs
    from docflow.suppliers.layouts import LayoutStore
    from docflow.suppliers.match import layout_type

    rt = runtime()
    table = rt.settings.supplier_table
    if not table:
        return None
    try:
        pages = [layout_of(p) for p in page_inputs(doc, [[1, 1]], 1)]
        found = layout_type(LayoutStore(table).outlines(), pages)
    except Exception as exc:  # a person picks the type rather than the document failing
        step.logger.warning("layouts unreadable at classify", extra={"error": type(exc).__name__})
        return None
    known = found if found in {t.name for t in rt.rules.types} else None
    if known:
        step.logger.info("type from a learned layout", extra={"docType": known})
    return known


def _typed_by_layout(guessed: Classified, typed: Classified) -> Classified:
    """The layout's type and its stages, with what the page's reading said kept: its OCR
    quality (a poor scan is still a poor scan) and its sensitive data."""
    quality = [s for s in guessed["stages"] if s.get("because") == "quality"]
    names = {s.get("name") for s in typed["stages"]}
    kept = [s for s in quality if s.get("name") not in names]
    stages = [*typed["stages"], *kept]
    return {**typed, "lowConfidence": guessed["lowConfidence"], "stages": stages}
