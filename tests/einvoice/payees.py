"""E-invoices of a registered supplier whose payee accounts (BT-84) come in every form the
standards allow, built from the published samples: its registered IBAN first, then one more
account as an attacker would add it (issue 56).

    CII (Factur-X EN 16931, akretion/factur-x's sample)   UBL (KoSIT's XRechnung 01.01a)
    proprietary-id   ram:ProprietaryID                     -
    hyphenated       ram:IBANID "GB82-WEST-..."            cbc:ID "GB82-WEST-..."
    national         ram:ProprietaryID "0532013000"        cbc:ID "0532013000"
    second-means     a second PaymentMeans, plain IBAN     a second cac:PaymentMeans

Each comes as the XML alone and as a hybrid PDF: the CII re-embedded in the sample's own PDF
with factur-x (its page prints the registered IBAN only), the UBL attached as `xrechnung.xml`
to a page printed here with the invoice's number, total and registered IBAN."""

from __future__ import annotations

import io
import re
from pathlib import Path

import facturx
from pypdf import PdfWriter

from docflow.einvoice import detect
from docflow.suppliers import history
from docflow.suppliers.model import Supplier
from tests.suppliers.papers import paper
from tests.support.reviewed_runs import registry

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
FACTURX_PDF = DATA / "facturx-en16931.pdf"
KOSIT_UBL = DATA / "kosit-xrechnung-01.01a-ubl.xml"

ATTACKER_IBAN = "GB82WEST12345698765432"
HYPHENATED = "GB82-WEST-1234-5698-7654-32"
NATIONAL = "0532013000"

CII_VAT, CII_IBAN = "FR11123456782", "FR2012542547256985425874698"
CII_SELLER = "LE FOURNISSEUR"
UBL_IBAN = "DE79000000001234567890"
UBL_SELLER = "[Seller name]"

CII_FORMS = ("proprietary-id", "hyphenated", "national", "second-means")
UBL_FORMS = ("hyphenated", "national", "second-means")


# The sample cites its buyer's order (BT-13); with matching on, an invoice citing an order
# docflow never saw waits for it (docs/matching.md). These tests are about payees: no order.
_ORDER_REFERENCE = re.compile(
    rb"\s*<ram:BuyerOrderReferencedDocument>\s*<ram:IssuerAssignedID>[^<]*"
    rb"</ram:IssuerAssignedID>\s*</ram:BuyerOrderReferencedDocument>"
)


def facturx_xml() -> bytes:
    """The Factur-X sample's XML, citing no order."""
    found = detect(FACTURX_PDF.read_bytes())
    assert found is not None
    xml, cut = _ORDER_REFERENCE.subn(b"", found.xml)
    assert cut == 1
    return xml


def attackers_xml() -> bytes:
    """The Factur-X sample's XML paying the attacker's account instead of its own."""
    xml = facturx_xml()
    assert xml.count(_SPACED) == 1
    return xml.replace(_SPACED, ATTACKER_IBAN.encode())


_SPACED = b"FR20 1254 2547 2569 8542 5874 698"
_CII_ACCOUNT = b"<ram:IBANID>" + _SPACED + b"</ram:IBANID>"
_CII_MEANS_END = b"</ram:SpecifiedTradeSettlementPaymentMeans>"


def _cii_means(account: str) -> bytes:
    return (
        "<ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>30</ram:TypeCode>"
        f"<ram:PayeePartyCreditorFinancialAccount>{account}"
        "</ram:PayeePartyCreditorFinancialAccount>"
        "</ram:SpecifiedTradeSettlementPaymentMeans>"
    ).encode()


def cii_with(form: str) -> bytes:
    """The Factur-X sample's XML with its registered IBAN first and one more payee account."""
    xml = facturx_xml()
    assert xml.count(_CII_ACCOUNT) == 1 and xml.count(_CII_MEANS_END) == 1
    extra = {
        "proprietary-id": f"<ram:ProprietaryID>{ATTACKER_IBAN}</ram:ProprietaryID>",
        "hyphenated": f"<ram:IBANID>{HYPHENATED}</ram:IBANID>",
        "national": f"<ram:ProprietaryID>{NATIONAL}</ram:ProprietaryID>",
        "second-means": f"<ram:IBANID>{ATTACKER_IBAN}</ram:IBANID>",
    }[form]
    return xml.replace(_CII_MEANS_END, _CII_MEANS_END + _cii_means(extra))


