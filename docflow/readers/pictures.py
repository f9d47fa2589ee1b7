"""Pictures on a text-layer page: read by OCR so the detectors and the preview see them.

A typed page (a text layer) may carry a pasted picture (a photographed card, a scanned
receipt): its text is in pixels only, so the text layer says nothing of it. A picture large
enough to hold text (both sides at least an inch, and a share of the page) is OCR'd, and its
words, with boxes in page-relative units like every reading's, are kept beside the page's
words in S3 as `imageWords`: the read step counts their detector findings with the page's, and
the preview covers them (docflow.review.web.previews).

Cost stays bounded: only pages that have such a picture are OCR'd, each at most once (never
more than reading the page as a scan); a picture the text layer already covers with words (a
scan with its own OCR layer) is skipped; and a document gets at most about
`MAX_PICTURE_PAGES` such pages (`allowance`: each batch its share, at least one).
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

import pypdfium2.raw as pdfium_c

from docflow.pdf import PDFIUM_LOCK, OpenPdf
from docflow.readers.base import PageReader, Word, clamp_box

MIN_SIDE_PT = 72.0  # an inch: smaller pictures are logos, stamps and signatures
MIN_SHARE = 0.02  # of the page's area
# Text-layer words inside a picture from which it counts as read already (an OCR'd scan).
COVERED_WORDS = 5
MAX_PICTURE_PAGES = 20  # per document, shared out over its batches
MAX_PICTURES = 4  # per page, the largest first

Box = tuple[float, float, float, float]  # x0, y0, x1, y1; 0..1, top-left origin


def allowance(doc_pages: int, first: int, last: int) -> int:
    """How many pages of the batch first..last may have their pictures read: the batch's share
    of `MAX_PICTURE_PAGES`, at least one (so a document reads at most about that many, plus
    one per batch past it)."""
    share = MAX_PICTURE_PAGES * (last - first + 1) / max(doc_pages, 1)
    return max(1, math.ceil(share))


def picture_boxes(pdf: OpenPdf, page_number: int) -> list[Box]:
    """The page's pictures large enough to hold text, as shown (rotation applied), largest
    first, at most MAX_PICTURES."""
    with PDFIUM_LOCK:
        page = pdf.raw[page_number - 1]
        try:
            width, height = page.get_size()
            rotation = page.get_rotation()
            found = [
                obj.get_bounds()
                for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=3)
            ]
        finally:
            page.close()
    if rotation in (90, 270):
        width, height = height, width  # get_size gives the page as shown
    boxes = []
    for left, bottom, right, top in found:
        w, h = right - left, top - bottom
        if min(w, h) < MIN_SIDE_PT or w * h < MIN_SHARE * width * height:
            continue
        boxes.append(_shown((left, bottom, right, top), rotation, width, height))
    boxes.sort(key=lambda b: -(b[2] - b[0]) * (b[3] - b[1]))
    return boxes[:MAX_PICTURES]


def _shown(pos: Box, rotation: int, width: float, height: float) -> Box:
    """A picture's PDF position (points, bottom-left origin, the page unrotated) as a
    page-relative box of the page as shown."""
    left, bottom, right, top = pos
    if rotation == 90:
        left, bottom, right, top = bottom, height - right, top, height - left
        w, h = height, width
    elif rotation == 180:
        left, bottom, right, top = width - right, height - top, width - left, height - bottom
        w, h = width, height
    elif rotation == 270:
        left, bottom, right, top = width - top, left, width - bottom, right
        w, h = height, width
    else:
        w, h = width, height
    return clamp_box(left / w, 1 - top / h, right / w, 1 - bottom / h)


def _inside(word: Word, box: Box) -> bool:
    cx, cy = (word.box[0] + word.box[2]) / 2, (word.box[1] + word.box[3]) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]


class PictureReader:
    """OCR of a text-layer page's pictures, with the project's OCR reader: tesseract reads each
    picture cut from the page's render; an engine without that (Textract) reads the page once
    and its words inside the pictures are kept."""

    def __init__(self, ocr: PageReader, dpi: int) -> None:
        self.ocr = ocr
        self.dpi = dpi

    def unread(self, pdf: OpenPdf, page: int, layer: Sequence[Word]) -> list[Box]:
        """The page's pictures large enough to hold text that the text layer does not cover
        (`layer`: its words): the ones to OCR. Cheap: no render, no OCR."""
        return [
            b for b in picture_boxes(pdf, page) if sum(_inside(w, b) for w in layer) < COVERED_WORDS
        ]

    def words(self, pdf: OpenPdf, page: int, boxes: Sequence[Box]) -> tuple[Word, ...]:
        """The words OCR reads in `boxes` (pictures of the page), page-relative."""
        if not boxes:
            return ()
        ocr_words = getattr(self.ocr, "ocr_words", None)
        if ocr_words is None:
            read = self.ocr.read(pdf, page).words
            return tuple(w for w in read if any(_inside(w, b) for b in boxes))
        image = pdf.render_gray(page, self.dpi)
        out: list[Word] = []
        for box in boxes:
            out.extend(_cut_words(ocr_words, image, box))
        return tuple(out)


def _cut_words(ocr_words: Any, image: Any, box: Box) -> list[Word]:
    """OCR of the picture cut out of the page's render, its words put back in page units."""
    width, height = image.size
    cut = (
        int(box[0] * width),
        int(box[1] * height),
        math.ceil(box[2] * width),
        math.ceil(box[3] * height),
    )
    if cut[2] - cut[0] < 8 or cut[3] - cut[1] < 8:
        return []
    png = io.BytesIO()
    image.crop(cut).save(png, format="PNG", compress_level=1)
    _, _, words = ocr_words(png.getvalue())
    cw, ch = (cut[2] - cut[0]) / width, (cut[3] - cut[1]) / height
    x0, y0 = cut[0] / width, cut[1] / height
    return [
        Word(
            w.text,
            clamp_box(
                x0 + w.box[0] * cw, y0 + w.box[1] * ch, x0 + w.box[2] * cw, y0 + w.box[3] * ch
            ),
            w.confidence,
        )
        for w in words
    ]
