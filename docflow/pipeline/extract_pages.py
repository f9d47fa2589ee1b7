"""The first pages of a document as a field engine reads them, from what the read step stored
(`page_json.py`: the batch manifests, each page's text and words). The extract step and what an
approved review teaches (`learn.py`) read the same pages."""

from __future__ import annotations

from functools import partial

from docflow.extract import PageInput
from docflow.ids import DocumentRef
from docflow.pdf import OpenPdf
from docflow.pipeline.page_json import BatchManifest, PageEntry, PageWords
from docflow.readers.base import Word
from docflow.runtime import runtime
from docflow.storage import batch_manifest_key, page_text_key

Box = tuple[float, float, float, float]


def manifest_pages(doc: DocumentRef, plan: list[list[int]], max_pages: int) -> list[PageEntry]:
    """Engine and confidence of the first pages, from the batch manifests the reads wrote."""
    store = runtime().store
    found: list[PageEntry] = []
    for index, (first, _last) in enumerate(plan):
        if first > max_pages:
            break
        manifest: BatchManifest = store.get_json(batch_manifest_key(doc, index))
        found.extend(p for p in manifest["pages"] if p["page"] <= max_pages)
    return found


def _stored_words(page: PageEntry) -> PageWords | None:
    """What the read step stored beside the page's text (only when the reader gave words)."""
    key = page.get("wordsKey")
    if not key:
        return None
    stored: PageWords = runtime().store.get_json(key)
    return stored


def page_words(page: PageEntry) -> tuple[Word, ...]:
    """The page's words from S3 (the manifest names them only when the reader gave any)."""
    stored = _stored_words(page)
    return tuple(Word.from_row(row) for row in stored["words"]) if stored else ()


def _pictures(page: PageEntry) -> tuple[tuple[Word, ...], tuple[Box, ...]]:
    """What OCR read in the page's pictures, and the pictures at a payment line it read
    nothing in (`imageWords`, `imageUnread` beside the page's words; readers/pictures)."""
    stored = _stored_words(page)
    if stored is None:
        return (), ()
    words = tuple(Word.from_row(row) for row in stored.get("imageWords", []))
    unread = tuple(_box(b) for b in stored.get("imageUnread", []))
    return words, unread


def _box(row: list[float]) -> Box:
    x0, y0, x1, y1 = (float(v) for v in row)
    return (x0, y0, x1, y1)


def page_inputs(
    doc: DocumentRef, plan: list[list[int]], max_pages: int, pdf: OpenPdf | None = None
) -> list[PageInput]:
    """The first pages as a field engine reads them (text, reader, confidence, words) and, when
    `pdf` is open, each page's picture, rendered only if the engine asks for it."""
    rt = runtime()
    out = []
    for p in manifest_pages(doc, plan, max_pages):
        pictures, unread = _pictures(p)
        out.append(
            PageInput(
                page=p["page"],
                text=rt.store.get_text(p.get("key") or page_text_key(doc, p["page"])),
                engine=p["engine"],
                confidence=float(p["confidence"]),
                image=partial(pdf.render_png, p["page"], rt.settings.ocr_dpi) if pdf else None,
                words=page_words(p),
                picture_words=pictures,
                unread_pictures=unread,
            )
        )
    return out
