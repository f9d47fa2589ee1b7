"""Issue 28 parts 2 and 3, and issue 43 item 3, through the real handler (durable testing
runner, moto, the shipped rules): a made-up supplier whose invoice-number label the rules do
not know. Its first two invoices wait for a person, who types the number: one review does not
make the profile trusted, two agreeing ones do; the third is read on the profile and, one of
the first after the field became trusted, audited; a fourth with the number moved waits
again. Two audit corrections suspend the field; a review that renamed the vendor teaches
nothing. A checked VAT id names the supplier over a wrong printed name; an IBAN one
digit off matches nothing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from docflow.document import DocumentSummary
from docflow.settings import load_settings
from docflow.suppliers.audit import AuditLedger
from docflow.suppliers.csv_import import import_suppliers
from tests.suppliers.papers import BAD_IBAN, BLAUWAL_IBAN, BLAUWAL_VAT, blauwal_invoice
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry, run_reviewed

REGISTRY = (
    "id,name,vat,iban,currency\n"
    f"blauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT},{BLAUWAL_IBAN},EUR\n"
)


def test_one_review_does_not_make_a_profile_trusted_two_do(
    stack: Stack, shipped_rules: None
) -> None:
    import_suppliers(registry(), REGISTRY)
    correct = {"approved": True, "reviewer": "ap@example.com"}

    def typed(number: str) -> dict[str, Any]:
        return {**correct, "corrections": {"invoice_number": number}}

    number = "E2026000000017"
    first, waited, ran = run_reviewed(
        stack, blauwal_invoice(number), "in/first.pdf", [typed(number)]
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    assert ("invoice_number", "missing") in {
        (c["field"], c["code"]) for c in waited[0]["fieldChecks"]
    }
    assert first["status"] == "finalized"
    assert first["supplier"]["supplierId"] == "blauwal" and first["supplier"]["by"] == "vat"
    assert ran.get_step("learn supplier profile") is not None
    learned = registry().get("blauwal")
    assert learned is not None
    entry = learned.profile["fields"]["invoice_number"]
    assert entry["label"] == "Belegkennung" and entry["shape"] == r"E\d{13}"
    assert entry["confirmed"] == 1

    # One review is one person's word: the profile decides nothing, a person reads it again.
    number = "E2026000000018"
    second, waited, _ = run_reviewed(
        stack, blauwal_invoice(number), "in/second.pdf", [typed(number)]
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    assert ("invoice_number", "missing") in {
        (c["field"], c["code"]) for c in waited[0]["fieldChecks"]
    }
    assert not second.get("profileFields")
    again = registry().get("blauwal")
    assert again is not None and again.profile["fields"]["invoice_number"]["confirmed"] == 2

    # Two agreeing reviews: the profile reads the next one, which no rule sends to a person;
    # as one of the first after the field became trusted, the audit samples it.
    third, waited, ran = run_reviewed(
        stack, blauwal_invoice("E2026000000019"), "in/third.pdf", [correct]
    )
    assert [w["stageName"] for w in waited] == ["audit"]
    assert third["status"] == "finalized"
    assert third["fields"]["invoice_number"]["value"] == "E2026000000019"
    assert third["fields"]["invoice_number"]["source"] == "profile"
    assert "invoice_number" in third["profileFields"]
    assert ran.get_step("audit sample") is not None
    ledger = AuditLedger(load_settings().supplier_table).get("blauwal")
    assert (ledger["sampled"], ledger["audited"], ledger["misses"]) == (1, 1, 0)
    assert ledger["outcomes"][0]["decidedBy"] == "ap@example.com"

    # The number moved: the profile does not read it, and a person does.
    fourth, waited, _ = run_reviewed(
        stack, blauwal_invoice("E2026000000020", moved=True), "in/fourth.pdf", [correct]
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    assert "source" not in (fourth["fields"].get("invoice_number") or {})


def test_two_audit_corrections_suspend_the_profile_field(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    """One review trusts the field here (the rule's own test is above); every document read
    on it is audited. The auditor corrects the value the profile read twice: two misses."""
    use_rules(min_confirmations=1, first=5, rate=0.0)
    import_suppliers(registry(), REGISTRY)
    number = "E2026000000017"
    correct = {"approved": True, "reviewer": "ap@example.com"}
    typed = {**correct, "corrections": {"invoice_number": number}}
    run_reviewed(stack, blauwal_invoice(number), "in/first.pdf", [typed])
    for index, printed in enumerate(("E2026000000018", "E2026000000019")):
        fixed = {**correct, "reviewer": "controller@example.com"}
        fixed["corrections"] = {"invoice_number": f"E20260000009{index}0"}
        out, waited, _ = run_reviewed(stack, blauwal_invoice(printed), f"in/a{index}.pdf", [fixed])
        assert [w["stageName"] for w in waited] == ["audit"]
        assert out["fields"]["invoice_number"]["original"] == printed
        entry = (registry().get("blauwal") or _gone()).profile["fields"]["invoice_number"]
        assert (entry["misses"], entry["suspended"]) == (index + 1, index == 1)
    ledger = AuditLedger(load_settings().supplier_table).get("blauwal")
    assert (ledger["audited"], ledger["misses"], ledger["documentsWithMiss"]) == (2, 2, 2)
    assert [o["misses"] for o in ledger["outcomes"]] == [["invoice_number"]] * 2
    assert {o["decidedBy"] for o in ledger["outcomes"]} == {"controller@example.com"}
    # Suspended: the profile reads nothing, a person reads the number.
    _, waited, _ = run_reviewed(stack, blauwal_invoice("E2026000000021"), "in/after.pdf", [correct])
    assert [w["stageName"] for w in waited] == ["fields"]


def test_a_review_that_corrected_the_vendor_teaches_nothing(
    stack: Stack, shipped_rules: None
) -> None:
    import_suppliers(registry(), REGISTRY)
    number = "E2026000000017"
    answer = {
        "approved": True,
        "reviewer": "ap@example.com",
        "corrections": {"invoice_number": number, "vendor_name": "Evil Trading Ltd"},
    }
    out, waited, ran = run_reviewed(stack, blauwal_invoice(number), "in/renamed.pdf", [answer])
    assert [w["stageName"] for w in waited] == ["fields"] and out["status"] == "finalized"
    assert out["fields"]["vendor_name"]["value"] == "Evil Trading Ltd"
    assert {op.name for op in ran.get_all_operations()} >= {"finalize"}
    assert ran.get_step("finalize") is not None
    assert "learn supplier profile" not in {op.name for op in ran.get_all_operations()}
    kept = registry().get("blauwal")
    assert kept is not None and kept.profile.get("fields") in (None, {})


def _gone() -> Any:
    raise AssertionError("the supplier is gone")


def test_a_checked_vat_id_never_replaces_the_printed_name(
    stack: Stack, shipped_rules: None
) -> None:
    """Issue 43: an id and a name must agree. The page names another issuer than the one its
    VAT id is registered to (a shared, mistyped or borrowed id): the printed name stands and a
    person sees both (it was replaced by the registry's name, silently)."""
    import_suppliers(registry(), REGISTRY)
    out, waited, _ = run_reviewed(
        stack,
        blauwal_invoice(number="RE-2026-0042", label="Rechnungsnummer", name="Blauwald Hafen KG"),
        "in/wrong-name.pdf",
        [{"approved": True, "reviewer": "ap@example.com"}],
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    vendor = out["fields"]["vendor_name"]
    assert vendor["value"] == "Blauwald Hafen KG" and "source" not in vendor
    (check,) = [c for c in out["fieldChecks"] if c["code"] == "supplier-name-disagrees"]
    assert "Blauwal Hafenlogistik GmbH" in check["message"]


def test_an_iban_with_a_bad_checksum_matches_nothing(stack: Stack, shipped_rules: None) -> None:
    # This supplier is known by its IBAN only; the invoice prints that IBAN one digit off.
    import_suppliers(registry(), f"id,name,iban\nbank-only,Bank Only GmbH,{BLAUWAL_IBAN}\n")
    good, _, _ = run_reviewed(
        stack,
        blauwal_invoice(number="RE-2026-0042", label="Rechnungsnummer", name="Bank Only GmbH"),
        "in/good-iban.pdf",
    )
    assert good["supplier"]["by"] == "iban"
    # Nobody knows its issuer: it waits at fields (approved here, not left to time out).
    bad, waited, _ = run_reviewed(
        stack,
        blauwal_invoice(
            number="RE-2026-0043", label="Rechnungsnummer", name="Xyz Q", footer_iban=BAD_IBAN
        ),
        "in/bad-iban.pdf",
        [{"approved": True, "reviewer": "ap@example.com"}],
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    assert bad["supplier"] == {"status": "unknown"}
    (iban,) = bad["ibans"]
    assert iban["valid"] is False and iban["why"] == "bad-checksum"


def test_a_registry_that_cannot_be_read_sends_the_invoice_to_a_person(
    stack: Stack, shipped_rules: None
) -> None:
    from docflow import aws

    aws.client("dynamodb").delete_table(TableName=load_settings().supplier_table)
    paper = blauwal_invoice(number="RE-2026-0042", label="Rechnungsnummer")
    out, waited, _ = run_reviewed(stack, paper, "in/no-registry.pdf", [{"approved": True}])
    assert [w["stageName"] for w in waited] == ["fields"]
    assert ("*", "registry-failed") in {(c["field"], c["code"]) for c in waited[0]["fieldChecks"]}
    assert out["status"] == "finalized"  # after the person's approval


class _Step:
    """What a step body gets from the SDK here: the first attempt and a quiet logger."""

    attempt = 1

    class logger:
        @staticmethod
        def info(*_: Any, **__: Any) -> None: ...

        @staticmethod
        def warning(*_: Any, **__: Any) -> None: ...


def test_two_reviews_of_one_supplier_learning_at_once_lose_neither(
    stack: Stack, shipped_rules: None
) -> None:
    """Two approved reviews of one supplier's invoices run their learn steps at the same
    moment (the step bodies, on two threads): both land, neither overwrites the other."""
    from docflow.pipeline.learn import learn_supplier
    from docflow.pipeline.read_batch import read_page_batch
    from docflow.pipeline.split import split_document

    import_suppliers(registry(), REGISTRY)
    runs = []
    for index, number in enumerate(("E2026000000017", "E2026000000018")):
        doc = stack.upload(f"in/race-{index}.pdf", blauwal_invoice(number))
        split = split_document(doc)(_Step())
        for batch, (first, last) in enumerate(split.batches):
            read_page_batch(doc, batch, first, last)(_Step())
        summary = DocumentSummary.from_json(
            {
                "docType": "invoice",
                "supplier": {"supplierId": "blauwal", "certain": True},
                "fields": {
                    "invoice_number": {"value": number, "original": None, "correctedBy": "ap"},
                    "total_amount": {"value": "1190.00"},
                },
            }
        )
        runs.append((doc, summary, split.plan))
    barrier = threading.Barrier(len(runs))
    answers: list[dict[str, Any]] = []

    def learn(doc: Any, summary: DocumentSummary, plan: list[list[int]]) -> None:
        barrier.wait()
        answers.append(learn_supplier(doc, summary, plan)(_Step()))

    threads = [threading.Thread(target=learn, args=run) for run in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a["profileVersion"] for a in answers) == [1, 2]
    learned = registry().get("blauwal")
    assert learned is not None and learned.profile_version == 2
    assert sorted(learned.profile["runs"]) == sorted(doc.run_id for doc, _s, _p in runs)
    assert learned.profile["fields"]["invoice_number"]["confirmed"] == 2
    # The same step again (a retry after a crash) learns nothing twice.
    doc, summary, plan = runs[0]
    learn_supplier(doc, summary, plan)(_Step())
    again = registry().get("blauwal")
    assert again is not None and again.profile_version == 2
