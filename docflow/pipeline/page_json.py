"""The JSON the read step stores in S3 beside the pages it read (`read_batch.py`), which the
extract, enrich and packet steps read back: a batch's manifest, each page's entry in it, and a
page's words. Keys and counts only in the manifest; the text and words are objects of their
own, so no checkpoint ever carries them."""

from __future__ import annotations

from typing import Any, TypedDict


class PageEntry(TypedDict, total=False):
    """One page of a batch: its number, the reader that read it, its characters and mean word
    confidence (0-100), where its text is, where its words are (only when the reader gave
    any), and the detectors' counts on it."""

    page: int
    engine: str
    chars: int
    confidence: float
    key: str
    wordsKey: str
    sensitive: dict[str, int]


class BatchManifest(TypedDict):
    """`batch_manifest_key`: the batch's first and last page and each page's entry."""

    first: int
    last: int
    pages: list[PageEntry]


class PageWords(TypedDict, total=False):
    """`page_words_key`: the page's words as `Word.to_row` writes them, the words OCR read in
    its pictures (`imageWords`), and the boxes of the pictures at a payment line it read
    nothing in (`imageUnread`, four page-relative numbers each)."""

    page: int
    words: list[list[Any]]  # [text, x0, y0, x1, y1, confidence]: a row of mixed kinds
    imageWords: list[list[Any]]
    imageUnread: list[list[float]]
