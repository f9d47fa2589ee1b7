"""What detect refuses, each with its reason, and what it passes by: XXE and entity bombs
(nothing fetched, nothing expanded), an oversized XML, XML that is no invoice, a PDF whose
invoice attachment is not XML."""

from __future__ import annotations

import io
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from pypdf import PdfWriter
from reportlab.pdfgen import canvas

from docflow.einvoice import EInvoiceError, detect, read, validate

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
UBL = (DATA / "cen-ubl-example1.xml").read_bytes()


def _reason(data: bytes) -> str:
    with pytest.raises(EInvoiceError) as caught:
        detect(data)
    return caught.value.reason


def _pdf(attachments: dict[str, bytes]) -> bytes:
    page = io.BytesIO()
    c = canvas.Canvas(page)
    c.drawString(72, 720, "Invoice 1")
    c.save()
    writer = PdfWriter(clone_from=io.BytesIO(page.getvalue()))
    for name, content in attachments.items():
        writer.add_attachment(name, content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture
def listener():
    """A local HTTP server that counts requests: an entity that names it must not reach it."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"secret-from-network")

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/x", hits
    server.shutdown()
    server.server_close()


def test_an_xxe_is_refused_and_nothing_is_fetched_or_read(listener, tmp_path) -> None:
    url, hits = listener
    secret = tmp_path / "secret.txt"
    secret.write_text("secret-from-disk")
    for system in (url, secret.as_uri()):
        xml = (
            f'<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY x SYSTEM "{system}">]>'
            '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">'
            "<ID>&x;</ID></Invoice>"
        ).encode()
        with pytest.raises(EInvoiceError) as caught:
            read(xml)
        assert caught.value.reason == "xml-unsafe"
        assert "secret" not in str(caught.value)
        assert _reason(xml) == "xml-unsafe"
    # An external DTD (no entity used) is refused as well, and not fetched either.
    assert _reason(f'<!DOCTYPE Invoice SYSTEM "{url}"><Invoice/>'.encode()) == "xml-unsafe"
    assert hits == []


def test_a_billion_laughs_is_refused_without_expanding() -> None:
    # lol9 would expand to 10^9 "lol"s: three gigabytes.
    lol = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)
    ]
    xml = f"<?xml version='1.0'?><!DOCTYPE lolz [{''.join(lol)}]><lolz>&lol9;</lolz>".encode()
    start = time.perf_counter()
    assert _reason(xml) == "xml-unsafe"
    assert time.perf_counter() - start < 1.0


def test_a_20_mb_xml_is_refused_before_parsing() -> None:
    body = b"<Note>" + b"x" * 1000 + b"</Note>"
    big = UBL.replace(b"</Invoice>", body * 20_000 + b"</Invoice>")
    assert len(big) > 20_000_000
    start = time.perf_counter()
    assert _reason(big) == "xml-too-large"
    assert time.perf_counter() - start < 0.5


def test_xml_that_is_no_invoice_and_xml_that_is_not_well_formed() -> None:
    assert _reason(b"<?xml version='1.0'?><catalog><book/></catalog>") == "not-an-invoice"
    # An UBL Order has the right shape but is no invoice.
    order = (
        b'<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"><ID>1</ID></Order>'
    )
    assert _reason(order) == "not-an-invoice"
    assert _reason(UBL[: len(UBL) // 2]) == "xml-malformed"
    with pytest.raises(EInvoiceError) as caught:
        validate(b"<catalog/>")
    assert caught.value.reason == "not-an-invoice"


def test_a_pdf_whose_invoice_attachment_is_not_xml() -> None:
    assert _reason(_pdf({"factur-x.xml": b"%PDF-1.4 not xml at all"})) == "embedded-not-xml"
    assert _reason(_pdf({"factur-x.xml": b"<Invoice><unclosed></Invoice>"})) == "embedded-not-xml"


def test_an_unsafe_or_foreign_xml_inside_a_pdf_is_refused_as_alone() -> None:
    xxe = b'<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>'
    assert _reason(_pdf({"factur-x.xml": xxe})) == "xml-unsafe"
    assert _reason(_pdf({"factur-x.xml": b"<catalog/>"})) == "not-an-invoice"


def test_what_is_no_e_invoice_is_passed_by() -> None:
    assert detect(_pdf({})) is None  # an ordinary PDF: its pages are read as before
    assert detect(_pdf({"notes.txt": b"hello"})) is None
    assert detect(b"\x89PNG\r\n\x1a\n....") is None
    assert detect(b"") is None


def test_an_xml_attached_under_another_name_is_found() -> None:
    found = detect(_pdf({"invoice-data.xml": UBL}))
    assert found is not None
    assert (found.container, found.syntax, found.attachment) == ("pdf", "ubl", "invoice-data.xml")
    assert read(found).number == "12115118"


def test_an_xml_with_a_byte_order_mark_or_in_utf_16_is_recognized() -> None:
    assert detect(b"\xef\xbb\xbf" + UBL) is not None
    text = UBL.decode().replace('encoding="UTF-8"', 'encoding="UTF-16"')
    found = detect(text.encode("utf-16"))
    assert found is not None
    assert read(found).seller.name == "De Koksmaat"
