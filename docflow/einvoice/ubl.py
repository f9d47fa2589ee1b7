"""UBL 2.1 Invoice and CreditNote (EN 16931's UBL syntax binding: Peppol BIS 3, XRechnung
UBL) to an EInvoice."""

from __future__ import annotations

from lxml import etree

from docflow.einvoice.accounts import is_iban_shaped, payee_accounts
from docflow.einvoice.nodes import all_of, amount, date, first, first_text, text
from docflow.einvoice.record import EInvoice, Line, Party, VatBreakdown, document_type


def _party(node: etree._Element | None) -> Party:
    party = first(node, "Party")
    vat_id = tax_number = None
    for scheme in all_of(party, "PartyTaxScheme"):
        if text(scheme, "TaxScheme/ID") == "VAT":
            vat_id = vat_id or text(scheme, "CompanyID")
        else:
            tax_number = tax_number or text(scheme, "CompanyID")
    return Party(
        name=text(party, "PartyLegalEntity/RegistrationName") or text(party, "PartyName/Name"),
        vat_id=vat_id,
        tax_number=tax_number,
        country=text(party, "PostalAddress/Country/IdentificationCode"),
    )


def _line(node: etree._Element, quantity_tag: str) -> Line:
    quantity = first(node, quantity_tag)
    item = first(node, "Item")
    return Line(
        line_id=text(node, "ID"),
        description=text(item, "Name") or text(item, "Description"),
        quantity=amount(quantity),
        unit=quantity.get("unitCode") if quantity is not None else None,
        unit_price=amount(node, "Price/PriceAmount"),
        net=amount(node, "LineExtensionAmount"),
        vat_category=text(item, "ClassifiedTaxCategory/ID"),
        vat_rate=amount(item, "ClassifiedTaxCategory/Percent"),
        item_id=text(item, "SellersItemIdentification/ID"),
        order_line=text(node, "OrderLineReference/LineID"),
    )


def _tax_total(root: etree._Element, currency: str | None) -> str | None:
    # BT-110 is the TaxTotal in the document currency; BT-111 (tax currency) has no subtotals.
    totals = all_of(root, "TaxTotal/TaxAmount")
    for node in totals:
        if currency is None or node.get("currencyID") in (None, currency):
            return amount(node)
    return amount(totals[0]) if totals else None


def read_ubl(root: etree._Element) -> EInvoice:
    credit = etree.QName(root).localname == "CreditNote"
    currency = text(root, "DocumentCurrencyCode")
    type_code = text(root, "CreditNoteTypeCode" if credit else "InvoiceTypeCode")
    means = all_of(root, "PaymentMeans")
    # BT-84 in every payment means (UBL has one account a means; an invoice may have several).
    accounts = payee_accounts(
        text(node) for payment in means for node in all_of(payment, "PayeeFinancialAccount/ID")
    )
    totals = first(root, "LegalMonetaryTotal")
    return EInvoice(
        syntax="ubl",
        customization=text(root, "CustomizationID"),
        number=text(root, "ID"),
        type_code=type_code,
        document_type=document_type(type_code, credit_note_root=credit),
        issue_date=date(root, "IssueDate"),
        due_date=date(root, "DueDate") or date(root, "PaymentMeans/PaymentDueDate"),
        currency=currency,
        seller=_party(first(root, "AccountingSupplierParty")),
        buyer=_party(first(root, "AccountingCustomerParty")),
        net=amount(totals, "TaxExclusiveAmount"),
        tax=_tax_total(root, currency),
        total=amount(totals, "TaxInclusiveAmount"),
        payable=amount(totals, "PayableAmount"),
        line_total=amount(totals, "LineExtensionAmount"),
        po_number=text(root, "OrderReference/ID"),
        buyer_reference=text(root, "BuyerReference"),
        ibans=tuple(a for a in accounts if is_iban_shaped(a)),
        bic=first_text(means, "PayeeFinancialAccount/FinancialInstitutionBranch/ID"),
        payment_terms=text(root, "PaymentTerms/Note"),
        lines=tuple(
            _line(node, "CreditedQuantity" if credit else "InvoicedQuantity")
            for node in all_of(root, "CreditNoteLine" if credit else "InvoiceLine")
        ),
        vat=tuple(
            VatBreakdown(
                category=text(sub, "TaxCategory/ID"),
                rate=amount(sub, "TaxCategory/Percent"),
                taxable=amount(sub, "TaxableAmount"),
                tax=amount(sub, "TaxAmount"),
            )
            for total in all_of(root, "TaxTotal")
            for sub in all_of(total, "TaxSubtotal")
        ),
        other_accounts=tuple(a for a in accounts if not is_iban_shaped(a)),
    )
