"""Builds the configured reader stack from settings."""

from __future__ import annotations

from docflow.readers.auto import AutoReader
from docflow.readers.base import PageReader
from docflow.readers.blank import BlankPageSkipper
from docflow.readers.limiter import CappedReader, LeaseSemaphore
from docflow.readers.pictures import PictureReader
from docflow.readers.tesseract import TesseractReader
from docflow.readers.textlayer import TextLayerReader
from docflow.readers.textract import TextractReader
from docflow.readers.throttling import ThrottlePolicy, ThrottleRetryingReader
from docflow.settings import Settings


def _ocr(kind: str, settings: Settings, languages: str, identify: bool) -> PageReader:
    # A page without ink is never sent to OCR: seconds of tesseract, or a billed Textract call.
    return BlankPageSkipper(_ocr_engine(kind, settings, languages, identify))


def _ocr_engine(kind: str, settings: Settings, languages: str, identify: bool) -> PageReader:
    if kind == "textract":
        textract = TextractReader(dpi=settings.ocr_dpi)
        if settings.reader_concurrency_cap:
            # Textract's rate limit is per account: cap calls across every execution.
            return CappedReader(
                textract,
                LeaseSemaphore(
                    settings.reader_lease_table, "textract", settings.reader_concurrency_cap
                ),
            )
        return textract
    return TesseractReader(dpi=settings.ocr_dpi, language=languages, identify=identify)


def build_reader(settings: Settings, languages: str = "eng", identify: bool = False) -> PageReader:
    """`languages` is tesseract's `-l` (`eng+deu+fra`), from the rules file's `[ocr]`;
    `identify` its `identify` (each scan read with its own languages, readers/languages)."""
    engine = settings.ocr_engine
    reader: PageReader
    if engine == "textlayer":
        reader = TextLayerReader()
    elif engine in ("tesseract", "textract"):
        reader = _ocr(engine, settings, languages, identify)
    else:
        reader = AutoReader(
            _ocr(settings.ocr_fallback, settings, languages, identify),
            settings.text_layer_min_chars,
        )
    return ThrottleRetryingReader(reader, ThrottlePolicy.from_settings(settings))


def build_picture_reader(
    settings: Settings, languages: str = "eng", identify: bool = False
) -> PictureReader | None:
    """OCR of the pictures on text-layer pages (readers/pictures) with the `auto` reader's
    own OCR engine; None where no page is read from its text layer with OCR at hand."""
    if settings.ocr_engine != "auto":
        return None
    kind = settings.ocr_fallback
    ocr = _ocr_engine(kind, settings, languages, identify)
    if kind == "textract":
        ocr = ThrottleRetryingReader(ocr, ThrottlePolicy.from_settings(settings))
    return PictureReader(ocr, settings.ocr_dpi)
