"""Issues 47 and 59 through the real handler (durable testing runner, moto, the shipped rules
with the audit off): a made-up supplier whose VAT id fails its checksum and whose number label
the rules do not know. Its first two invoices are corrected by a person; from them docflow
learns its layout and where it prints its number (the second review grading the layout's
shadow read); the third is recognized by its layout and finalizes with no person, registered
supplier or not. The layout makes it known for reading, never for paying: the next one with a
new IBAN waits at bank-details, and one whose total does not reconcile goes to review. Two
documents of another layout printing only a registered supplier's name, approved by one
careless reviewer, change nothing in that supplier's established layout."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docflow.suppliers import trust
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.layouts import Layout
from tests.suppliers.layouts import store as layouts
from tests.suppliers.papers import BLAUWAL_IBAN, KRANICH, german, kranich_invoice, paper
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
    assert out["supplier"]["by"] == "name" and not out["supplier"]["certain"]
    assert out["layout"]["status"] == "matched"  # the second: its layout, not yet trusted
    (learned,) = layouts().all()
    entry = learned.profile["fields"]["invoice_number"]
    assert (entry["label"], entry["confirmed"]) == ("Belegnr. intern", 2), entry
    assert entry["graded"]["hits"] == 1
    assert len(learned.fingerprint) >= 4 and learned.issuer == KRANICH
    # Matched by its name only: the layout is not linked to the registered supplier.
    assert learned.supplier_id == ""

    # The third: recognized by its layout, the number read where it is printed.
    third, waited, _ = run_reviewed(stack, kranich_invoice("KD-2026-0419"), "in/third.pdf")
    assert waited == [] and third["status"] == "finalized", third
    assert third["layout"]["layoutId"] == learned.layout_id
    assert third["supplier"]["by"] == "name"
    number = third["fields"]["invoice_number"]
    assert (number["value"], number["source"]) == ("KD-2026-0419", "profile")
    assert third["fields"]["vendor_name"]["value"] == KRANICH
    assert third["bank"]["verdict"] == "no-payee"

    # Known for reading, not for paying: a new account on the same layout waits for treasury.
    forged, waited, _ = run_reviewed(
        stack, kranich_invoice("KD-2026-0420", iban=ATTACKER_IBAN), "in/forged.pdf", [correct]
    )
    assert [w["stageName"] for w in waited] == ["bank-details"], forged
    assert forged["layout"]["status"] == "matched"
    assert forged["bank"]["verdict"] == "unregistered"

    # A profile read whose total does not reconcile goes to a person.
    odd, waited, _ = run_reviewed(
        stack, kranich_invoice("KD-2026-0421", total="1.290,00"), "in/odd.pdf", [correct]
    )
    assert [w["stageName"] for w in waited] == ["fields"], odd
    codes = {c["code"] for c in waited[0]["fieldChecks"]}
    assert "amounts-disagree" in codes, codes


def test_an_unregistered_supplier_is_read_on_its_layout_after_two_reviews(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    """Reading is learned per layout: no supplier registered at all (before, learning waited
    for a registration that rarely came, and every invoice went to a person)."""
    use_rules(min_confirmations=2, rate=0.0)
    correct = {"approved": True, "reviewer": "ap@example.com"}
    for number in ("KD-2026-0417", "KD-2026-0418"):
        answer = {**correct, "corrections": {"invoice_number": number}}
        _, waited, _ = run_reviewed(stack, kranich_invoice(number), f"in/{number}.pdf", [answer])
        assert [w["stageName"] for w in waited] == ["fields"]
    third, waited, _ = run_reviewed(stack, kranich_invoice("KD-2026-0419"), "in/third.pdf")
    assert waited == [] and third["status"] == "finalized", third
    assert third["supplier"] == {"status": "unknown"}
    assert third["fields"]["invoice_number"]["value"] == "KD-2026-0419"
    assert third["fields"]["invoice_number"]["source"] == "profile"


def _impostor(number: str) -> bytes:
    """Another layout altogether that prints a registered supplier's name and nothing else of
    it (no id, no account)."""
    return paper(
        [
            KRANICH,
            "Postfach 99, 01067 Dresden",
            "",
            "Invoice",
            f"No. {number}",
            "Consulting services            1.000,00 EUR",
            f"Total {german(119_000)} EUR",
        ]
    )


def test_name_only_documents_change_nothing_in_an_established_layout(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    """An attacker's two documents print only a registered supplier's name, on another
    layout, and one careless reviewer approves them. Before, they replaced that supplier's
    profile (confirmed nine times) and shrank its fingerprint; now they teach a layout of
    their own, and the established one (its number read right by five graded reads or more)
    is as it was."""
    # Every document read on a trusted layout audited: each audit grades the layout's read.
    use_rules(min_confirmations=2, rate=1.0)
    import_suppliers(registry(), REGISTRY)
    correct = {"approved": True, "reviewer": "ap@example.com"}
    for n in range(7):  # the real supplier's invoices: two reviews, then five audits
        number = f"KD-2026-04{n + 10}"
        answer = {**correct, "corrections": {"invoice_number": number}}
        decisions = [answer] if n < 2 else [{**correct, "reviewer": "controller@example.com"}]
        _, waited, _ = run_reviewed(stack, kranich_invoice(number), f"in/k{n}.pdf", decisions)
        assert [w["stageName"] for w in waited] == (["fields"] if n < 2 else ["audit"])
    (established,) = layouts().all()
    graded = established.profile["fields"]["invoice_number"]["graded"]
    assert graded["hits"] >= trust.ESTABLISHED and graded["misses"] == 0, graded
    careless = {**correct, "reviewer": "careless@example.com"}
    for n in range(2):
        fake = _impostor(f"X-{n}")
        run_reviewed(stack, fake, f"in/fake{n}.pdf", [{**careless, "corrections": {}}])
    after = layouts().get(established.layout_id)
    assert after is not None
    assert after.profile["fields"] == established.profile["fields"]
    assert after.fingerprint == established.fingerprint and after.version == established.version
    others = [x for x in layouts().all() if x.layout_id != established.layout_id]
    assert len(others) == 1 and isinstance(others[0], Layout)
