"""Pictures on a text-layer page: read by OCR so the detectors, the preview and the
bank-details check see them.

A typed page (a text layer) may carry a pasted picture (a photographed card, a scanned
receipt, an image of just the IBAN line): its text is in pixels only, so the text layer says
nothing of it. Two kinds are OCR'd, and their words, with boxes in page-relative units like
every reading's, are kept beside the page's words in S3 as `imageWords`: the read step counts
their detector findings with the page's, the preview covers them
(docflow.review.web.previews), and the bank-details check reads their accounts with the
page's (docflow.suppliers.hook):

    a picture large enough to hold text (both sides at least an inch, and a share of the
    page), as before;
    a small picture of any size that can hold a line of text (MIN_LINE_PT high,
    MIN_LINE_WIDTH_PT wide) that sits on or next to a payment line: a line of the text
    layer with a pay-to word, an account's label or the amount to pay (`payment_lines`),
    within PAYMENT_REACH line heights of it. Such a picture that OCR reads nothing legible
    in is kept as `imageUnread` (its box): an account printed where it cannot be read, which
    holds the invoice at a payment line's label (docflow.suppliers.ownership).

Cost stays bounded: only pages that have such a picture are OCR'd, each at most once (the
page is rendered once; each picture is cut from the render and read alone, never more than
reading the page as a scan); a picture the text layer already covers with words (a scan
with its own OCR layer) is skipped; at most MAX_PICTURES large and MAX_PAYMENT_PICTURES small
pictures a page, the nearest to a payment line first (a letterhead's logos far from the
totals are never read); and a document gets at most about `MAX_PICTURE_PAGES` such pages
(`allowance`: each batch its share, at least one).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pypdfium2.raw as pdfium_c
from PIL import Image

from docflow.accounts.labels import LABEL, PAY_TO, cues
from docflow.accounts.normalize import plain
from docflow.pdf import PDFIUM_LOCK, OpenPdf
from docflow.readers.base import PageReader, Word, clamp_box

MIN_SIDE_PT = 72.0  # an inch: smaller pictures are logos, stamps and signatures
MIN_SHARE = 0.02  # of the page's area
# Text-layer words inside a picture from which it counts as read already (an OCR'd scan).
COVERED_WORDS = 5
MAX_PICTURE_PAGES = 20  # per document, shared out over its batches
MAX_PICTURES = 4  # per page, the largest first
# A small picture that can hold a line of text (an image of the IBAN line): at least this
# high and wide, in points (smaller is a rule, a bullet, a dot).
MIN_LINE_PT = 6.0
MIN_LINE_WIDTH_PT = 24.0
MAX_PAYMENT_PICTURES = 3  # small pictures per page, the nearest to a payment line first
PAYMENT_REACH = 2.5  # line heights between a small picture and the payment line it sits at
# A small picture is cut out with this margin (in pixels of the render) and enlarged to at
# least MIN_CUT_PX high: tesseract reads a line of text on a white field best.
CUT_MARGIN_PX = 12
MIN_CUT_PX = 64
# Words OCR reads in a picture that count as legible: two letters or digits, this sure.
LEGIBLE_CONFIDENCE = 30.0

Box = tuple[float, float, float, float]  # x0, y0, x1, y1; 0..1, top-left origin


def allowance(doc_pages: int, first: int, last: int) -> int:
    """How many pages of the batch first..last may have their pictures read: the batch's share
    of `MAX_PICTURE_PAGES`, at least one (so a document reads at most about that many, plus
    one per batch past it)."""
    share = MAX_PICTURE_PAGES * (last - first + 1) / max(doc_pages, 1)
    return max(1, math.ceil(share))


def _objects(pdf: OpenPdf, page_number: int) -> tuple[list[tuple[Box, float, float]], float, float]:
    """The page's pictures as shown (rotation applied): (page-relative box, width and height
    in points) each; and the page's width and height in points."""
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
    out = []
    for left, bottom, right, top in found:
        w, h = right - left, top - bottom
        box = _shown((left, bottom, right, top), rotation, width, height)
        out.append((box, w, h) if rotation not in (90, 270) else (box, h, w))
    return out, width, height


