"""PDF intake and per-page access, on pypdfium2.

PDFium is not thread-safe, and the map over page batches runs steps on threads, so every call
into it holds one process-wide lock. The expensive part of OCR (tesseract, Textract) runs
outside the lock on the rendered image, so pages still overlap where it matters.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pypdfium2 as pdfium
from PIL import Image
from pypdf import PdfReader

from docflow.errors import (
    CORRUPT,
    EMPTY_FILE,
    ENCRYPTED,
    NOT_A_PDF,
    PAGE_TOO_LARGE,
    TOO_LARGE,
    TOO_MANY_PAGES,
    UNRENDERABLE_PAGE,
    ZERO_PAGES,
    IntakeError,
)

PDFIUM_LOCK = threading.RLock()
# A rendered page larger than this is drawn at a lower resolution rather than exhausting memory.
MAX_RENDER_PIXELS = 40_000_000


@dataclass(frozen=True)
class PdfInfo:
    pages: int
    bytes: int
    # Pages PDFium cannot load, when the caller tolerates them (a packet: each fails its part).
    refused: tuple[int, ...] = ()


@dataclass(frozen=True)
class IntakeLimits:
    max_pages: int
    max_bytes: int
    max_page_points: float


def _open(data: bytes) -> pdfium.PdfDocument:
    if not data:
        raise IntakeError("the file is empty (0 bytes)", EMPTY_FILE)
    # The spec allows up to 1 KiB of junk before the header; anything else is not a PDF.
    if b"%PDF-" not in data[:1024]:
        raise IntakeError("the file is not a PDF (no %PDF- header)", NOT_A_PDF)
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        encrypted, pages = _second_opinion(data)
        if encrypted:
            raise IntakeError("the PDF is encrypted with a password", ENCRYPTED) from exc
        if pages == 0:
            raise IntakeError("the PDF has no pages", ZERO_PAGES) from exc
        raise IntakeError(f"the PDF is corrupt or truncated: {exc}", CORRUPT) from exc


def _second_opinion(data: bytes) -> tuple[bool, int | None]:
    """pypdf's view where PDFium refuses a file. PDFium cannot tell a well-formed document with
    zero pages from a broken one, and its error code is process-wide state that a failed load
    does not always reset (a zero-page file opened after an encrypted one reads "password")."""
    try:
        reader = PdfReader(io.BytesIO(data), strict=True)
    except Exception:
        return False, None
    if reader.is_encrypted:
        return True, None
    try:
        return False, len(reader.pages)
    except Exception:
        return False, None


def inspect_pdf(data: bytes, limits: IntakeLimits, tolerate: int = 0) -> PdfInfo:
    """Validate a document and count its pages; every refusal is an IntakeError with a reason.

    `tolerate`: how many pages PDFium cannot load are listed in `refused` instead of refusing
    the document (a packet's: each fails only its part), as long as one page loads."""
    if len(data) > limits.max_bytes:
        raise IntakeError(
            f"the document is {len(data)} bytes, over the limit of {limits.max_bytes}", TOO_LARGE
        )
    refused: list[int] = []
    with PDFIUM_LOCK:
        pdf = _open(data)
        try:
            count = len(pdf)
            if count == 0:
                raise IntakeError("the PDF has no pages", ZERO_PAGES)
            if count > limits.max_pages:
                raise IntakeError(
                    f"the PDF has {count} pages, over the limit of {limits.max_pages}",
                    TOO_MANY_PAGES,
                )
            for index in range(count):
                try:
                    width, height = _page_size(pdf, index)
                except IntakeError:
                    if len(refused) >= tolerate or len(refused) + 1 == count:
                        raise
                    refused.append(index + 1)
                    continue
                if not (
                    0 < width <= limits.max_page_points and 0 < height <= limits.max_page_points
                ):
                    raise IntakeError(
                        f"page {index + 1} measures {width:.0f} x {height:.0f} pt, outside "
                        f"0..{limits.max_page_points:.0f} pt",
                        PAGE_TOO_LARGE,
                    )
        finally:
            pdf.close()
    return PdfInfo(pages=count, bytes=len(data), refused=tuple(refused))


def page_sizes(data: bytes, pages: list[int]) -> dict[int, tuple[float, float]]:
    """The size in points of each of `pages` (1-based) that PDFium can load."""
    sizes: dict[int, tuple[float, float]] = {}
    with PDFIUM_LOCK:
        pdf = _open(data)
        try:
            for number in pages:
                try:
                    sizes[number] = _page_size(pdf, number - 1)
                except IntakeError:
                    continue
        finally:
            pdf.close()
    return sizes


def extract_pages(data: bytes, first: int, last: int) -> bytes:
    """Pages first..last (1-based, inclusive) as a PDF of their own; an IntakeError
    (`unrenderable-page`) naming the page when PDFium refuses one of them."""
    with PDFIUM_LOCK:
        source = _open(data)
        part = pdfium.PdfDocument.new()
        try:
            for number in range(first, last + 1):
                try:
                    _page_size(source, number - 1)
                except IntakeError as exc:
                    raise IntakeError(
                        f"page {number} of the packet cannot be loaded, so pages {first} to "
                        f"{last} cannot be written as a document: {exc.message}",
                        UNRENDERABLE_PAGE,
                    ) from exc
            try:
                part.import_pages(source, list(range(first - 1, last)))
            except pdfium.PdfiumError as exc:
                raise IntakeError(
                    f"pages {first} to {last} cannot be copied: {exc}", UNRENDERABLE_PAGE
                ) from exc
            out = io.BytesIO()
            part.save(out)
            return out.getvalue()
        finally:
            part.close()
            source.close()


def _page_size(pdf: pdfium.PdfDocument, index: int) -> tuple[float, float]:
    # A page tree can promise more pages than it holds; PDFium then cannot load the page.
    try:
        page = pdf[index]
    except pdfium.PdfiumError as exc:
        raise IntakeError(f"page {index + 1} cannot be loaded: {exc}", UNRENDERABLE_PAGE) from exc
    try:
        return page.get_size()
    finally:
        page.close()


class OpenPdf:
    """An opened document for reading a batch of pages; use `open_pdf`."""

    def __init__(self, pdf: pdfium.PdfDocument) -> None:
        self._pdf = pdf

    def __len__(self) -> int:
        with PDFIUM_LOCK:
            return len(self._pdf)

    @property
    def raw(self) -> pdfium.PdfDocument:
        """The PDFium document, for callers that hold PDFIUM_LOCK themselves."""
        return self._pdf

    def text(self, page_number: int) -> str:
        """The text layer of a page (1-based), empty where the page has none."""
        with PDFIUM_LOCK:
            page = self._pdf[page_number - 1]
            textpage = page.get_textpage()
            try:
                return textpage.get_text_bounded() or ""
            finally:
                textpage.close()
                page.close()

    def render_png(self, page_number: int, dpi: int) -> bytes:
        """The page as a grayscale PNG, for OCR."""
        image = self.render_gray(page_number, dpi)
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=False, compress_level=1)
        return out.getvalue()

    def render_gray(self, page_number: int, dpi: int) -> Image.Image:
        """The page as a grayscale image at `dpi` (bounded to MAX_RENDER_PIXELS)."""
        with PDFIUM_LOCK:
            try:
                page = self._pdf[page_number - 1]
                width, height = page.get_size()
                scale = dpi / 72.0
                pixels = width * scale * height * scale
                if pixels > MAX_RENDER_PIXELS:
                    scale *= (MAX_RENDER_PIXELS / pixels) ** 0.5
                bitmap = page.render(scale=scale, grayscale=True)
                image = bitmap.to_pil()
                page.close()
            except (pdfium.PdfiumError, ValueError, MemoryError) as exc:
                raise IntakeError(
                    f"page {page_number} cannot be rendered: {exc}", UNRENDERABLE_PAGE
                ) from exc
        return image

    def render_preview(self, page_number: int, width: int) -> tuple[Image.Image, float]:
        """The page in colour, `width` pixels wide at most, and the scale (pixels per point)."""
        with PDFIUM_LOCK:
            try:
                page = self._pdf[page_number - 1]
                page_width, _ = page.get_size()
                scale = min(width / max(page_width, 1.0), 300 / 72.0)
                image = page.render(scale=scale).to_pil()
                page.close()
            except (pdfium.PdfiumError, ValueError, MemoryError) as exc:
                raise IntakeError(
                    f"page {page_number} cannot be rendered: {exc}", UNRENDERABLE_PAGE
                ) from exc
        return image, scale

    def close(self) -> None:
        with PDFIUM_LOCK:
            self._pdf.close()


@contextmanager
def open_pdf(data: bytes) -> Iterator[OpenPdf]:
    with PDFIUM_LOCK:
        pdf = _open(data)
    doc = OpenPdf(pdf)
    try:
        yield doc
    finally:
        doc.close()
