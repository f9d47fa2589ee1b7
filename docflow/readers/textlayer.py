"""Born-digital pages: the text layer, free and exact, and its words' boxes.

Words are built from PDFium's character boxes: a run of non-space characters on one baseline,
broken where the gap to the next character is wider than about a third of the font's height
(text layers often place words with no space character between them, only a gap).
"""

from __future__ import annotations

from typing import Any

import pypdfium2.raw as pdfium_c

from docflow.pdf import PDFIUM_LOCK, OpenPdf
from docflow.readers.base import PageText, Word, clamp_box

# Characters past this on one page are not given boxes: a page of tiny print (a data annex)
# still gets its text, and reading it stays bounded in time and memory.
MAX_CHARS = 20_000


class TextLayerReader:
    name = "textlayer"

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        text = pdf.text(page)
        words = page_words(pdf, page) if text.strip() else ()
        return PageText(page, text, self.name, 100.0 if text.strip() else 0.0, words)


def page_words(pdf: OpenPdf, page_number: int) -> tuple[Word, ...]:
    with PDFIUM_LOCK:
        page = pdf.raw[page_number - 1]
        textpage = page.get_textpage()
        try:
            width, height = page.get_size()
            chars = _chars(textpage, min(textpage.count_chars(), MAX_CHARS))
        finally:
            textpage.close()
            page.close()
    return tuple(_words(chars, max(width, 1.0), max(height, 1.0)))


def _chars(textpage: Any, count: int) -> list[tuple[str, float, float, float, float]]:
    """(char, left, bottom, right, top) in PDF points; spaces and line ends as ' '.

    Loose boxes (the font's whole height), so a `.` or `,` sits on its word's line like a
    letter does."""
    out = []
    for index in range(count):
        code = pdfium_c.FPDFText_GetUnicode(textpage, index)
        char = chr(code) if 0 < code < 0x110000 else " "
        if char.isspace() or not char.isprintable():
            out.append((" ", 0.0, 0.0, 0.0, 0.0))
            continue
        left, bottom, right, top = textpage.get_charbox(index, loose=True)
        out.append((char, left, bottom, right, top))
    return out


def _words(
    chars: list[tuple[str, float, float, float, float]], width: float, height: float
) -> list[Word]:
    words: list[Word] = []
    run: list[tuple[str, float, float, float, float]] = []

    def flush() -> None:
        if run:
            x0 = min(c[1] for c in run)
            x1 = max(c[3] for c in run)
            bottom = min(c[2] for c in run)
            top = max(c[4] for c in run)
            box = clamp_box(x0 / width, 1 - top / height, x1 / width, 1 - bottom / height)
            words.append(Word("".join(c[0] for c in run), box))
            run.clear()

    for char in chars:
        if char[0] == " ":
            flush()
            continue
        if run:
            last = run[-1]
            size = max(last[4] - last[2], char[4] - char[2], 1.0)
            new_line = abs(char[2] - last[2]) > size * 0.5
            gap = char[1] - last[3]
            if new_line or gap > size * 0.35 or gap < -size:
                flush()
        run.append(char)
    flush()
    return words