def picture_boxes(pdf: OpenPdf, page_number: int) -> list[Box]:
    """The page's pictures large enough to hold text, as shown (rotation applied), largest
    first, at most MAX_PICTURES."""
    found, width, height = _objects(pdf, page_number)
    boxes = [
        box
        for box, w, h in found
        if min(w, h) >= MIN_SIDE_PT and w * h >= MIN_SHARE * width * height
    ]
    boxes.sort(key=lambda b: -(b[2] - b[0]) * (b[3] - b[1]))
    return boxes[:MAX_PICTURES]


def small_boxes(pdf: OpenPdf, page_number: int) -> list[Box]:
    """The page's pictures too small to count as large (`picture_boxes`) that can still hold a
    line of text."""
    found, width, height = _objects(pdf, page_number)
    return [
        box
        for box, w, h in found
        if (min(w, h) < MIN_SIDE_PT or w * h < MIN_SHARE * width * height)
        and h >= MIN_LINE_PT
        and w >= MIN_LINE_WIDTH_PT
    ]


# The amount to pay, where the account to pay it to is printed beside (folded: plain).
_AMOUNT_DUE = re.compile(
    r"amount\s+due|total\s+due|balance\s+due|\btotal\b|payment\s+terms|due\s+date|payable"
    r"|zu\s+zahlen|gesamtbetrag|rechnungsbetrag|zahlbar|zahlungsbedingung|fallig"
    r"|a\s+payer|net\s+a\s+payer|montant\s+du|echeance|reglement"
    r"|importe\s+total|total\s+a\s+pagar|vencimiento|forma\s+de\s+pago"
    r"|totale|da\s+pagare|scadenza|pagamento|te\s+betalen|totaalbedrag|vervaldatum|betaling"
    r"|valor\s+a\s+pagar|pagamento|vencimento",
    re.IGNORECASE,
)


def payment_lines(words: Sequence[Word]) -> list[tuple[float, float]]:
    """The vertical bands (y0, y1) of the text layer's lines that carry a payment line: a
    pay-to word or an account's label (docflow.accounts.labels), or the amount to pay."""
    rows: list[list[Word]] = []
    for word in sorted(words, key=lambda w: (w.box[1] + w.box[3]) / 2):
        centre, height = (word.box[1] + word.box[3]) / 2, word.box[3] - word.box[1]
        last = rows[-1] if rows else None
        if last and abs((last[-1].box[1] + last[-1].box[3]) / 2 - centre) < height * 0.5:
            last.append(word)
        else:
            rows.append([word])
    bands = []
    for row in rows:
        text = plain(" ".join(w.text for w in sorted(row, key=lambda w: w.box[0])))
        asks = any(c.kind in (PAY_TO, LABEL) for c in cues([text]))
        if asks or _AMOUNT_DUE.search(text):
            bands.append((min(w.box[1] for w in row), max(w.box[3] for w in row)))
    return bands


