"""What a review page says about the supplier registry's part: plain sentences, masked IBANs.

Kept here (not in the review package) so the review room carries one call and one tag.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from docflow.document import DocumentSummary
from docflow.document.shown import AccountShown, BankShown, IbanShown, SupplierShown

SOURCES = {
    "profile": "from this layout's learned profile",
    "registry": "from the supplier registry",
}
_WHY = {
    "registered": "registered for this supplier",
    "beside-issuer-id": "printed beside the issuer's tax id",
    "beside-issuer-name": "printed beside the issuer's name",
    "issuer-block": "printed in the issuer's block",
    "footer": "printed in the footer",
    "debit-mandate": "in a line that asks to debit an account",
    "customer-block": "in the customer's block",
    "no-issuer-evidence": "nothing ties it to the issuer",
    "bad-checksum": "its check digits are wrong",
    "pay-to": "the page asks to be paid on it",
    "reader-account": "the reader's own account",
    "unrecognized": "no check recognizes it as an account",
    "payee-data": "the e-invoice's data names it the payee",
}
IN_DATA = "in the invoice's XML data"  # a declared account with no page: an XML sent alone


def routes_on(
    review_on: tuple[str, ...], summary: DocumentSummary, sent_for_sensitive: bool
) -> tuple[str, ...]:
    """The detectors that sent this document to review: `iban` only when an IBAN on it was
    judged someone else's (or none was judged, as for types without fields), or a stage of
    its route is there for sensitive data."""
    ibans = [i for i in summary.ibans if i.get("valid")]
    if ibans and not sent_for_sensitive and all(i.get("owner") == "issuer" for i in ibans):
        return tuple(d for d in review_on if d != "iban")
    return review_on


def supplier_offer(summary: DocumentSummary) -> list[str]:
    """The checked ids a fields reviewer may register the issuer with ("add this supplier"),
    as the page names them; empty when there is nothing to offer (no fields, a supplier
    matched already, or no checked id of the issuer's on the document)."""
    if not summary.has_fields or (summary.supplier or {}).get("certain"):
        return []
    ids = [f"{t['kind'].upper()} {t['value']}" for t in summary.tax_ids if t.get("valid")]
    ibans = [
        f"IBAN {i['iban']}" for i in summary.ibans if i.get("valid") and i.get("owner") == "issuer"
    ]
    return [*ids, *ibans]


def supplier_lines(summary: DocumentSummary) -> list[str]:
    lines = []
    supplier: SupplierShown = summary.supplier or {}
    if supplier.get("certain"):
        lines.append(
            f"Supplier {supplier.get('name')}: matched by its {supplier.get('by')} "
            f"({supplier.get('key')})" + _evidence(supplier) + "."
        )
        if supplier.get("by") == "fingerprint":
            lines.append(
                "Known by its layout, for reading only: its bank details are checked against "
                "the registry as for any invoice."
            )
    elif supplier.get("status") == "ambiguous":
        lines.append(
            "The layout is two or more suppliers' (one invoicing software) and none of their "
            "own lines told which: check the vendor."
        )
    elif supplier.get("by") and supplier.get("by") != "name":  # an id the page's name denies
        lines.append(
            f"The {supplier.get('by')} {supplier.get('key')} is registered to "
            f"{supplier.get('name')}, but the page names another issuer: check the vendor."
        )
    elif supplier.get("name"):
        lines.append(
            f"Supplier perhaps {supplier.get('name')} (by name only, score "
            f"{supplier.get('score')}): check the vendor."
        )
    elif supplier.get("status") == "unknown":
        lines.append("Supplier unknown: no registered supplier issued it.")
    elif summary.has_fields and summary.tax_ids:
        found = ", ".join(f"{t['kind']} {t['value']}" for t in summary.tax_ids if t.get("valid"))
        if found:
            lines.append(f"No registered supplier has these ids: {found}.")
    lines.extend(layout_lines(summary))
    ibans = summary.ibans
    source = (summary.einvoice or {}).get("source")
    pages = {str(i.get("iban")): int(i.get("page") or 0) for i in ibans}
    bank = bank_lines(summary.bank, IN_DATA if source == "xml" else "printed", pages)
    # Each account once: the bank check says the payees; the rest are said with whose they
    # are and why (a customer's, a debit mandate's), whatever the bank lines name.
    for iban in ibans:
        payee = iban.get("owner") == "issuer" and iban.get("valid") and summary.bank
        if not (payee and _named(iban, bank)):
            lines.append(iban_line(iban))
    return [*lines, *bank]


def layout_lines(summary: DocumentSummary) -> list[str]:
    """What the page says of the learned layout: which one it is, and what its profile gave
    (never what it read of the other fields: a person checks those unprompted)."""
    layout = summary.layout or {}
    status = layout.get("status")
    given = summary.profile_fields
    if status == "matched":
        said = f"Layout {layout.get('layoutId')} (issued by {layout.get('issuer')}): "
        if given:
            return [said + f"{', '.join(given)} read on its learned profile; check them too."]
        return [said + "known, its profile not yet trusted: your values teach it."]
    if status == "none" and summary.fields:
        return ["A layout docflow has not learned yet: approving teaches it."]
    return []


def iban_place(iban: IbanShown) -> str:
    """Where an IBAN was read: `on page 2`, or, with no page (0: an e-invoice's data sent
    alone), in its XML data."""
    return f"on page {iban['page']}" if iban.get("page") else IN_DATA


def iban_line(iban: IbanShown) -> str:
    whose = "the issuer's" if iban.get("owner") == "issuer" else "not the issuer's"
    why = _WHY.get(str(iban.get("why")), str(iban.get("why")))
    return f"IBAN {iban.get('iban')} {iban_place(iban)}: {whose} ({why})."


def _evidence(supplier: SupplierShown) -> str:
    """`; evidence: vat, name, fingerprint` (what points to the supplier), or ""."""
    said = [str(e) for e in supplier.get("evidence") or []]
    return f"; evidence: {', '.join(said)}" if said else ""


def account(shown: AccountShown) -> str:
    """`DE•••• 3000 (Commerzbank, COBADEFFXXX)`: masked, with its bank where known."""
    bank = ", ".join(str(v) for v in (shown.get("bank"), shown.get("bic")) if v)
    return f"{shown.get('iban')}" + (f" ({bank})" if bank else "")


def bank_lines(
    bank: BankShown | None, where: str = "printed", pages: Mapping[str, int] | None = None
) -> list[str]:
    """The bank-details check in sentences, each account said once, so a person compares them
    without seeing a whole account number.

    With a supplier to ask (`supplierId`), the comparison: each payee account with whether it
    is registered for this supplier (or held by another), then the supplier's other registered
    accounts; the verdict's own sentence only where it says more than they do. Without one,
    the verdict's sentence, and a payee line only for an account it does not name: nothing is
    "not registered for this supplier" when there is no supplier. `where` the payees were read
    ("printed", or in the XML data); `pages`: on which page each masked account was read."""
    if not bank:
        return []
    payees = bank.get("printed") or []
    supplier = bank.get("supplierId")
    message = f"Bank details: {bank['message']}." if bank.get("message") else ""
    said: list[str] = []
    for printed in payees:
        if printed.get("holder"):
            state = f", registered for another supplier, {printed['holder']}"
        elif supplier:
            state = f", {'' if printed.get('registered') else 'not '}registered for this supplier"
        else:
            state = ""
        page = (pages or {}).get(str(printed.get("iban")))
        place = f", on page {page}" if page else ""
        if supplier or not _named(printed, [message]):
            said.append(f"Pay to ({where}): {account(printed)}{state}{place}.")
    # A registered payee's line said it; an account merely masked alike did not (its middle
    # differs: an attacker may pick one ending as the supplier's does).
    paid = [p for p in payees if p.get("registered") and not p.get("holder")]
    others = [
        r for r in bank.get("registered") or [] if not _named(r, [str(p["iban"]) for p in paid])
    ]
    if supplier and (others or not bank.get("registered")):
        said.append(f"Registered accounts: {', '.join(map(account, others)) or 'none'}.")
    alike = [
        p for p in payees if not p.get("registered") and _named(p, [account(r) for r in others])
    ]
    if supplier and alike:
        said.append(
            f"{', '.join(str(p['iban']) for p in alike)} ends as a registered account does but "
            "is not that account: compare the whole account in the original."
        )
    # The verdict's sentence, unless the lines above name every account it names (and it
    # names one: a verdict that names none says something they do not).
    accounts = re.findall(r"[A-Z]{2}•+ ?\w+", message)
    if message and not (said and accounts and all(a in " ".join(said) for a in accounts)):
        said.insert(0, message)
    return said


def _named(shown: AccountShown | IbanShown, lines: Sequence[str]) -> bool:
    return any(str(shown.get("iban")) in line for line in lines)
