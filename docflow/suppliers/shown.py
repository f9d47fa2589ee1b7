"""What a review page says about the supplier registry's part: plain sentences, masked IBANs.

Kept here (not in the review package) so the review room carries one call and one tag.
"""

from __future__ import annotations

from typing import Any

SOURCES = {
    "profile": "from the supplier's profile",
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


def routes_on(review_on: tuple[str, ...], summary: dict[str, Any]) -> tuple[str, ...]:
    """The detectors that sent this document to review: `iban` only when an IBAN on it was
    judged someone else's (or none was judged, as for types without fields)."""
    ibans = [i for i in summary.get("ibans") or [] if i.get("valid")]
    sent = any(s.get("because") == "sensitive" for s in summary.get("route") or [])
    if ibans and not sent and all(i.get("owner") == "issuer" for i in ibans):
        return tuple(d for d in review_on if d != "iban")
    return review_on


def supplier_offer(summary: dict[str, Any]) -> list[str]:
    """The checked ids a fields reviewer may register the issuer with ("add this supplier"),
    as the page names them; empty when there is nothing to offer (no fields, a supplier
    matched already, or no checked id of the issuer's on the document)."""
    if summary.get("fields") is None or (summary.get("supplier") or {}).get("certain"):
        return []
    ids = [
        f"{t['kind'].upper()} {t['value']}" for t in summary.get("taxIds") or [] if t.get("valid")
    ]
    ibans = [
        f"IBAN {i['iban']}"
        for i in summary.get("ibans") or []
        if i.get("valid") and i.get("owner") == "issuer"
    ]
    return [*ids, *ibans]


def supplier_lines(summary: dict[str, Any]) -> list[str]:
    lines = []
    supplier = summary.get("supplier") or {}
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
    elif summary.get("fields") is not None and summary.get("taxIds"):
        found = ", ".join(f"{t['kind']} {t['value']}" for t in summary["taxIds"] if t.get("valid"))
        if found:
            lines.append(f"No registered supplier has these ids: {found}.")
    for iban in summary.get("ibans") or []:
        whose = "the issuer's" if iban.get("owner") == "issuer" else "not the issuer's"
        why = _WHY.get(str(iban.get("why")), str(iban.get("why")))
        lines.append(f"IBAN {iban.get('iban')} on page {iban.get('page')}: {whose} ({why}).")
    return [*lines, *bank_lines(summary.get("bank"))]


def _evidence(supplier: dict[str, Any]) -> str:
    """`; evidence: vat, name, fingerprint` (what points to the supplier), or ""."""
    said = [str(e) for e in supplier.get("evidence") or []]
    return f"; evidence: {', '.join(said)}" if said else ""


def account(shown: dict[str, Any]) -> str:
    """`DE•••• 3000 (Commerzbank, COBADEFFXXX)`: masked, with its bank where known."""
    bank = ", ".join(str(shown[k]) for k in ("bank", "bic") if shown.get(k))
    return f"{shown.get('iban')}" + (f" ({bank})" if bank else "")


def bank_lines(bank: dict[str, Any] | None) -> list[str]:
    """The bank-details check in sentences: the printed payee accounts beside the registered
    ones, so a person compares them without seeing a whole account number."""
    if not bank:
        return []
    lines = []
    if bank.get("message"):
        lines.append(f"Bank details: {bank['message']}.")
    for printed in bank.get("printed") or []:
        if printed.get("holder"):
            state = f"registered for another supplier, {printed['holder']}"
        elif printed.get("registered"):
            state = "registered for this supplier"
        else:
            state = "not registered for this supplier"
        lines.append(f"Pay to (printed): {account(printed)}, {state}.")
    if bank.get("supplierId"):
        registered = [account(r) for r in bank.get("registered") or []]
        lines.append(f"Registered accounts: {', '.join(registered) or 'none'}.")
    return lines
