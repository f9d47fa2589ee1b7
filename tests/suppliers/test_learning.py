"""Issue 28 parts 2 and 3 through the real handler (durable testing runner, moto, the shipped
rules): a made-up supplier whose invoice-number label the rules do not know. Its first invoice
waits for a person, who types the number; the profile learned from that review reads the
second invoice, which finalizes with no review and the right number; a third with the number
moved waits again. A checked VAT id names the supplier over a wrong printed name; an IBAN one
digit off matches nothing."""

from __future__ import annotations

import threading
from typing import Any

from docflow.settings import load_settings
from docflow.suppliers.csv_import import import_suppliers
from tests.suppliers.papers import BAD_IBAN, BLAUWAL_IBAN, BLAUWAL_VAT, blauwal_invoice
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry, run_reviewed

REGISTRY = (
    "id,name,vat,iban,currency\n"
    f"blauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT},{BLAUWAL_IBAN},EUR\n"
)


def test_a_supplier_learned_from_one_review_goes_straight_through_next_time(
    stack: Stack, shipped_rules: None
) -> None:
    import_suppliers(registry(), REGISTRY)
    number = "E2026000000017"
    correct = {"approved": True, "reviewer": "ap@example.com"}
    first, waited, ran = run_reviewed(
        stack,
        blauwal_invoice(number),
        "in/first.pdf",
        [{**correct, "corrections": {"invoice_number": number}}],
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

    second, waited, ran = run_reviewed(stack, blauwal_invoice("E2026000000018"), "in/second.pdf")
    assert waited == [] and second["status"] == "finalized"
    assert second["fields"]["invoice_number"]["value"] == "E2026000000018"
    assert second["fields"]["invoice_number"]["source"] == "profile"
    assert "invoice_number" in second["profileFields"]
    # No review, nothing to learn: the step is not there.
    names = {op.name for op in ran.get_all_operations()}
    assert "learn supplier profile" not in names

    third, waited, _ = run_reviewed(
        stack, blauwal_invoice("E2026000000019", moved=True), "in/third.pdf", [correct]
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    assert "source" not in (third["fields"].get("invoice_number") or {})


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
        summary = {
            "docType": "invoice",
            "supplier": {"supplierId": "blauwal", "certain": True},
            "fields": {
                "invoice_number": {"value": number, "original": None, "correctedBy": "ap"},
                "total_amount": {"value": "1190.00"},
            },
        }
        runs.append((doc, summary, split.plan))
    barrier = threading.Barrier(len(runs))
    answers: list[dict[str, Any]] = []

    def learn(doc: Any, summary: dict[str, Any], plan: list[list[int]]) -> None:
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
