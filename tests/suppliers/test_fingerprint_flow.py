"""Issue 47 through the real handler (durable testing runner, moto, the shipped rules with
the audit off): a made-up supplier registered by name and bank account only (its invoices
print no account: it is paid by the registry's), whose VAT id fails its checksum and whose
number label the rules do not know. Its first two invoices
are matched by name and corrected by a person; from them docflow learns its layout and
where it prints its number; the third is recognized by its fingerprint and finalizes with
no person. The fingerprint makes it known for reading, never for paying: the next one with a
new IBAN waits at bank-details, and one whose total does not reconcile goes to review."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docflow.suppliers.csv_import import import_suppliers
from tests.suppliers.papers import BLAUWAL_IBAN, KRANICH, kranich_invoice
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry, run_reviewed

ATTACKER_IBAN = "GB82 WEST 1234 5698 7654 32"
REGISTRY = f"id,name,iban,currency\nkranich,{KRANICH},{BLAUWAL_IBAN},EUR\n"


def test_a_supplier_known_by_its_layout_reads_but_is_not_paid_on_it(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    use_rules(min_confirmations=2, rate=0.0)
    import_suppliers(registry(), REGISTRY)
    correct = {"approved": True, "reviewer": "ap@example.com"}

    def typed(number: str) -> dict[str, Any]:
        return {**correct, "corrections": {"invoice_number": number}}

    for number in ("KD-2026-0417", "KD-2026-0418"):
        out, waited, ran = run_reviewed(
            stack, kranich_invoice(number), f"in/{number}.pdf", [typed(number)]
        )
        assert [w["stageName"] for w in waited] == ["fields"], out
        assert ran.get_step("learn supplier profile") is not None
    first_by = out["supplier"]["by"]  # the second: by its layout already (not yet trusted)
    assert first_by in ("fingerprint", "name")
    learned = registry().get("kranich")
    assert learned is not None
    entry = learned.profile["fields"]["invoice_number"]
    assert (entry["label"], entry["confirmed"]) == ("Belegnr. intern", 2), entry
    assert len(learned.profile["fingerprint"]) >= 4

    # The third: recognized by its layout and its name, the number read where it is printed.
    third, waited, _ = run_reviewed(stack, kranich_invoice("KD-2026-0419"), "in/third.pdf")
    assert waited == [] and third["status"] == "finalized", third
    supplier = third["supplier"]
    assert (supplier["by"], supplier["certain"]) == ("fingerprint", True)
    assert {"fingerprint", "name"} <= set(supplier["evidence"]) and "vat" not in supplier[
        "evidence"
    ]
    number = third["fields"]["invoice_number"]
    assert (number["value"], number["source"]) == ("KD-2026-0419", "profile")
    assert third["bank"]["verdict"] == "no-payee"

    # Known for reading, not for paying: a new account on the same layout waits for treasury.
    forged, waited, _ = run_reviewed(
        stack, kranich_invoice("KD-2026-0420", iban=ATTACKER_IBAN), "in/forged.pdf", [correct]
    )
    assert [w["stageName"] for w in waited] == ["bank-details"], forged
    assert forged["supplier"]["by"] == "fingerprint"
    assert forged["bank"]["verdict"] == "unregistered"

    # A profile read whose total does not reconcile goes to a person.
    odd, waited, _ = run_reviewed(
        stack, kranich_invoice("KD-2026-0421", total="1.290,00"), "in/odd.pdf", [correct]
    )
    assert [w["stageName"] for w in waited] == ["fields"], odd
    codes = {c["code"] for c in waited[0]["fieldChecks"]}
    assert "amounts-disagree" in codes, codes
