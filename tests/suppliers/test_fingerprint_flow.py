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
from tests.suppliers.papers import BLAUWAL_IBAN, paper
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry, run_reviewed

NAME = "Kranich Druck GmbH"
BAD_VAT = "DE812345670"  # fails its check digit: it names nobody
ATTACKER_IBAN = "GB82 WEST 1234 5698 7654 32"
REGISTRY = f"id,name,iban,currency\nkranich,{NAME},{BLAUWAL_IBAN},EUR\n"


def kranich_invoice(number: str, total: str = "1.190,00", iban: str = "", day: int = 0) -> bytes:
    """Its number after `Belegnr. intern` (no rule knows it); dates differ by number so two
    invoices are not one sent twice."""
    day = day or int(number[-2:]) % 28 + 1
    lines = [
        NAME,
        "Hafenstrasse 3, 20457 Hamburg",
        f"USt-IdNr.: {BAD_VAT}",
        "",
        "RECHNUNG",
        f"Belegnr. intern: {number}",
        f"Rechnungsdatum: {day:02d}.04.2026",
        "Rechnungsempfänger: Nordlicht Handel AG, Ostweg 3, 10115 Berlin",
        "",
        "Druckauftrag Broschüren                      1.000,00 EUR",
        "Nettobetrag: 1.000,00 EUR",
        "MwSt. 19%: 190,00 EUR",
        f"Gesamtbetrag: {total} EUR",
        "Zahlbar innerhalb von 14 Tagen ohne Abzug.",
    ]
    pay = f" - Bitte zahlen Sie auf IBAN {iban}" if iban else ""
    return paper(lines, [f"{NAME} - Hafenstrasse 3 - Erstellt mit FakturaPro 7{pay}"])


def test_a_supplier_known_by_its_layout_reads_but_is_not_paid_on_it(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    use_rules(min_confirmations=2, first=0, rate=0.0)
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
