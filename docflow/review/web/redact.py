"""Covering detected sensitive values on a page preview, so the picture keeps the promise the
text makes: the full value of a card, SSN, IBAN or address never reaches the review page.

Where the value is found: on a page with a text layer, PDFium's character boxes for the
detector's match; on a scanned page, tesseract's word boxes over the preview itself (run only
on pages whose reading found something, so most previews cost no OCR).
"""

from __future__ import annotations

import csv
import io
import subprocess
from dataclasses import dataclass

from PIL import Image, ImageDraw

from docflow.pdf import PDFIUM_LOCK, OpenPdf
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


def ocr_boxes(image: Image.Image, timeout_s: float = 60) -> list[Box]:
    """Boxes of every detected value that tesseract reads on the picture itself."""
    out = io.BytesIO()
    image.convert("L").save(out, format="PNG")
    done = subprocess.run(
        ["tesseract", "stdin", "stdout", "--psm", "3", "tsv"],
        input=out.getvalue(),
        capture_output=True,
        timeout=timeout_s,
        env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin:/usr/local/bin"},
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError("tesseract could not read the preview to cover its values")
    words: list[tuple[int, int, Box]] = []  # (start, end) in the rebuilt text, box
    parts: list[str] = []
    at, line_key = 0, None
    for row in csv.DictReader(
        io.StringIO(done.stdout.decode("utf-8", "replace")), delimiter="\t", quoting=csv.QUOTE_NONE
    ):
        word = (row.get("text") or "").strip()
        if row.get("level") != "5" or not word:
            continue
        key = (row["block_num"], row["par_num"], row["line_num"])
        if parts:
            sep = " " if key == line_key else "\n"
            parts.append(sep)
            at += 1
        line_key = key
        left, top = int(row["left"]), int(row["top"])
        box = Box(left, top, left + int(row["width"]), top + int(row["height"]))
        words.append((at, at + len(word), box))
        parts.append(word)
        at += len(word)
    text = "".join(parts)
    boxes = []
    for finding in find_all(text):
        hit = [b for s, e, b in words if s < finding.end and e > finding.start]
        if hit:  # one band across the value's words: OCR's word boxes can fall short
            boxes.append(
                Box(
                    min(b.left for b in hit) - OCR_PAD,
                    min(b.top for b in hit) - OCR_PAD,
                    max(b.right for b in hit) + OCR_PAD,
                    max(b.bottom for b in hit) + OCR_PAD,
                )
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
