"""An e-invoice on the review page (#46.5, docs/einvoice.md): an XML-only invoice shown as a
readable invoice read from its einvoice.json, the failed rules beside what they concern, the
warnings apart; a hybrid's page and data side by side with the page's box outlined; the XML
attacker-controlled and shown as text; the original downloaded as what it is."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlparse

import lxml.html
import requests

from docflow import aws
from docflow.document import Check
from docflow.ids import DocumentRef
from docflow.review.stage.masking import masked_value
from docflow.review.web.einvoice_view import mismatches
from docflow.settings import load_settings
from docflow.storage import batch_manifest_key
from tests.support.aws import Stack
from tests.support.einvoice_review import (
    KOSIT_CII,
    PRINTED_IBAN,
    box_of,
    breaking_rules,
    einvoice_desk,
    hybrid_paying,
    put_einvoice,
    put_pages,
    rule_checks,
    stored_einvoice,
    summary_einvoice,
    xml_fields,
)
from tests.support.review_desk import call

XML_IBAN = "DE89 3704 0044 0532 0130 00"
XML_IBAN_BARE = XML_IBAN.replace(" ", "")


def xml_summary(doc: DocumentRef, stored: dict[str, Any]) -> dict[str, Any]:
    return {
        "docType": "invoice",
        "pages": 1,
        "einvoice": summary_einvoice(doc, stored),
        "fields": xml_fields(stored),
        "fieldChecks": rule_checks(stored),
    }


def texts(page: Any, xpath: str) -> list[str]:
    """Each match's text, its elements' texts apart (a <dt> and its <dd> are two words)."""
    return [" ".join(" ".join(e.itertext()).split()) for e in page.xpath(xpath)]


def test_an_xml_invoice_reads_as_an_invoice_with_each_rule_beside_what_it_concerns(
    stack: Stack,
) -> None:
    xml = breaking_rules(KOSIT_CII.read_bytes())
    doc = stack.upload("in/xrechnung-123456XX.xml", xml)
    stored = stored_einvoice(xml)
    assert {c["rule"] for c in rule_checks(stored)} == {"BR-CO-15", "BR-S-08"}
    put_einvoice(doc, stored)
    # Its one page, as the read-pages step reads an XML invoice: the data's text, an IBAN in it.
    facts = {"page": 1, "engine": "einvoice", "confidence": 1.0, "sensitive": {"iban": 1}}
    aws.client("s3").put_object(
        Bucket=load_settings().artifact_bucket,
        Key=batch_manifest_key(doc, 0),
        Body=json.dumps({"first": 1, "last": 1, "pages": [facts]}).encode(),
    )
    with einvoice_desk(stack) as desk:
        token = desk.link(doc, xml_summary(doc, stored))
        answer = call("GET", f"/review/{token}")
    assert answer["statusCode"] == 200
    html = answer["body"]
    page = lxml.html.fromstring(html)
    # In place of page previews: the invoice.
    assert not page.xpath("//img") and not page.xpath('//*[@id="pages"]')
    assert texts(page, '//*[@id="einvoice-title"]') == ["Invoice 123456XX"]
    assert "Pages none: an invoice sent as XML data" in texts(page, "//dl")[0]
    seller = texts(page, '//*[@id="einvoice-seller"]')[0]
    assert "[Seller name]" in seller and "VAT ID DE 123456789" in seller
    facts = texts(page, '//*[@id="einvoice-facts"]')[0]
    assert "Issue date 2016-04-04" in facts and "Buyer reference 04011000-12345-03" in facts
    rows = [texts(r, "td") for r in page.xpath('//*[@id="einvoice-lines"]/tbody/tr')]
    assert rows == [
        ["1", "Zeitschrift [...]", "1", "XPP (piece)", "288.79", "288.79", "S 7 %"],
        ["2", "Porto + Versandkosten", "1", "XPP (piece)", "26.07", "26.07", "S 7 %"],
    ]
    vat = [texts(r, "td") for r in page.xpath('//*[@id="einvoice-vat"]/tbody/tr')]
    assert vat == [["S (standard rate)", "7 %", "324.86 EUR", "22.04 EUR"]]
    totals = texts(page, '//*[@id="einvoice-totals"]//tr')
    at = totals.index("Total with VAT 346.9 EUR")
    # The rule sits on the row after the value it concerns, with its id and text.
    assert totals[at + 1].startswith("BR-CO-15 Invoice total amount with VAT (BT-112) =")
    assert "Amount due 346.9 EUR" in totals
    payment = texts(page, '//*[@id="einvoice-payment"]')[0]
    assert "Terms Zahlbar sofort ohne Abzug." in payment
    assert "Account (IBAN) DE•••• 7890" in payment and "DE79000000001234567890" not in html
    # The rule of no single field in a list above the fields, in the invoice and in the form.
    (general,) = texts(page, '//*[@id="einvoice-rules"]')
    assert general.startswith("Rules this invoice breaks BR-S-08 For each different value")
    assert "BR-CO-15" not in general
    (above,) = page.xpath('//*[@id="rules-above-fields"]')
    assert texts(above, ".") == [
        "The data breaks BR-S-08 , which concerns no single field: see the rules this "
        "invoice breaks ."
    ]
    assert above.xpath(".//a")[0].get("href") == "#einvoice-rules"
    # Fields read from the data: no page, no position, said where they came from.
    (number,) = page.xpath('//label[@for="field-invoice_number"]')
    assert texts(number, ".") == ["Invoice number from the XML data"]
    assert "position not known" not in html
    # The field's own check names the rule: the form's total says BR-CO-15 beside it.
    (total_field,) = page.xpath('//div[contains(@class,"field")][.//*[@id="field-total_amount"]]')
    assert "BR-CO-15: Invoice total amount with VAT (BT-112)" in total_field.text_content()
    # Warnings quieter, apart, and not called a reason it is here.
    (warnings,) = page.xpath('//details[@id="einvoice-warnings"]')
    assert "PEPPOL-EN16931-R008" in warnings.text_content() and warnings.get("open") is None
    # CEN's PEPPOL-EN16931-R008 and KoSIT's BR-DE-TMP-32 (an XRechnung is held to both).
    assert "2 warnings from the rules (shown only" in warnings.text_content()
    assert "BR-DE-TMP-32" in warnings.text_content()
    assert "Download the original XML" in html
    # What the detectors found in its reading is still said: in the data, there being no page.
    assert "An IBAN in the invoice's XML data" in texts(page, "//section")[0]


def test_the_xml_is_shown_as_text_never_as_markup(stack: Stack) -> None:
    attack = "<script>alert(1)</script>"
    xml = KOSIT_CII.read_bytes().replace(
        b"<ram:Name>Zeitschrift [...]</ram:Name>",
        b"<ram:Name>&lt;script&gt;alert(1)&lt;/script&gt;</ram:Name>",
    )
    xml = xml.replace(
        b"<ram:Name>[Seller name]</ram:Name>",
        b'<ram:Name>ACME"&gt;&lt;img src=x onerror=alert(2)&gt;</ram:Name>',
    )
    doc = stack.upload("in/attack.xml", xml)
    stored = stored_einvoice(xml)
    assert stored["invoice"]["lines"][0]["description"] == attack  # read as the XML says
    put_einvoice(doc, stored)
    summary = xml_summary(doc, stored)
    summary["fieldChecks"] = [
        {"field": "*", "code": "einvoice-rule", "rule": "<b>X</b>", "message": attack},
        {"field": "total_amount", "code": "einvoice-rule", "rule": "BR-CO-15", "message": attack},
    ]
    with einvoice_desk(stack) as desk:
        html = call("GET", f"/review/{desk.link(doc, summary)}")["body"]
    assert "<script" not in html and "<img src=x" not in html and "<b>X</b>" not in html
    page = lxml.html.fromstring(html)
    assert not page.xpath("//script") and not page.xpath("//img") and not page.xpath("//b")
    rows = [texts(r, "td") for r in page.xpath('//*[@id="einvoice-lines"]/tbody/tr')]
    assert rows[0][:2] == ["Zeitschrift [...]", attack]  # its line id, and the text as text
    assert 'ACME"><img src=x onerror=alert(2)>' in texts(page, '//*[@id="einvoice-seller"]')[0]
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3


def test_the_original_of_an_xml_invoice_downloads_as_xml(stack: Stack) -> None:
    xml = KOSIT_CII.read_bytes()
    # Recognized by content: a sender's misnamed file still downloads as what it is.
    doc = stack.upload("in/INV-123456XX.pdf", xml)
    stored = stored_einvoice(xml)
    put_einvoice(doc, stored)
    with einvoice_desk(stack) as desk:
        token = desk.link(doc, xml_summary(doc, stored))
        answer = call("GET", f"/review/{token}/original")
        preview = call("GET", f"/review/{token}/pages/1")
    assert answer["statusCode"] == 302
    query = parse_qs(urlparse(answer["headers"]["Location"]).query)
    assert query["response-content-type"] == ["application/xml"]
    assert query["response-content-disposition"] == ['attachment; filename="INV-123456XX.xml"']
    got = requests.get(answer["headers"]["Location"], timeout=30)
    assert got.headers["Content-Type"] == "application/xml"
    assert got.content == xml
    # No picture of a page it does not have.
    assert preview["statusCode"] == 404 and "no page to show" in preview["body"]


def test_a_hybrid_shows_its_pages_the_disagreement_side_by_side_and_its_lines(
    stack: Stack,
) -> None:
    pdf = hybrid_paying(XML_IBAN)
    doc = stack.upload("in/facturx.pdf", pdf)
    words = put_pages(doc, pdf)
    stored = stored_einvoice(pdf)
    assert stored["source"] == "hybrid" and stored["invoice"]["ibans"] == [XML_IBAN_BARE]
    put_einvoice(doc, stored)
    summary = {
        "docType": "invoice",
        "pages": 1,
        "einvoice": summary_einvoice(doc, stored),
        "fields": xml_fields(stored),
        "fieldChecks": [
            {
                "field": "iban",
                "code": "page-mismatch",
                "xml": XML_IBAN_BARE,
                "page": PRINTED_IBAN,
                "pageBox": {"page": 1, "box": box_of(words[1], PRINTED_IBAN)},
                "message": "the payee IBAN on the page is not the one in the XML data",
            }
        ],
    }
    with einvoice_desk(stack) as desk:
        token = desk.link(doc, summary)
        html = call("GET", f"/review/{token}")["body"]
        download = call("GET", f"/review/{token}/original")
    page = lxml.html.fromstring(html)
    (row,) = page.xpath('//tr[@id="mismatch-iban"]')
    assert texts(row, "th") == ["IBAN (payee account)"]
    assert texts(row, 'td[@class="page-value"]') == ["FR•••• 4698 Show it on page 1"]
    assert texts(row, 'td[@class="xml-value"]') == ["DE•••• 3000"]
    assert PRINTED_IBAN not in html and XML_IBAN_BARE not in html
    (outline,) = page.xpath('//*[@id="page-1"]//a[@id="box-mismatch-iban"]')
    assert "mismatch" in outline.get("class") and outline.get("href") == "#mismatch-iban"
    assert outline.get("style").startswith("left:17.36%;top:13.13%;")
    assert row.xpath('.//a[@href="#box-mismatch-iban"]')
    # The pages as today, and the data's lines and VAT breakdown beside them.
    assert page.xpath('//*[@id="page-1"]//img')
    assert page.xpath('//*[@id="einvoice-lines"]/tbody/tr')
    assert page.xpath('//*[@id="einvoice-vat"]/tbody/tr')
    assert "Download the original PDF" in html
    query = parse_qs(urlparse(download["headers"]["Location"]).query)
    assert query["response-content-type"] == ["application/pdf"]


def _iban(country: str, bban: str) -> str:
    """An IBAN with its check digits (ISO 13616: mod 97)."""
    digits = "".join(str(int(c, 36)) for c in f"{bban}{country}00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


def test_two_accounts_masked_alike_are_said_to_differ() -> None:
    page, xml = _iban("DE", "370400440532013000"), _iban("DE", "370400449999013000")
    assert masked_value(page) == masked_value(xml)  # the last four and the country agree
    check = {"field": "iban", "code": "page-mismatch", "xml": xml, "page": page, "pageBox": None}
    (found,) = mismatches([Check.from_json(check)])
    assert found.alike and (found.page_value, found.xml_value) == ("DE•••• 3000", "DE•••• 3000")
    assert (found.page, found.box) == (None, None)
    same = {**check, "xml": page}
    assert not mismatches([Check.from_json(same)])[0].alike


def test_a_national_payee_account_is_shown_masked_beside_the_iban(stack: Stack) -> None:
    """A BT-84 that is no IBAN (a national account, issue 56) is a payee the page names, to
    its last four like an IBAN: no detector knows its shape, so the view masks it itself."""
    from tests.einvoice.payees import NATIONAL, ubl_with

    xml = ubl_with("national")
    doc = stack.upload("in/national.xml", xml)
    stored = stored_einvoice(xml)
    put_einvoice(doc, stored)
    facts = {"page": 1, "engine": "einvoice", "confidence": 1.0, "sensitive": {}}
    aws.client("s3").put_object(
        Bucket=load_settings().artifact_bucket,
        Key=batch_manifest_key(doc, 0),
        Body=json.dumps({"first": 1, "last": 1, "pages": [facts]}).encode(),
    )
    with einvoice_desk(stack) as desk:
        token = desk.link(doc, xml_summary(doc, stored))
        html = call("GET", f"/review/{token}")["body"]
    payment = texts(lxml.html.fromstring(html), '//*[@id="einvoice-payment"]')[0]
    assert f"Account (other) •••• {NATIONAL[-4:]}" in payment
    assert NATIONAL not in html
