"""Page readers: one interface, several engines, chosen by settings.

Each returns a page's text and, where the engine has them, its words with page-relative boxes
(0..1, top-left origin) and OCR confidences (`base.PageText`, `base.Word`). May import
docflow.pdf, docflow.aws, docflow.errors, docflow.settings and docflow.readmodel; nothing
from the pipeline or extraction."""

from __future__ import annotations

from docflow.readers.base import PageReader, PageText, Word
from docflow.readers.factory import build_picture_reader, build_reader
from docflow.readers.pictures import PictureReader

__all__ = [
    "PageReader",
    "PageText",
    "PictureReader",
    "Word",
    "build_picture_reader",
    "build_reader",
]
