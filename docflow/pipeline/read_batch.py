"""Step: read one batch of pages, store each page's text and words in S3, return a summary.

Words (with page-relative boxes and OCR confidences) go beside the page's text under an
immutable key, `pages/NNNNN.words.json`, and the manifest names it only when the engine gave
words: extraction reads them from S3, and no checkpoint ever carries them. A typed page's
pictures, OCR'd (docflow.readers.pictures), add `imageWords` there: their detector findings
count as the page's, and the preview covers them; the page's text stays its text layer's.
A small picture at a payment line that OCR read nothing in adds its box to `imageUnread`
(the bank-details check holds such an invoice).

The summary holds counts and keys only (no text), including the classifier's features for
these pages, so classification never reads the text back.

An XML-only e-invoice has no pages and no PDFium: its one page is the invoice rendered as
text (docflow.einvoice.text), engine `einvoice`, exact as a text layer is.
"""

from __future__ import annotations

from collections import Counter

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow import observability
from docflow.classify import Features, merge_features
from docflow.einvoice import detect, read
from docflow.einvoice.text import render
from docflow.errors import NOT_A_PDF, IntakeError
from docflow.ids import DocumentRef
from docflow.pdf import OpenPdf, open_pdf
from docflow.pipeline.page_json import BatchManifest, PageEntry, PageWords
from docflow.pipeline.result_json import BatchJson, BatchRefusedJson
from docflow.readers.base import PageText, Word
from docflow.readers.blank import BLANK
from docflow.readers.pictures import PictureReader, PictureReading, allowance
from docflow.rules.glued_digits import digits_apart
from docflow.runtime import runtime
from docflow.storage import PAGE_TEXT_EXPIRY, batch_manifest_key, page_text_key, page_words_key

TEXT_LAYER = "textlayer"
EINVOICE = "einvoice"
EXACT = 100.0  # a page's confidence is 0-100; the XML's text is exact, as a text layer's


def _added(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: a.get(k, 0) + b.get(k, 0) for k in sorted({*a, *b})}


def _pictures(
    step: StepContext, reader: PictureReader, pdf: OpenPdf, page: int, read: PageText, left: int
) -> tuple[int, PictureReading]:
    """What OCR read in the page's pictures, and the allowance left. A picture that cannot
    be read is logged and the page keeps its text layer's reading: a picture never fails a
    document its text layer reads (the small ones at a payment line are then unread)."""
    try:
        payment = reader.at_payment(pdf, page, read.words)
        boxes = reader.unread(pdf, page, read.words)
    except Exception as exc:
        step.logger.warning("pictures not read", extra={"page": page, "error": type(exc).__name__})
        return left, PictureReading()
    if not boxes:
        return left, PictureReading()
    try:
        return left - 1, reader.read(pdf, page, read.words)
    except Exception as exc:
        step.logger.warning("pictures not read", extra={"page": page, "error": type(exc).__name__})
        return left - 1, PictureReading(unread=tuple(payment))


def einvoice_page(data: bytes) -> PageText:
    """An XML-only e-invoice's one page: the invoice as text."""
    found = detect(data)
    if found is None:  # split read it as an invoice: the object changed under its version
        raise IntakeError("the e-invoice is no longer an invoice XML", NOT_A_PDF)
    return PageText(page=1, text=render(read(found)), engine=EINVOICE, confidence=EXACT)


