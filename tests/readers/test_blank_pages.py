"""Blank pages: no ink, no OCR. The page says it is blank, the document's OCR confidence is
not dragged to 0 by it, and a document of nothing but blank pages fails saying so."""

from __future__ import annotations

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.pdf import OpenPdf, open_pdf
from docflow.readers.base import PageText
from docflow.readers.blank import BLANK, BlankPageSkipper, ink_pixels, is_blank
from docflow.readers.tesseract import TesseractReader
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen
from tests.support.aws import Stack, result_json

RECEIPT = "RECEIPT\nThank you for your order\nTotal: 12.00 EUR"


class CountingOcr:
    """Tesseract, counting the pages it was asked to read."""

    name = "tesseract"

    def __init__(self) -> None:
        self.inner = TesseractReader()
        self.calls: list[int] = []

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        self.calls.append(page)
        return self.inner.read(pdf, page)


def test_a_page_without_ink_is_blank_and_a_page_with_one_word_is_not() -> None:
    data = pdfgen.make_pdf([("scan", ""), ("scan", "OK"), ("scan", RECEIPT), "Page 4"])
    with open_pdf(data) as pdf:
        assert ink_pixels(pdf, 1) == 0
        assert [is_blank(pdf, n) for n in (1, 2, 3, 4)] == [True, False, False, False]


def test_the_ocr_is_not_called_for_a_blank_page() -> None:
    data = pdfgen.make_pdf([("scan", ""), ("scan", RECEIPT), ("scan", "")])
    ocr = CountingOcr()
    reader = BlankPageSkipper(ocr)
    with open_pdf(data) as pdf:
        pages = [reader.read(pdf, n) for n in (1, 2, 3)]
    assert ocr.calls == [2]
    assert [p.engine for p in pages] == [BLANK, "tesseract", BLANK]
    assert pages[0].text == "" and "RECEIPT" in pages[1].text


def test_blank_pages_are_counted_as_blank_and_leave_the_ocr_confidence_alone(
    stack: Stack,
) -> None:
    doc = stack.upload(
        "in/with-blanks.pdf", pdfgen.make_pdf([pdfgen.INVOICE, ("scan", ""), ("scan", "")])
    )
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        result = runner.run(input=stack.event(doc), execution_timeout=120)
    out = result_json(result)
    assert out["status"] == "finalized", out
    state = ReadModel(load_settings().table_name).show(doc.document_id)["state"]
    assert state["pages"] == 3 and state["engines"] == {BLANK: 2, "textlayer": 1}
    assert state["cost"]["pages"] == {BLANK: 2, "textlayer": 1}


def test_a_document_of_blank_pages_fails_saying_every_page_is_blank(stack: Stack) -> None:
    doc = stack.upload("in/all-blank.pdf", pdfgen.make_pdf([("scan", "")] * 3))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        result = runner.run(input=stack.event(doc), execution_timeout=120)
    out = result_json(result)
    assert (out["status"], out["reason"]) == ("failed", "blank-document")
    state = ReadModel(load_settings().table_name).show(doc.document_id)["state"]
    assert state["reason"] == "blank-document" and state["engines"] == {BLANK: 3}
    assert "every page of the document is blank (3 pages" in state["message"]


def test_a_hundred_blank_pages_cost_seconds_and_no_ocr(monkeypatch) -> None:
    """Through the reader stack the pipeline builds: tesseract takes most of a second for a
    blank page here (300 of them took minutes), the ink check under a tenth."""
    import time

    from docflow.readers.factory import build_reader

    calls: list[int] = []
    monkeypatch.setattr(TesseractReader, "read", lambda self, pdf, page: calls.append(page))
    reader = build_reader(load_settings())
    data = pdfgen.make_pdf([("scan", "")] * 100)
    started = time.monotonic()
    with open_pdf(data) as pdf:
        engines = {reader.read(pdf, n).engine for n in range(1, 101)}
    took = time.monotonic() - started
    assert (engines, calls) == ({BLANK}, [])
    assert took < 45, f"100 blank pages took {took:.0f} s"  # tesseract: about 80 s