_UBL_MEANS = b"""    <cac:PaymentMeans>
        <cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>
        <cac:PayeeFinancialAccount>
            <!-- dies ist eine nicht existerende aber valide IBAN als test dummy -->
            <cbc:ID>DE79000000001234567890</cbc:ID>
        </cac:PayeeFinancialAccount>
    </cac:PaymentMeans>
"""


def ubl_with(form: str) -> bytes:
    """KoSIT's XRechnung UBL with its registered IBAN first and a second PaymentMeans naming
    one more payee account (UBL has one account per PaymentMeans)."""
    xml = KOSIT_UBL.read_bytes()
    assert xml.count(_UBL_MEANS) == 1
    account = {"hyphenated": HYPHENATED, "national": NATIONAL, "second-means": ATTACKER_IBAN}
    second = (
        "    <cac:PaymentMeans>\n"
        "        <cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>\n"
        "        <cac:PayeeFinancialAccount>\n"
        f"            <cbc:ID>{account[form]}</cbc:ID>\n"
        "        </cac:PayeeFinancialAccount>\n"
        "    </cac:PaymentMeans>\n"
    ).encode()
    return xml.replace(_UBL_MEANS, _UBL_MEANS + second)


def cii_without_account() -> bytes:
    """The Factur-X sample's XML paid in cash (payment means 10): no payee account at all."""
    xml = facturx_xml()
    start = xml.index(b"<ram:PayeePartyCreditorFinancialAccount>")
    end = xml.index(b"</ram:PayeePartyCreditorFinancialAccount>") + len(
        b"</ram:PayeePartyCreditorFinancialAccount>"
    )
    xml = xml[:start] + xml[end:]
    assert xml.count(b"<ram:TypeCode>30</ram:TypeCode>") == 1
    return xml.replace(b"<ram:TypeCode>30</ram:TypeCode>", b"<ram:TypeCode>10</ram:TypeCode>")


def ubl_with_one() -> bytes:
    """KoSIT's XRechnung UBL as published: its registered IBAN, nothing else."""
    return KOSIT_UBL.read_bytes()


def cii_hybrid(xml: bytes) -> bytes:
    """The Factur-X sample PDF (its page unchanged) carrying `xml`, embedded by factur-x."""
    return bytes(facturx.generate_from_binary(FACTURX_PDF.read_bytes(), xml))


def ubl_page(iban: str | None = UBL_IBAN) -> bytes:
    """A page printing KoSIT's UBL invoice as its seller would: number, total and, unless
    None, the account to pay."""
    spaced = " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if iban else ""
    lines = [
        UBL_SELLER,
        "[Seller address line 1], 12345 [Seller city]",
        "USt-IdNr.: DE 123456789",
        "",
        "RECHNUNG",
        "Rechnungsnummer: 123456XX",
        "Rechnungsdatum: 13.04.2016",
        "Nettobetrag: 314,86 EUR",
        "MwSt. 7%: 22,04 EUR",
        "Gesamtbetrag: 336,90 EUR",
    ]
    if spaced:
        lines.append(f"Bitte per SEPA Überweisung auf IBAN {spaced}")
    return paper(lines)


def with_attachments(pdf: bytes, attachments: dict[str, bytes]) -> bytes:
    """`pdf` carrying `attachments` besides whatever it carries already."""
    writer = PdfWriter(clone_from=io.BytesIO(pdf))
    for name, content in attachments.items():
        writer.add_attachment(name, content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def ubl_hybrid(xml: bytes, iban: str | None = UBL_IBAN) -> bytes:
    return with_attachments(ubl_page(iban), {"xrechnung.xml": xml})


def register(syntax: str) -> None:
    """The sample's seller, registered with its VAT id and its first (registered) IBAN."""
    if syntax == "cii":
        name, ids = CII_SELLER, {"vat": [CII_VAT], "iban": [CII_IBAN]}
    else:  # KoSIT's sample VAT id (DE 123456789) fails its check: matched by the IBAN
        name, ids = UBL_SELLER, {"iban": [UBL_IBAN]}
    supplier = Supplier.parse({"supplierId": "seller", "name": name, "ids": ids})
    registry().put(supplier, history.entry("seller", history.IMPORTED, "test"))
