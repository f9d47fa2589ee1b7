"""Readers return words with page-relative boxes (0..1, top-left origin), and OCR's confidences."""

from __future__ import annotations

import io

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from docflow.pdf import open_pdf
from docflow.readers.base import Word
from docflow.readers.tesseract import TesseractReader, parse_tsv_words
from docflow.readers.textlayer import TextLayerReader
from tests.kit import pdfgen


def _pdf() -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=A4)
    width, height = A4
    c.setFont("Helvetica", 12)
    c.drawString(50, height - 60, "Invoice number: INV-0042")
    c.drawString(width - 200, 60, "Total 1.234,56")
    c.showPage()
    c.save()
    return out.getvalue()


def test_text_layer_words_have_page_relative_boxes_from_the_top_left() -> None:
    with open_pdf(_pdf()) as pdf:
        page = TextLayerReader().read(pdf, 1)
    words = {w.text: w for w in page.words}
    assert list(words) == ["Invoice", "number:", "INV-0042", "Total", "1.234,56"]
    top, bottom = words["INV-0042"], words["1.234,56"]
    assert top.box[1] < 0.1 and bottom.box[3] > 0.9  # y grows downwards
    assert top.box[0] < 0.3 and bottom.box[0] > 0.6
    assert all(0 <= v <= 1 for w in page.words for v in w.box)
    assert all(w.box[0] < w.box[2] and w.box[1] < w.box[3] for w in page.words)
    assert all(w.confidence is None for w in page.words)  # a text layer is exact


def test_tesseract_words_carry_boxes_and_confidences() -> None:
    pdf_bytes = pdfgen.scanned_pdf("INVOICE\nInvoice number: INV-7731\nTotal due: 412.50 EUR")
    with open_pdf(pdf_bytes) as pdf:
        page = TesseractReader(dpi=200, language="eng+deu").read(pdf, 1)
    texts = [w.text for w in page.words]
    assert "INV-7731" in texts
    word = page.words[texts.index("INV-7731")]
    assert word.confidence is not None and 0 < word.confidence <= 100
    assert 0 <= word.box[0] < word.box[2] <= 1 and 0 <= word.box[1] < word.box[3] <= 1
    assert page.words[0].box[1] < word.box[1]  # the title is above the number


def test_tsv_without_words_gives_text_and_no_boxes() -> None:
    columns = "level page_num block_num par_num line_num word_num left top width height conf text"
    tsv = columns.replace(" ", "\t") + "\n"
    text, confidence, words = parse_tsv_words(tsv)
    assert (text, confidence, words) == ("", 0.0, ())


def test_words_round_trip_through_their_stored_form() -> None:
    word = Word("INV-1", (0.1, 0.2, 0.3, 0.25), 91.5)
    assert Word.from_row(word.to_row()) == word


def test_a_rotated_page_gives_whole_words_as_the_page_is_shown() -> None:
    # A landscape invoice stored as a portrait page turned by /Rotate 90: PDFium's character
    # boxes are in the unturned page's space, where the text runs down the page.
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=A4)
    width = A4[0]
    c.setPageRotation(90)
    c.saveState()
    c.translate(width, 0)
    c.rotate(90)  # draw in the shown page's space: A4 high side wide, `width` high
    c.setFont("Helvetica", 12)
    c.drawString(50, width - 60, "Fattura numero 30122583")
    c.drawString(500, 100, "Totale 542,31")
    c.restoreState()
    c.showPage()
    c.save()
    with open_pdf(out.getvalue()) as pdf:
        page = TextLayerReader().read(pdf, 1)
    words = {w.text: w for w in page.words}
    assert list(words) == ["Fattura", "numero", "30122583", "Totale", "542,31"]
    first, last = words["Fattura"], words["542,31"]
    assert first.box[0] < words["numero"].box[0] < words["30122583"].box[0]  # left to right
    assert first.box[1] < last.box[1]  # the number's line is above the total's
    assert first.box[2] - first.box[0] > first.box[3] - first.box[1]  # a word lies flat
