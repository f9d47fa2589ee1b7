"""Covering detected sensitive values on a page preview, so the picture keeps the promise the
text makes: the full value of a card, SSN, IBAN or address never reaches the review page.

Where the value is found: in the words, with their boxes, of the reading that found it (the
pipeline stores them beside each page's text), so the picture is covered exactly where the
text says the value is, whichever engine read the page, and a preview needs no OCR (Lambda has
no tesseract). PDFium's character boxes of the text layer are the way for a page read before
its words were stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from docflow.pdf import PDFIUM_LOCK, OpenPdf
from docflow.readers.base import Word
from docflow.rules.detectors import find_all

PAD = 3  # pixels around a covered value, so no descender or edge of a digit shows
OCR_PAD = 6  # more for boxes read from pixels


@dataclass(frozen=True)
class Box:
    left: float
    top: float
    right: float
    bottom: float


def text_layer_boxes(pdf: OpenPdf, page_number: int, scale: float) -> list[Box] | None:
    """Boxes (in preview pixels) of every detected value in the text layer; None if the page
    has no text layer to look in."""
    with PDFIUM_LOCK:
        page = pdf.raw[page_number - 1]
        _, height = page.get_size()
        textpage = page.get_textpage()
        try:
            count = textpage.count_chars()
            if count <= 0:
                return None
            text = textpage.get_text_range(0, count)
            if not text.strip():
                return None
            boxes = []
            for finding in find_all(text):
                chars = [
                    textpage.get_charbox(i)
                    for i in range(finding.start, min(finding.end, count))
                    if not text[i].isspace()
                ]
                boxes.extend(_lines(chars, height, scale))
            return boxes
        finally:
            textpage.close()
            page.close()


CharBox = tuple[float, float, float, float]  # left, bottom, right, top in PDF points


def _lines(chars: list[CharBox], height: float, scale: float) -> list[Box]:
    """One box per line of characters (a value may wrap); PDF y grows upwards."""
    rows: list[list[CharBox]] = []
    for box in chars:
        middle = (box[1] + box[3]) / 2
        # Same line when this character's middle is within the line so far (a hyphen's box
        # sits higher than a digit's, so bottoms alone would split "123-45-6789").
        if rows and min(b[1] for b in rows[-1]) <= middle <= max(b[3] for b in rows[-1]):
            rows[-1].append(box)
        else:
            rows.append([box])
    return [
        Box(
            min(b[0] for b in row) * scale,
            (height - max(b[3] for b in row)) * scale,
            max(b[2] for b in row) * scale,
            (height - min(b[1] for b in row)) * scale,
        )
        for row in rows
    ]


def word_boxes(words: list[Word], width: int, height: int) -> list[Box]:
    """Boxes (in preview pixels) of every detected value in the reading's words.

    The words are joined by single spaces, in reading order, so a value the reading found in
    its text is found again here, over the same words; one band per line of a value's words.
    """
    spans: list[tuple[int, int, Word]] = []
    at = 0
    for word in words:
        spans.append((at, at + len(word.text), word))
        at += len(word.text) + 1
    text = " ".join(w.text for w in words)
    boxes: list[Box] = []
    for finding in find_all(text):
        hit = [w for s, e, w in spans if s < finding.end and e > finding.start]
        lines: list[list[Word]] = []
        for word in hit:
            middle = (word.box[1] + word.box[3]) / 2
            if lines and lines[-1][0].box[1] <= middle <= lines[-1][0].box[3]:
                lines[-1].append(word)
            else:
                lines.append([word])
        boxes.extend(
            Box(
                min(w.box[0] for w in line) * width - OCR_PAD,
                min(w.box[1] for w in line) * height - OCR_PAD,
                max(w.box[2] for w in line) * width + OCR_PAD,
                max(w.box[3] for w in line) * height + OCR_PAD,
            )
            for line in lines
        )
    return boxes


def cover(image: Image.Image, boxes: list[Box]) -> Image.Image:
    if not boxes:
        return image
    covered = image.convert("RGB")
    draw = ImageDraw.Draw(covered)
    for b in boxes:
        draw.rectangle((b.left - PAD, b.top - PAD, b.right + PAD, b.bottom + PAD), fill="black")
    return covered
