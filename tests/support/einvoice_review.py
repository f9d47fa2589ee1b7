"""E-invoices on the review page, with no run behind them: `einvoice.json` made from a sample
by docflow's own reader and validator and put where the read e-invoice step puts it, and a
review link minted and mailed by the real notifier for a summary that carries the `einvoice`
object and the checks (docs/einvoice.md). `Waiting` plays the execution: it answers every
heartbeat, so the page shows as it does while a run waits on its reviewer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import facturx

import callback_api.app as api
from docflow import aws
from docflow.einvoice import detect, read, validate
from docflow.ids import DocumentRef
from docflow.pdf import open_pdf
from docflow.readers.base import Word
from docflow.readers.textlayer import TextLayerReader
from docflow.review.notify.link_notifier import build_notifier
from docflow.review.stage.requests import ReviewRequest
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from docflow.storage import batch_manifest_key, einvoice_key, page_text_key
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import Stack
from tests.support.review_desk import make_views

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
KOSIT_CII = DATA / "kosit-xrechnung-01.01a-cii.xml"
# One page, printing its seller, number, date, total and IBAN (tests/data/einvoice/README.md).
HYBRID_PDF = DATA / "generated-facturx-basic.pdf"
PRINTED_IBAN = "FR2012542547256985425874698"  # on the page and, spaced, in its XML
REVIEWER = "accounts@example.com"


def breaking_rules(xml: bytes) -> bytes:
    """KoSIT's XRechnung with its total (and amount due) 10.00 over net + VAT, which breaks
    BR-CO-15 (the total), and its VAT breakdown's taxable amount 10.00 over the lines', which
    breaks BR-S-08 (no single field: the breakdown)."""
    for tag, old, new in (
        ("GrandTotalAmount", "336.9", "346.9"),
        ("DuePayableAmount", "336.9", "346.9"),
        ("BasisAmount", "314.86", "324.86"),
    ):
        xml = xml.replace(f"<ram:{tag}>{old}<".encode(), f"<ram:{tag}>{new}<".encode())
    return xml


# The fatal rules that concern one field, as the extract step places them (docs/einvoice.md).
RULE_FIELDS = {"BR-CO-15": "total_amount", "BR-CO-16": "total_amount", "BR-06": "vendor_name"}


def rule_checks(stored: dict[str, Any]) -> list[dict[str, Any]]:
    """Each fatal finding of `stored`'s report as the extract step's `einvoice-rule` check."""
    return [
        {
            "field": RULE_FIELDS.get(f["rule"], "*"),
            "code": "einvoice-rule",
            "rule": f["rule"],
            "severity": "fatal",
            "message": f["text"],
        }
        for f in stored["report"]["findings"]
        if f["severity"] == "fatal"
    ]


def xml_fields(stored: dict[str, Any]) -> dict[str, Any]:
    """The canonical fields as the extract step takes them from the data: certain."""
    invoice = stored["invoice"]
    values = {
        "invoice_number": invoice["number"],
        "invoice_date": invoice["issue_date"],
        "vendor_name": invoice["seller"]["name"],
        "currency": invoice["currency"],
        "net_amount": invoice["net"],
        "tax_amount": invoice["tax"],
        "total_amount": invoice["total"],
    }
    return {
        name: {"value": value, "confidence": 1.0, "page": 1, "box": None}
        for name, value in values.items()
        if value
    }


def hybrid_paying(iban: str) -> bytes:
    """The one-page Factur-X whose embedded XML names `iban` as the payee account, its printed
    page unchanged: re-embedded with factur-x, as an attacker who edits only the data would."""
    pdf = HYBRID_PDF.read_bytes()
    found = detect(pdf)
    assert found is not None
    xml = found.xml.replace(b"FR20 1254 2547 2569 8542 5874 698", iban.encode())
    assert xml != found.xml
    return bytes(facturx.generate_from_binary(pdf, xml))


def put_pages(doc: DocumentRef, data: bytes) -> dict[int, list[Word]]:
    """The PDF's pages read by their text layer and stored as the read-pages step stores them
    (a batch manifest and each page's text); each page's words, for the test's boxes."""
    s3, bucket = aws.client("s3"), load_settings().artifact_bucket
    words: dict[int, list[Word]] = {}
    facts = []
    with open_pdf(data) as pdf:
        for n in range(1, len(pdf) + 1):
            page = TextLayerReader().read(pdf, n)
            words[n] = list(page.words)
            s3.put_object(Bucket=bucket, Key=page_text_key(doc, n), Body=page.text.encode())
            facts.append({"page": n, "engine": "textlayer", "confidence": 1.0, "sensitive": {}})
    manifest = {"first": 1, "last": len(facts), "pages": facts}
    s3.put_object(Bucket=bucket, Key=batch_manifest_key(doc, 0), Body=json.dumps(manifest))
    return words


def box_of(words: list[Word], text: str) -> list[float]:
    (word,) = [w for w in words if w.text == text]
    return list(word.box)


def stored_einvoice(data: bytes) -> dict[str, Any]:
    """einvoice.json as the read e-invoice step writes it, for an XML or a hybrid PDF."""
    found = detect(data)
    assert found is not None, "not an e-invoice"
    hybrid = found.container != "xml"
    return {
        "source": "hybrid" if hybrid else "xml",
        "attachment": found.attachment,
        "syntax": found.syntax,
        "invoice": read(found).to_json(),
        "report": validate(found).to_json(),
    }


def summary_einvoice(doc: DocumentRef, stored: dict[str, Any]) -> dict[str, Any]:
    """The summary's small `einvoice` object for `stored`, as the contract shapes it."""
    invoice, report = stored["invoice"], stored["report"]
    fatal = [f["rule"] for f in report["findings"] if f["severity"] == "fatal"]
    return {
        "key": einvoice_key(doc),
        "source": stored["source"],
        "syntax": stored["syntax"],
        "customization": invoice["customization"],
        "typeCode": invoice["type_code"],
        "lines": len(invoice["lines"]),
        "lineTotal": invoice["line_total"],
        "valid": report["xsd"] == "passed" and not fatal and not report["skipped"],
        "fatal": fatal,
        "warnings": sum(f["severity"] == "warning" for f in report["findings"]),
        "skipped": report["skipped"],
    }


def put_einvoice(doc: DocumentRef, stored: dict[str, Any]) -> None:
    aws.client("s3").put_object(
        Bucket=load_settings().artifact_bucket,
        Key=einvoice_key(doc),
        Body=json.dumps(stored).encode(),
        ContentType="application/json",
    )


@dataclass
class Waiting:
    """The callback sender, for an execution that waits on its reviewer and nothing else."""

    sent: list[str] = field(default_factory=list)

    def success(self, callback_id: str, result: bytes) -> None:
        self.sent.append(callback_id)

    def failure(self, callback_id: str, error_type: str, message: str) -> None:
        self.sent.append(callback_id)

    def heartbeat(self, callback_id: str) -> None:
        return


@dataclass
class EInvoiceDesk:
    stack: Stack
    callbacks: Waiting

    def link(self, doc: DocumentRef, summary: dict[str, Any], stage: str = "fields") -> str:
        """The reviewer's token for `doc` waiting at `stage` with `summary`, as mailed."""
        routed = RoutedStage(Stage(stage, (REVIEWER,), 3600, 0), stage)
        full = {"route": [{"name": stage, "because": stage}], **summary}
        request = ReviewRequest(doc, 0, routed, f"cb-{doc.run_id}", full)
        build_notifier(load_settings()).request_review(request)
        (token,) = [m.token for m in links_in(moto_sent_mail()) if m.run_id == doc.run_id]
        return token


@contextmanager
def einvoice_desk(stack: Stack) -> Iterator[EInvoiceDesk]:
    callbacks = Waiting()
    api.use_views(make_views(callbacks))  # type: ignore[arg-type]
    try:
        yield EInvoiceDesk(stack, callbacks)
    finally:
        api.use_views(None)
