"""The extract step on an e-invoice (moto S3 and DynamoDB, the shipped rules, the real page
read for a hybrid): the read e-invoice step's `einvoice.json` placed in S3 as the contract
says (docs/einvoice.md), the step called as the orchestrator calls it with `einvoice_key=`.

The fields come from the data, certain; a fatal rule goes to the `fields` stage with its id
and text; a hybrid's page is read and must agree; the seller's VAT id and payee IBAN in the
XML meet the registry as printed ones do: a known supplier's VAT id with another IBAN waits at
`bank-details` (the fraud path)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from aws_durable_execution_sdk_python import StepContext

from docflow import aws
from docflow.einvoice import detect, read, validate
from docflow.ids import DocumentRef
from docflow.pipeline.extract import extract_fields
from docflow.pipeline.read_batch import read_page_batch
from docflow.pipeline.results import Extracted
from docflow.pipeline.split import split_document
from docflow.settings import load_settings
from docflow.storage import einvoice_key
from docflow.suppliers import history
from docflow.suppliers.data_evidence import Declared
from docflow.suppliers.hook import consult
from docflow.suppliers.model import Supplier
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
FACTURX = DATA / "facturx-en16931.pdf"
SELLER_VAT = "FR11123456782"
SELLER_IBAN = "FR2012542547256985425874698"
ATTACKER_IBAN = "GB82WEST12345698765432"


class Step:
    """The step's context on its last attempt (a logger that keeps nothing)."""

    attempt = 3
    logger = logging.getLogger("test")


def _put(key: str, value: Any) -> None:
    bucket = load_settings().artifact_bucket
    aws.client("s3").put_object(Bucket=bucket, Key=key, Body=json.dumps(value).encode())


def _s3_json(key: str) -> Any:
    bucket = load_settings().artifact_bucket
    return json.loads(aws.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read())


def _place(doc: DocumentRef, data: bytes, **changed: Any) -> str:
    """einvoice.json for `data` as the read e-invoice step writes it; `changed`: fields of
    the record changed, as if the XML said so."""
    found = detect(data)
    assert found is not None
    invoice = replace(read(found), **changed)
    key = einvoice_key(doc)
    _put(
        key,
        {
            "source": "hybrid" if found.container == "pdf" else "xml",
            "attachment": found.attachment,
            "syntax": found.syntax,
            "invoice": invoice.to_json(),
            "report": validate(found).to_json(),
        },
    )
    return key


def _extract(stack: Stack, name: str, data: bytes | None = None, **changed: Any) -> Extracted:
    """Upload, split and read a PDF's pages as the run does (an XML has none), then extract."""
    data = data if data is not None else (DATA / name).read_bytes()
    doc = stack.upload(f"in/{name}", data)
    plan: list[list[int]] = []
    if name.endswith(".pdf"):
        split = split_document(doc)(cast("StepContext", Step()))
        plan = split.plan
        for index, (first, last) in enumerate(plan):
            read_page_batch(doc, index, first, last)(cast("StepContext", Step()))
    key = _place(doc, data, **changed)
    return extract_fields(doc, "invoice", plan, key)(cast("StepContext", Step()))


def _register(iban: str = SELLER_IBAN) -> None:
    supplier = Supplier.parse(
        {
            "supplierId": "fournisseur",
            "name": "Le Fournisseur",
            "ids": {"vat": [SELLER_VAT], "iban": [iban]},
            "currency": "EUR",
        }
    )
    registry().put(supplier, history.entry("fournisseur", history.IMPORTED, "test"))


def _stages(out: Extracted) -> list[str]:
    return [s.name for s in out.stages]


def test_an_xml_invoices_fields_are_its_data_certain_and_need_no_person(
    stack: Stack, shipped_rules: None
) -> None:
    _register()
    out = _extract(stack, "kosit-xrechnung-01.01a-ubl.xml")
    values = {name: f.value for name, f in out.fields.items()}
    assert values["invoice_number"] == "123456XX"
    assert values["total_amount"] == "336.90" and values["net_amount"] == "314.86"
    assert all(f.confidence == 1.0 for f in out.fields.values())
    detail = _s3_json(out.key or "")
    assert detail["einvoice"]["source"] == "xml"
    assert detail["einvoice"]["fields"]["total_amount"] == "xml"
    assert [line["net"] for line in detail["lines"]] == ["288.79", "26.07"]
    assert detail["vat"][0]["category"] == "S"
    assert detail["engine"] == "einvoice"
    assert out.checks == () and _stages(out) == []


def test_a_registered_suppliers_hybrid_agrees_with_its_page_and_passes(
    stack: Stack, shipped_rules: None
) -> None:
    _register()
    out = _extract(stack, FACTURX.name)
    assert out.checks == (), out.checks
    assert _stages(out) == []
    assert out.shown["supplier"]["supplierId"] == "fournisseur"
    assert out.shown["supplier"]["by"] == "vat" and out.shown["supplier"]["certain"]
    assert out.shown["bank"]["verdict"] == "registered"
    # The page printed the number and the total alike: the field carries where.
    total = out.fields["total_amount"]
    assert (total.value, total.confidence, total.page) == ("104.90", 1.0, 1)
    assert total.box is not None
    detail = _s3_json(out.key or "")
    assert detail["einvoice"]["source"] == "hybrid"
    assert detail["einvoice"]["mismatches"] == []
    assert {"invoice_number", "total_amount"} <= set(detail["einvoice"]["agreed"])
    assert detail["einvoice"]["fields"]["total_amount"] == "xml+page"
    assert [line["net"] for line in detail["lines"]] == ["60.00", "28.00", "7.00"]