def _line_height(words: Sequence[Word]) -> float:
    heights = sorted(w.box[3] - w.box[1] for w in words)
    return heights[len(heights) // 2] if heights else 0.015


def at_payment_lines(boxes: Sequence[Box], words: Sequence[Word]) -> list[Box]:
    """The pictures among `boxes` on or next to a payment line of `words` (the text layer),
    nearest first, at most MAX_PAYMENT_PICTURES."""
    bands = payment_lines(words)
    if not bands:
        return []
    reach = _line_height(words) * PAYMENT_REACH
    near: list[tuple[float, Box]] = []
    for box in boxes:
        gaps = [max(0.0, y0 - box[3], box[1] - y1) for y0, y1 in bands]
        if min(gaps) <= reach:
            near.append((min(gaps), box))
    near.sort(key=lambda t: t[0])
    return [box for _gap, box in near[:MAX_PAYMENT_PICTURES]]


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


@dataclass(frozen=True)
class PictureReading:
    """What OCR read in a page's pictures, and the small pictures at a payment line it read
    nothing legible in."""

    words: tuple[Word, ...] = ()
    unread: tuple[Box, ...] = ()


def legible(words: Sequence[Word]) -> bool:
    """Whether OCR read anything in a picture: a word of two letters or digits, read at
    least LEGIBLE_CONFIDENCE sure (a logo's specks are not)."""
    return any(
        sum(c.isalnum() for c in w.text) >= 2
        and (w.confidence is None or w.confidence >= LEGIBLE_CONFIDENCE)
        for w in words
    )


class PictureReader:
    """OCR of a text-layer page's pictures, with the project's OCR reader: tesseract reads each
    picture cut from the page's render; an engine without that (Textract) reads the page once
    and its words inside the pictures are kept."""

    def __init__(self, ocr: PageReader, dpi: int) -> None:
        self.ocr = ocr
        self.dpi = dpi

    def unread(self, pdf: OpenPdf, page: int, layer: Sequence[Word]) -> list[Box]:
        """The page's pictures to OCR (`layer`: the text layer's words): those large enough
        to hold text, and the small ones at a payment line, that the text layer does not
        cover. Cheap: no render, no OCR."""
        return [*self._large(pdf, page, layer), *self.at_payment(pdf, page, layer)]

    def _large(self, pdf: OpenPdf, page: int, layer: Sequence[Word]) -> list[Box]:
        return [b for b in picture_boxes(pdf, page) if not _covered(b, layer)]

    def at_payment(self, pdf: OpenPdf, page: int, layer: Sequence[Word]) -> list[Box]:
        """The small pictures at a payment line that the text layer does not cover."""
        small = [b for b in small_boxes(pdf, page) if not _covered(b, layer)]
        return at_payment_lines(small, layer) if small else []

    def read(self, pdf: OpenPdf, page: int, layer: Sequence[Word]) -> PictureReading:
        """OCR of the page's pictures (`unread`): their words, and the small pictures at a
        payment line with nothing legible in them."""
        large = self._large(pdf, page, layer)
        payment = self.at_payment(pdf, page, layer)
        if not large and not payment:
            return PictureReading()
        ocr_words = getattr(self.ocr, "ocr_words", None)
        if ocr_words is None:
            read = self.ocr.read(pdf, page).words
            inside = {b: tuple(w for w in read if _inside(w, b)) for b in (*large, *payment)}
        else:
            image = pdf.render_gray(page, self.dpi)
            inside = {b: tuple(_cut_words(ocr_words, image, b)) for b in large}
            inside |= {b: tuple(_cut_words(ocr_words, image, b, small=True)) for b in payment}
        words = tuple(w for b in (*large, *payment) for w in inside[b])
        unread = tuple(b for b in payment if not legible(inside[b]))
        return PictureReading(words, unread)

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


def _covered(box: Box, layer: Sequence[Word]) -> bool:
    return sum(_inside(w, box) for w in layer) >= COVERED_WORDS


def _cut_words(ocr_words: Any, image: Any, box: Box, small: bool = False) -> list[Word]:
    """OCR of the picture cut out of the page's render, its words put back in page units;
    `small`: a line-sized picture, set on a white margin and enlarged first."""
    width, height = image.size
    cut = (
        int(box[0] * width),
        int(box[1] * height),
        math.ceil(box[2] * width),
        math.ceil(box[3] * height),
    )
    if cut[2] - cut[0] < 8 or cut[3] - cut[1] < 8:
        return []
    piece = image.crop(cut)
    margin, scale = 0, 1.0
    if small:
        margin = CUT_MARGIN_PX
        scale = max(1.0, MIN_CUT_PX / piece.size[1])
        if scale > 1.0:
            size = (round(piece.size[0] * scale), round(piece.size[1] * scale))
            piece = piece.resize(size, Image.Resampling.LANCZOS)
        field = Image.new(piece.mode, (piece.size[0] + 2 * margin, piece.size[1] + 2 * margin), 255)
        field.paste(piece, (margin, margin))
        piece = field
    png = io.BytesIO()
    piece.save(png, format="PNG", compress_level=1)
    _, _, words = ocr_words(png.getvalue())
    pw, ph = piece.size

    def back(x: float, y: float) -> tuple[float, float]:
        # From the read image's units to the page's: off the margin, back to the render's
        # scale, then from the cut's corner.
        px, py = (x * pw - margin) / scale, (y * ph - margin) / scale
        return (cut[0] + px) / width, (cut[1] + py) / height

    out = []
    for w in words:
        x0, y0 = back(w.box[0], w.box[1])
        x1, y1 = back(w.box[2], w.box[3])
        out.append(Word(w.text, clamp_box(x0, y0, x1, y1), w.confidence))
    return out
