"""E-invoices through the orchestrator (durable testing runner on moto): an XRechnung XML read
as one page with no PDFium, a hybrid Factur-X PDF read as its pages and its data, both typed
by their type code, their data in einvoice.json and their lines in final.json; and each bad
input a reason and a terminal `failed`."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from aws_durable_execution_sdk_python.execution import InvocationStatus
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from pypdf import PdfWriter

from docflow import aws
from docflow.ids import DocumentRef
from docflow.readmodel.queries import ReadModel
from docflow.runtime import use_runtime
from docflow.settings import load_settings
from docflow.storage import einvoice_key, page_text_key, result_key
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import RULES_FAST, Stack, result_json

DATA = Path(__file__).parents[1] / "data" / "einvoice"


@pytest.fixture
def einvoice_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The test rules with a credit-note type and no privacy review of an IBAN (an invoice's
    payee account is no leak): a valid e-invoice with no other stage finalizes."""
    rules = RULES_FAST.read_text().replace(
        'review_on = ["card_number", "us_ssn", "iban"]', 'review_on = ["card_number", "us_ssn"]'
    )
    rules += '\n[[document_types]]\nname = "credit-note"\nkeywords = ["credit note"]\nstages = []\n'
    path = tmp_path / "rules.toml"
    path.write_text(rules)
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
    load_settings.cache_clear()
    use_runtime(None)
    yield
    use_runtime(None)


def run(stack: Stack, key: str, data: bytes, timeout: int = 120) -> tuple[DocumentRef, Any]:
    doc = stack.upload(key, data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        result = runner.run(input=stack.event(doc), execution_timeout=timeout)
    return doc, result


def artifact(key: str) -> bytes:
    s3 = aws.client("s3")
    body: bytes = s3.get_object(Bucket=load_settings().artifact_bucket, Key=key)["Body"].read()
    return body


def state(doc: DocumentRef) -> dict[str, Any]:
    return ReadModel(load_settings().table_name).show(doc.document_id)["state"]


def test_an_xrechnung_xml_is_read_as_its_invoice(stack: Stack, einvoice_rules: None) -> None:
    doc, result = run(stack, "in/rechnung", (DATA / "kosit-xrechnung-01.01a-cii.xml").read_bytes())

    assert result.status is InvocationStatus.SUCCEEDED
    out = result_json(result)
    names = [op.name for op in result.operations]
    assert names[2:6] == ["split", "record reading", "read e-invoice", "read pages"]
    assert result.get_step("split").result is not None
    assert out["docType"] == "invoice" and out["engines"] == {"einvoice": 1}
    assert out["pages"] == 1
    einvoice = out["einvoice"]
    assert einvoice["key"] == einvoice_key(doc)
    assert (einvoice["source"], einvoice["syntax"], einvoice["typeCode"]) == ("xml", "cii", "380")
    assert (einvoice["lines"], einvoice["lineTotal"]) == (2, "314.86")
    assert "xrechnung_3.0" in einvoice["customization"]
    stored = json.loads(artifact(einvoice_key(doc)))
    assert stored["source"] == "xml" and stored["attachment"] is None
    assert stored["invoice"]["number"] == "123456XX"
    assert stored["report"]["xsd"] == "passed"
    # The one page is the invoice as text: what the detectors, the summary and `show` read.
    page = artifact(page_text_key(doc, 1)).decode()
    assert "Invoice number: 123456XX" in page and "IBAN: DE79000000001234567890" in page
    assert "Porto + Versandkosten" in page
    # Classified for certain by its type code: no triage, no low confidence.
    classified = result.get_step("classify").result
    assert '"confidence":{"t":"f","v":1.0}' in classified.replace(" ", "")
    assert out["status"] == "finalized"
    assert (state(doc)["status"], state(doc)["einvoice"]) == ("finalized", einvoice)
    final = json.loads(artifact(result_key(doc)))
    assert [line["net"] for line in final["lines"]] == ["288.79", "26.07"]
    assert final["vat"] == [{"category": "S", "rate": "7", "taxable": "314.86", "tax": "22.04"}]
    assert final["summary"]["einvoice"] == einvoice


def test_a_hybrid_facturx_pdf_reads_its_pages_and_its_data(
    stack: Stack, einvoice_rules: None
) -> None:
    doc, result = run(stack, "in/facturx.pdf", (DATA / "facturx-en16931.pdf").read_bytes())

    assert result.status is InvocationStatus.SUCCEEDED
    out = result_json(result)
    assert out["docType"] == "invoice" and out["engines"] == {"textlayer": 1}
    assert out["einvoice"]["source"] == "hybrid" and out["einvoice"]["syntax"] == "cii"
    stored = json.loads(artifact(einvoice_key(doc)))
    assert stored["attachment"] == "factur-x.xml"
    assert len(stored["invoice"]["lines"]) == out["einvoice"]["lines"] > 0
    assert out["status"] == "finalized"
    final = json.loads(artifact(result_key(doc)))
    assert final["lines"] == stored["invoice"]["lines"] and final["vat"] == stored["invoice"]["vat"]


def test_the_type_is_the_type_codes(stack: Stack, einvoice_rules: None) -> None:
    _, result = run(stack, "in/credit.xml", (DATA / "cen-ubl-creditnote1.xml").read_bytes())
    out = result_json(result)
    assert (out["docType"], out["confidence"]) == ("credit-note", 1.0)
    assert (out["einvoice"]["typeCode"], out["einvoice"]["syntax"]) == ("381", "ubl")

    # A corrected invoice (384) is an invoice to the rules, its own type code kept.
    xml = (DATA / "kosit-xrechnung-01.01a-cii.xml").read_bytes()
    assert xml.count(b"<ram:TypeCode>380</ram:TypeCode>") == 1
    corrected = xml.replace(
        b"<ram:TypeCode>380</ram:TypeCode>", b"<ram:TypeCode>384</ram:TypeCode>"
    )
    _, result = run(stack, "in/corrected.xml", corrected)
    out = result_json(result)
    assert (out["status"], out["docType"], out["einvoice"]["typeCode"]) == (
        "finalized",
        "invoice",
        "384",
    )


def test_an_ordinary_pdf_has_no_einvoice_step(stack: Stack) -> None:
    _, result = run(stack, "in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE))

    names = [op.name for op in result.operations]
    assert "read e-invoice" not in names
    assert "einvoice" not in result_json(result)
    # The split's checkpoint is exactly what it always was.
    assert "einvoice" not in (result.get_step("split").result or "")


def test_a_pdf_carrying_another_xml_is_an_ordinary_pdf(stack: Stack) -> None:
    data = with_attachment("export.xml", b'<?xml version="1.0"?><catalog><book/></catalog>')
    _, result = run(stack, "in/with-data.pdf", data)

    out = result_json(result)
    assert (out["status"], out["docType"], out["engines"]) == (
        "finalized",
        "invoice",
        {"textlayer": 1},
    )
    assert "einvoice" not in out and "einvoice" not in (result.get_step("split").result or "")


class Seen(BaseHTTPRequestHandler):
    hits: list[str] = []  # noqa: RUF012 - one server per test, read after it stops

    def do_GET(self) -> None:
        Seen.hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"secret")

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[str]:
    """A local HTTP server an XXE would fetch from: the test asserts nobody did."""
    Seen.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Seen)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


