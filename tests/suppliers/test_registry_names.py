"""Issue 59 item 4: the registry decides whom docflow may pay, never what a page says. A supplier
registered under a name its invoices' reviewers never confirmed (an operator approved a
proposal's printed contact person, say) does not rename the next invoice of the layout those
reviewers taught, nor is the invoice read on that layout as if the two were one: a person sees
both names and says which. Through the real handler (durable testing runner, moto)."""

from __future__ import annotations

from collections.abc import Callable

from docflow.suppliers.csv_import import import_suppliers
from tests.suppliers.papers import BLAUWAL_IBAN, KRANICH, kranich_invoice
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry, run_reviewed

CONTACT = "de Lattre Alexis"


def test_a_registered_name_never_overrides_the_name_reviewers_confirmed(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    use_rules(min_confirmations=2, rate=0.0)
    correct = {"approved": True, "reviewer": "ap@example.com"}
    for number in ("KD-2026-0417", "KD-2026-0418"):
        answer = {**correct, "corrections": {"invoice_number": number}}
        page = kranich_invoice(number, iban=BLAUWAL_IBAN)
        out, _, _ = run_reviewed(stack, page, f"in/{number}.pdf", [answer])
        assert out["fields"]["vendor_name"]["value"] == KRANICH
    # Registered afterwards under the other name, its account the one the invoices print.
    import_suppliers(registry(), f"id,name,iban,currency\nkranich,{CONTACT},{BLAUWAL_IBAN},EUR\n")

    page = kranich_invoice("KD-2026-0419", iban=BLAUWAL_IBAN)
    third, waited, _ = run_reviewed(stack, page, "in/third.pdf", [correct])
    assert [w["stageName"] for w in waited] == ["fields"], third
    (disagrees,) = [c for c in waited[0]["fieldChecks"] if c["code"] == "supplier-name-disagrees"]
    assert KRANICH in disagrees["message"] and CONTACT in disagrees["message"]
    # Paid to the registered account's supplier, read as the page and its reviewers have it.
    assert third["supplier"]["supplierId"] == "kranich"
    assert third["fields"]["vendor_name"]["value"] == KRANICH
    assert third["layout"]["status"] == "withheld"
