"""UN/CEFACT CII (Factur-X 1.x, ZUGFeRD 2.x, XRechnung CII: D16B and later) and ZUGFeRD 1.0's
CrossIndustryDocument (D12) to an EInvoice.

The two versions share most local names; where they differ (ZUGFeRD 1.0's
`HeaderExchangedDocument`, `ApplicableSupplyChainTradeAgreement`, `ApplicablePercent`...) the
reader is given both names, each looked up in turn."""

from __future__ import annotations

from lxml import etree

from docflow.einvoice.accounts import is_iban_shaped, payee_accounts
from docflow.einvoice.nodes import all_of, amount, date, first, first_text, text
from docflow.einvoice.record import EInvoice, Line, Party, VatBreakdown, document_type


def _either(node: etree._Element | None, *paths: str) -> etree._Element | None:
    for path in paths:
        found = first(node, path)
        if found is not None:
            return found
    return None


def _party(node: etree._Element | None) -> Party:
    vat_id = tax_number = None
    for reg in all_of(node, "SpecifiedTaxRegistration/ID"):
        scheme, value = reg.get("schemeID"), text(reg)
        if scheme == "VA":
            vat_id = vat_id or value
        elif scheme == "FC":
            tax_number = tax_number or value
    return Party(
        name=text(node, "Name"),
        vat_id=vat_id,
        tax_number=tax_number,
        country=text(node, "PostalTradeAddress/CountryID"),
    )


def _rate(tax: etree._Element | None) -> str | None:
    return amount(tax, "RateApplicablePercent") or amount(tax, "ApplicablePercent")


def _line(node: etree._Element) -> Line:
    agreement = _either(node, "SpecifiedLineTradeAgreement", "SpecifiedSupplyChainTradeAgreement")
    delivery = _either(node, "SpecifiedLineTradeDelivery", "SpecifiedSupplyChainTradeDelivery")
    settlement = _either(
        node, "SpecifiedLineTradeSettlement", "SpecifiedSupplyChainTradeSettlement"
    )
    quantity = first(delivery, "BilledQuantity")
    tax = first(settlement, "ApplicableTradeTax")
    return Line(
        line_id=text(node, "AssociatedDocumentLineDocument/LineID"),
        description=text(node, "SpecifiedTradeProduct/Name"),
        quantity=amount(quantity),
        unit=quantity.get("unitCode") if quantity is not None else None,
        unit_price=amount(agreement, "NetPriceProductTradePrice/ChargeAmount"),
        net=amount(settlement, "SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount")
        or amount(settlement, "SpecifiedTradeSettlementMonetarySummation/LineTotalAmount"),
        vat_category=text(tax, "CategoryCode"),
        vat_rate=_rate(tax),
        item_id=text(node, "SpecifiedTradeProduct/SellerAssignedID"),
        order_line=text(agreement, "BuyerOrderReferencedDocument/LineID"),
    )


def _tax_total(sums: etree._Element | None, currency: str | None) -> str | None:
    # BT-110 carries the invoice currency; a second TaxTotalAmount is BT-111 (tax currency).
    totals = all_of(sums, "TaxTotalAmount")
    for node in totals:
        if node.get("currencyID") in (None, currency):
            return amount(node)
    return amount(totals[0]) if totals else None


def read_cii(root: etree._Element) -> EInvoice:
    v1 = etree.QName(root).localname == "CrossIndustryDocument"
    context = _either(root, "ExchangedDocumentContext", "SpecifiedExchangedDocumentContext")
    header = _either(root, "ExchangedDocument", "HeaderExchangedDocument")
    tx = _either(root, "SupplyChainTradeTransaction", "SpecifiedSupplyChainTradeTransaction")
    agreement = _either(tx, "ApplicableHeaderTradeAgreement", "ApplicableSupplyChainTradeAgreement")
    settlement = _either(
        tx, "ApplicableHeaderTradeSettlement", "ApplicableSupplyChainTradeSettlement"
    )
    sums = _either(
        settlement,
        "SpecifiedTradeSettlementHeaderMonetarySummation",
        "SpecifiedTradeSettlementMonetarySummation",
    )
    currency = text(settlement, "InvoiceCurrencyCode")
    type_code = text(header, "TypeCode")
    means = all_of(settlement, "SpecifiedTradeSettlementPaymentMeans")
    accounts = _payee_accounts(means)
    order = first(agreement, "BuyerOrderReferencedDocument")
    return EInvoice(
        syntax="zugferd-1" if v1 else "cii",
        customization=text(context, "GuidelineSpecifiedDocumentContextParameter/ID"),
        number=text(header, "ID"),
        type_code=type_code,
        document_type=document_type(type_code),
        issue_date=date(header, "IssueDateTime/DateTimeString"),
        due_date=date(settlement, "SpecifiedTradePaymentTerms/DueDateDateTime/DateTimeString"),
        currency=currency,
        seller=_party(first(agreement, "SellerTradeParty")),
        buyer=_party(first(agreement, "BuyerTradeParty")),
        net=amount(sums, "TaxBasisTotalAmount"),
        tax=_tax_total(sums, currency),
        total=amount(sums, "GrandTotalAmount"),
        payable=amount(sums, "DuePayableAmount"),
        line_total=amount(sums, "LineTotalAmount"),
        po_number=text(order, "IssuerAssignedID") or text(order, "ID"),
        buyer_reference=text(agreement, "BuyerReference"),
        ibans=tuple(a for a in accounts if is_iban_shaped(a)),
        bic=first_text(means, "PayeeSpecifiedCreditorFinancialInstitution/BICID"),
        payment_terms=text(settlement, "SpecifiedTradePaymentTerms/Description"),
        lines=tuple(_line(node) for node in all_of(tx, "IncludedSupplyChainTradeLineItem")),
        vat=tuple(
            VatBreakdown(
                category=text(tax, "CategoryCode"),
                rate=_rate(tax),
                taxable=amount(tax, "BasisAmount"),
                tax=amount(tax, "CalculatedAmount"),
            )
            for tax in all_of(settlement, "ApplicableTradeTax")
        ),
        other_accounts=tuple(a for a in accounts if not is_iban_shaped(a)),
    )


def _payee_accounts(means: list[etree._Element]) -> tuple[str, ...]:
    """BT-84 in every payment means: an IBAN (`IBANID`) and a national or other account
    (`ProprietaryID`), each a payee account, in document order. The payer's account
    (`PayerPartyDebtorFinancialAccount`, BT-91, a direct debit's) is the buyer's: not read."""
    return payee_accounts(
        text(node)
        for payment in means
        for account in all_of(payment, "PayeePartyCreditorFinancialAccount")
        for tag in ("IBANID", "ProprietaryID")  # the schema's order
        for node in all_of(account, tag)
    )
