"""Through the real handler (durable testing runner, moto, real tesseract): what the engine is
not sure of waits for a person. A scan whose invoice number OCR reads with a letter O waits in
the `fields` stage with the repair named; so does a tax line that does not parse; a document
nothing can place waits in `triage` instead of being finalized as `unknown`."""

from __future__ import annotations

import io
import json
import random

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json

SCANNED_INVOICE = """NORTHWIND TRADERS LTD
INVOICE
Invoice number: INV-O005
Invoice date: 2026-03-04
Subtotal: 100.00 EUR
VAT 20%: 20.00 EUR
Total due: 120.00 EUR"""


def noisy_scan(text: str, dpi: int = 200, seed: int = 7) -> bytes:
    """A page rendered to an image with speckle, wrapped in a PDF with no text layer."""
    rnd = random.Random(seed)
    width, height = int(8.5 * dpi), int(11 * dpi)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=int(dpi / 6))
    y = dpi
    for line in text.splitlines():
        draw.text((dpi, y), line, fill=0, font=font)
        y += int(dpi / 3.5)
    for _ in range(width * height // 3000):
        draw.point((rnd.randrange(width), rnd.randrange(height)), fill=rnd.choice((0, 150)))
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    c.drawImage(ImageReader(image), 0, 0, width=letter[0], height=letter[1])
    c.showPage()
    c.save()
    return out.getvalue()


def waiting_stage(stack: Stack, data: bytes) -> tuple[dict, dict]:
    """Run the handler until its first review waits; reject it; (what waited, the outcome)."""
    doc = stack.upload("in/doc.pdf", data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=180)
        callback_id = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=150)
        (waiting,) = ReadModel(load_settings().table_name).pending().items
        runner.send_callback_success(callback_id, json.dumps({"approved": False}).encode())
        result = runner.wait_for_result(arn, timeout=60)
    return waiting, result_json(result)


def test_a_scan_whose_number_needed_an_ocr_repair_waits_for_a_person(
    stack: Stack, shipped_rules: None
) -> None:
    waiting, out = waiting_stage(stack, noisy_scan(SCANNED_INVOICE))
    assert waiting["stageName"] == "fields"
    checks = {(c["field"], c["code"]) for c in waiting["fieldChecks"]}
    assert ("invoice_number", "ocr-repair") in checks
    assert out["fields"]["invoice_number"]["value"] == "INV-0005"
    assert out["status"] == "archived"  # rejected by the reviewer, never finalized silently


def test_a_tax_line_that_does_not_parse_waits_for_a_person(
    stack: Stack, shipped_rules: None
) -> None:
    smudged = pdfs.INVOICE_WITH_FIELDS.replace("Tax (10%): 100.00 USD", "Tax (10%): 1O0,O0 USD")
    waiting, _ = waiting_stage(stack, pdfs.text_pdf(smudged))
    assert waiting["stageName"] == "fields"
    assert ("tax_amount", "unreadable") in {(c["field"], c["code"]) for c in waiting["fieldChecks"]}


def test_a_document_nothing_places_waits_in_triage(stack: Stack, shipped_rules: None) -> None:
    minutes = "Minutes of the garden committee\nWe planted three apple trees by the gate."
    waiting, out = waiting_stage(stack, pdfs.text_pdf(minutes))
    assert waiting["stageName"] == "triage"
    assert out["docType"] == "unknown" and out["status"] == "archived"