@durable_step
def read_page_batch(
    step: StepContext, doc: DocumentRef, index: int, first: int, last: int, xml: bool = False
) -> BatchJson | BatchRefusedJson:
    rt = runtime()
    data = rt.store.source_bytes(doc, rt.settings.max_bytes)
    if xml:
        return _xml_batch(step, doc, index, einvoice_page(data))
    engines: Counter[str] = Counter()
    pages: list[PageEntry] = []
    features: list[Features] = []
    ocr_confidence_sum, ocr_pages = 0.0, 0
    try:
        with open_pdf(data) as pdf:
            left = allowance(len(pdf), first, last) if rt.pictures else 0
            for number in range(first, last + 1):
                result = rt.reader.read(pdf, number)
                key = page_text_key(doc, number)
                rt.store.put_text(key, result.text, expiry=PAGE_TEXT_EXPIRY)
                # A typed page's pictures: OCR'd (within the document's allowance) so that
                # the detectors count them and the preview covers them (readers/pictures).
                seen_in = PictureReading()
                if rt.pictures and left and result.engine == TEXT_LAYER:
                    left, seen_in = _pictures(step, rt.pictures, pdf, number, result, left)
                pictures: tuple[Word, ...] = seen_in.words
                words_key = None
                if result.words or pictures or seen_in.unread:
                    words_key = page_words_key(doc, number)
                    rows = [w.to_row() for w in result.words]
                    words: PageWords = {"page": number, "words": rows}
                    if pictures:
                        words["imageWords"] = [w.to_row() for w in pictures]
                    if seen_in.unread:
                        words["imageUnread"] = [[round(v, 4) for v in b] for b in seen_in.unread]
                    rt.store.put_json(words_key, words, expiry=PAGE_TEXT_EXPIRY)
                engines[result.engine] += 1
                # Per page, so the review page can say which page a detector fired on.
                found = rt.classifier.extract(result.text)
                # Digits the text glued (a card and the quantity after it) are counted as
                # the words have them apart too (rules/glued_digits.py): the more of the two.
                apart = digits_apart(result.text, (w.text for w in result.words))
                if apart != result.text:
                    more = rt.classifier.extract(apart)["sensitive"]
                    counted = found["sensitive"]
                    found["sensitive"] = {
                        d: max(counted.get(d, 0), more.get(d, 0)) for d in sorted({*counted, *more})
                    }
                if pictures:  # their findings count as the page's; their words type nothing
                    seen = rt.classifier.extract(" ".join(w.text for w in pictures))
                    found["sensitive"] = _added(found["sensitive"], seen["sensitive"])
                features.append(found)
                # A blank page was not read by OCR: its confidence says nothing of the OCR.
                if result.engine not in (TEXT_LAYER, BLANK):
                    ocr_confidence_sum += result.confidence
                    ocr_pages += 1
                pages.append(_entry(number, result, key, words_key, found["sensitive"]))
    except IntakeError as exc:
        step.logger.warning("page refused", extra={"reason": exc.reason, "batch": index})
        return {"batch": index, "error": {"reason": exc.reason, "message": exc.message}}
    manifest = batch_manifest_key(doc, index)
    written: BatchManifest = {"first": first, "last": last, "pages": pages}
    rt.store.put_json(manifest, written)
    for engine, n in engines.items():
        observability.count("PagesRead", n, engine=engine)
    step.logger.info(
        "batch read", extra={"batch": index, "pages": len(pages), "attempt": step.attempt}
    )
    return {
        "pages": len(pages),
        "chars": sum(p["chars"] for p in pages),
        "engines": dict(engines),
        "ocrPages": ocr_pages,
        "ocrConfidenceSum": round(ocr_confidence_sum, 2),
        "features": merge_features(features),
    }


def _entry(
    number: int, read: PageText, key: str, words_key: str | None, sensitive: dict[str, int]
) -> PageEntry:
    entry: PageEntry = {
        "page": number,
        "engine": read.engine,
        "chars": read.chars,
        "confidence": read.confidence,
        "key": key,
    }
    if words_key:
        entry["wordsKey"] = words_key
    entry["sensitive"] = sensitive
    return entry


def _xml_batch(step: StepContext, doc: DocumentRef, index: int, page: PageText) -> BatchJson:
    """An XML-only e-invoice's batch: its one page stored and summed up as a text layer's."""
    rt = runtime()
    key = page_text_key(doc, 1)
    rt.store.put_text(key, page.text, expiry=PAGE_TEXT_EXPIRY)
    found = rt.classifier.extract(page.text)
    entry = _entry(1, page, key, None, found["sensitive"])
    manifest: BatchManifest = {"first": 1, "last": 1, "pages": [entry]}
    rt.store.put_json(batch_manifest_key(doc, index), manifest)
    observability.count("PagesRead", 1, engine=EINVOICE)
    step.logger.info("batch read", extra={"batch": index, "pages": 1, "attempt": step.attempt})
    return {
        "pages": 1,
        "chars": page.chars,
        "engines": {EINVOICE: 1},
        "ocrPages": 0,
        "ocrConfidenceSum": 0.0,
        "features": merge_features([found]),
    }