def test_a_broken_total_goes_to_the_fields_stage_with_the_rule_named(
    stack: Stack, shipped_rules: None
) -> None:
    out = _extract(stack, "invalid-br-co-15-ubl.xml")
    assert _stages(out) == ["fields"]
    rules = {c.rule: c.to_json() for c in out.checks if c.code == "einvoice-rule"}
    assert set(rules) == {"BR-CO-15", "BR-CO-16"}
    assert rules["BR-CO-15"]["field"] == "total_amount"
    assert rules["BR-CO-15"]["severity"] == "fatal"
    assert "Invoice total amount with VAT (BT-112)" in rules["BR-CO-15"]["message"]
    assert out.fields["total_amount"].value == "260.33"  # the data, as it says


def test_a_hybrid_whose_xml_names_another_iban_waits_with_both_values(
    stack: Stack, shipped_rules: None
) -> None:
    out = _extract(stack, FACTURX.name, ibans=(ATTACKER_IBAN,))
    (check,) = [c.to_json() for c in out.checks if c.code == "page-mismatch"]
    assert check["field"] == "iban"
    assert (check["xml"], check["page"]) == ("GB•••• 5432", "FR•••• 4698")
    assert check["pageBox"]["page"] == 1 and len(check["pageBox"]["box"]) == 4
    assert "fields" in _stages(out)
    assert ATTACKER_IBAN not in json.dumps(out.to_json())  # masked wherever it travels


def test_a_published_hybrid_whose_page_prints_another_number_is_caught(
    stack: Stack, shipped_rules: None
) -> None:
    """mustangproject's validXRechnung.pdf as published: its page prints invoice
    RE-20200620/508, its XML RE-20190610/507 (the totals agree). Its XML's payee account has a
    ProprietaryID (44421800) beside its IBANID, which the page does not print: a payee account
    on one side only is a mismatch too (issue 56)."""
    out = _extract(stack, "mustang-xrechnung.pdf")
    mismatches = [c.to_json() for c in out.checks if c.code == "page-mismatch"]
    assert [(c["field"], c["xml"], c["page"]) for c in mismatches] == [
        ("invoice_number", "RE-20190610/507", "RE-20200620/508"),
        ("iban", "DE•••• 5700, 44•••• 1800", "DE•••• 5700"),
    ]
    assert mismatches[0]["pageBox"]["page"] == 1
    assert out.fields["invoice_number"].value == "RE-20190610/507"  # the data's
    assert "fields" in _stages(out)


def test_a_known_suppliers_vat_id_with_another_iban_in_the_xml_waits_at_bank_details(
    stack: Stack, shipped_rules: None
) -> None:
    """The fraud path: the XML names a registered supplier by its VAT id and asks to be paid
    on an account that supplier never registered."""
    _register(iban="FR7630006000011234567890189")
    out = _extract(stack, "facturx-en16931.xml", _xml_of(FACTURX))
    assert out.shown["supplier"]["supplierId"] == "fournisseur"
    assert out.shown["bank"]["verdict"] == "unregistered"
    assert [p["iban"] for p in out.shown["bank"]["printed"]] == ["FR•••• 4698"]
    assert "bank-details" in _stages(out)
    assert SELLER_IBAN not in json.dumps(out.to_json())


def test_an_iban_registered_to_another_supplier_in_the_xml_waits_at_bank_details(
    stack: Stack, shipped_rules: None
) -> None:
    _register()
    ids = {"iban": [ATTACKER_IBAN]}
    other = Supplier.parse({"supplierId": "other", "name": "Other SA", "ids": ids})
    registry().put(other, history.entry("other", history.IMPORTED, "test"))
    out = _extract(stack, "facturx-en16931.xml", _xml_of(FACTURX), ibans=(ATTACKER_IBAN,))
    assert out.shown["bank"]["verdict"] == "other-supplier"
    assert "bank-details" in _stages(out)


def _xml_of(pdf: Path) -> bytes:
    found = detect(pdf.read_bytes())
    assert found is not None
    return found.xml


def test_an_ordinary_pdf_is_read_as_before_without_an_einvoice_key(
    stack: Stack, shipped_rules: None
) -> None:
    """No key: the page's fields, its engine, and no e-invoice section in fields.json."""
    doc = stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    split = split_document(doc)(cast("StepContext", Step()))
    read_page_batch(doc, 0, *split.plan[0])(cast("StepContext", Step()))
    out = extract_fields(doc, "invoice", split.plan)(cast("StepContext", Step()))
    assert out.fields["invoice_number"].value == "INV-20931"
    detail = _s3_json(out.key or "")
    assert detail["engine"] == "rules" and "einvoice" not in detail and "lines" not in detail


def test_data_naming_no_id_nor_account_still_meets_the_registry(
    stack: Stack, shipped_rules: None
) -> None:
    """No page and nothing declared (an XML with neither a VAT id nor an IBAN): the supplier
    is still looked up by name and the bank-details check still runs (`unknown_payee = "hold"`
    would hold it), as for a page that prints none."""
    fields = {"vendor_name": {"value": "Nobody GmbH", "confidence": 1.0, "page": 0, "box": None}}
    consulted = consult(registry(), [], fields, ("vendor_name",), declared=Declared())
    assert consulted.shown["supplier"] == {"status": "unknown"}
    assert consulted.shown["bank"]["verdict"] == "unknown-supplier"
    # Without data and without pages there is nothing to consult, as before.
    assert consult(registry(), [], fields, ("vendor_name",)).shown == {}