def xxe(url: str, secret: Path) -> bytes:
    return (
        '<?xml version="1.0"?>\n'
        f'<!DOCTYPE Invoice [<!ENTITY web SYSTEM "{url}/leak"> '
        f'<!ENTITY file SYSTEM "{secret.as_uri()}">]>\n'
        '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">'
        "<ID>&web;&file;</ID></Invoice>"
    ).encode()


def laughs() -> bytes:
    entities = ['<!ENTITY lol "lol">'] + [
        f'<!ENTITY lol{n} "{("&lol" + (str(n - 1) if n > 1 else "") + ";") * 10}">'
        for n in range(1, 10)
    ]
    return (
        f'<?xml version="1.0"?><!DOCTYPE lolz [{"".join(entities)}]><lolz>&lol9;</lolz>'
    ).encode()


def with_attachment(name: str, content: bytes) -> bytes:
    """An ordinary invoice PDF carrying `name`."""
    writer = PdfWriter(clone_from=io.BytesIO(pdfs.text_pdf(pdfs.INVOICE)))
    writer.add_attachment(name, content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


UBL = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"


def huge_invoice(size: int = 20 * 1024 * 1024) -> bytes:
    head = f'<?xml version="1.0"?><Invoice xmlns="{UBL}"><Note>'.encode()
    return head + b"x" * size + b"</Note></Invoice>"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (f'<?xml version="1.0"?><Invoice xmlns="{UBL}"><ID>1</Invoice>'.encode(), "xml-malformed"),
        (b'<?xml version="1.0"?><catalog><book id="1"/></catalog>', "not-an-invoice"),
        (laughs(), "xml-unsafe"),
        (huge_invoice(), "xml-too-large"),
        (with_attachment("factur-x.xml", b"%PDF-1.4 no XML"), "embedded-not-xml"),
    ],
    ids=["malformed", "not-an-invoice", "billion-laughs", "20-mb", "embedded-not-xml"],
)
def test_bad_einvoice_input_fails_with_its_reason(stack: Stack, data: bytes, reason: str) -> None:
    doc, result = run(stack, f"in/{reason}.xml", data)

    assert result.status is InvocationStatus.SUCCEEDED  # the run ends; the document fails
    out = result_json(result)
    assert (out["status"], out["reason"]) == ("failed", reason)
    assert out["message"]
    assert (state(doc)["status"], state(doc)["reason"]) == ("failed", reason)
    assert result.get_step("split").attempt <= 1  # bad input is not retried
    assert "read e-invoice" not in [op.name for op in result.operations]


def test_an_xxe_fetches_nothing(stack: Stack, listener: str, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the-secret-the-parser-must-not-read")
    doc, result = run(stack, "in/xxe.xml", xxe(listener, secret))

    out = result_json(result)
    assert (out["status"], out["reason"]) == ("failed", "xml-unsafe")
    assert Seen.hits == []  # the URL was never fetched
    assert "the-secret" not in json.dumps(out)
    assert "the-secret" not in json.dumps(state(doc))
