"""Issues 28, 43 and 59 through the real handler (durable testing runner, moto, the shipped
rules): a made-up supplier whose invoice-number label the rules do not know. Its first two
invoices wait for a person, who types the number: the first review teaches its layout, the
second grades the layout's shadow read (a hit) and makes the field trusted; the third is read
on the layout and goes through; a fourth with the number moved waits again. A second review
whose person finds the shadow read wrong leaves the field untrusted. Two audit corrections
suspend the field; a review that renamed the vendor teaches nothing. A checked VAT id names
the supplier over a wrong printed name; an IBAN one digit off matches nothing."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aws_durable_execution_sdk_python.serdes import EXTENDED_TYPES_SERDES

from docflow.cli import main
from docflow.settings import load_settings
from docflow.suppliers.audit import AuditLedger
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.layouts import Layout
from tests.suppliers.layouts import store as layouts
from tests.suppliers.papers import BAD_IBAN, BLAUWAL_IBAN, BLAUWAL_VAT, blauwal_invoice
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry, run_reviewed

REGISTRY = (
    "id,name,vat,iban,currency\n"
    f"blauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT},{BLAUWAL_IBAN},EUR\n"
)


def _only_layout() -> Layout:
    (layout,) = layouts().all()
    return layout


def test_one_review_does_not_make_a_profile_trusted_two_do(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    use_rules(min_confirmations=2, rate=0.0)  # the sample is its own test's
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
    assert first["layout"] == {"status": "none", "language": "de"}
    assert ran.get_step("learn supplier profile") is not None
    layout = _only_layout()
    assert layout.supplier_id == "blauwal" and layout.issuer == "Blauwal Hafenlogistik GmbH"
    entry = layout.profile["fields"]["invoice_number"]
    assert entry["label"] == "Belegkennung" and entry["shape"] == r"E\d{13}"
    assert entry["confirmed"] == 1 and not entry.get("graded")
    assert (layout.doc_type, layout.language) == ("invoice", "de")

    # The second: the layout reads it before the person does (a shadow read, not shown); the
    # person types the same number: a graded hit. One review was only what it was told.
    number = "E2026000000018"
    second, waited, _ = run_reviewed(
        stack, blauwal_invoice(number), "in/second.pdf", [typed(number)]
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    assert ("invoice_number", "missing") in {
        (c["field"], c["code"]) for c in waited[0]["fieldChecks"]
    }
    assert not second.get("profileFields") and "shadow" not in second
    assert second["layout"]["layoutId"] == layout.layout_id
    again = _only_layout().profile["fields"]["invoice_number"]
    assert again["confirmed"] == 2 and again["graded"]["hits"] == 1
    assert again["graded"]["last"] == "hit" and again["reviewers"] == ["ap@example.com"]
    ledger = AuditLedger(load_settings().supplier_table).get(layout.layout_id)
    assert ledger["graded"] == 1 and ledger["gradedMisses"] == 0

    # Trusted: the layout reads the next one, which no rule sends to a person and the audit
    # (at rate 0 here) does not sample: it finalizes with no person.
    third, waited, ran = run_reviewed(stack, blauwal_invoice("E2026000000019"), "in/third.pdf")
    assert waited == [] and third["status"] == "finalized"
    assert third["fields"]["invoice_number"]["value"] == "E2026000000019"
    assert third["fields"]["invoice_number"]["source"] == "profile"
    assert "invoice_number" in third["profileFields"]
    assert ran.get_step("audit sample") is not None
    ledger = AuditLedger(load_settings().supplier_table).get(layout.layout_id)
    read = len(third["profileFields"])
    assert (ledger["sampled"], ledger["unreviewed"], ledger["unreviewedValues"]) == (0, 1, read)

    # The number moved: the layout does not read it, and a person does.
    fourth, waited, _ = run_reviewed(
        stack, blauwal_invoice("E2026000000020", moved=True), "in/fourth.pdf", [correct]
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    assert "source" not in (fourth["fields"].get("invoice_number") or {})


def test_a_shadow_read_the_second_review_found_wrong_is_not_trusted(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    """The second reviewer says the number after `Belegkennung` is not the invoice's: the
    layout's shadow read is a miss, the field is confirmed by no hit and stays untrusted, so
    the third invoice is read by a person again (it went through on the old rule: two reviews
    that located the field made it trusted)."""
    use_rules(min_confirmations=2, rate=0.0)
    import_suppliers(registry(), REGISTRY)
    correct = {"approved": True, "reviewer": "ap@example.com"}
    first = "E2026000000017"
    run_reviewed(
        stack,
        blauwal_invoice(first),
        "in/first.pdf",
        [{**correct, "corrections": {"invoice_number": first}}],
    )
    # The page prints E…18 after the label; the person types another number.
    _, waited, _ = run_reviewed(
        stack,
        blauwal_invoice("E2026000000018"),
        "in/second.pdf",
        [{**correct, "corrections": {"invoice_number": "E2026000000099"}}],
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    entry = _only_layout().profile["fields"]["invoice_number"]
    assert entry["graded"] == {**entry["graded"], "hits": 0, "misses": 1, "last": "miss"}
    third, waited, _ = run_reviewed(
        stack, blauwal_invoice("E2026000000019"), "in/third.pdf", [correct]
    )
    assert [w["stageName"] for w in waited] == ["fields"]
    assert "invoice_number" not in (third.get("profileFields") or [])


def test_two_audit_corrections_suspend_the_profile_field(
    stack: Stack,
    use_rules: Callable[..., None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One review trusts the field here (the rule's own test is above); every document read
    on it is audited. The auditor corrects the value the profile read twice: two misses."""
    use_rules(min_confirmations=1, rate=1.0)
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
        entry = _only_layout().profile["fields"]["invoice_number"]
        assert (entry["misses"], entry["suspended"]) == (index + 1, index == 1)
    ledger = AuditLedger(load_settings().supplier_table).get(_only_layout().layout_id)
    assert (ledger["audited"], ledger["misses"], ledger["documentsWithMiss"]) == (2, 2, 2)
    assert [o["misses"] for o in ledger["outcomes"]] == [["invoice_number"]] * 2
    assert {o["decidedBy"] for o in ledger["outcomes"]} == {"controller@example.com"}
    # Suspended: the profile reads nothing, a person reads the number.
    _, waited, _ = run_reviewed(stack, blauwal_invoice("E2026000000021"), "in/after.pdf", [correct])
    assert [w["stageName"] for w in waited] == ["fields"]
    # An operator resets it (`docflow suppliers profile reset`): it learns anew; once only.
    layout_id = _only_layout().layout_id
    reset = ["suppliers", "profile", "reset", layout_id, "invoice_number", "--json"]
    capsys.readouterr()
    assert main(reset) == 0
    said = json.loads(capsys.readouterr().out)
    assert (said["layoutId"], said["field"], said["reset"]) == (layout_id, "invoice_number", True)
    assert said["by"] and "invoice_number" not in _only_layout().profile["fields"]
    assert main(reset) == 4 and json.loads(capsys.readouterr().out)["reset"] is False


def test_an_established_field_a_review_disagrees_with_is_suspended_and_the_operators_told(
    stack: Stack, use_rules: Callable[..., None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Five audits grade the layout's number read right; then a reviewer takes another number
    printed under another label. An established record is not replaced by one review: the
    field is suspended, and the learn step counts it for the operators' alarm
    (`LayoutFieldsSuspended`, template.yaml), once."""
    metrics = tmp_path / "metrics.jsonl"
    monkeypatch.setenv("DOCFLOW_METRICS_FILE", str(metrics))
    use_rules(min_confirmations=1, rate=1.0)
    import_suppliers(registry(), REGISTRY)
    correct = {"approved": True, "reviewer": "ap@example.com"}
    first = {**correct, "corrections": {"invoice_number": "E2026000000010"}}
    run_reviewed(stack, blauwal_invoice("E2026000000010"), "in/first.pdf", [first])
    for n in range(11, 16):  # audited, approved as read: graded hits
        number = f"E20260000000{n}"
        _, waited, _ = run_reviewed(stack, blauwal_invoice(number), f"in/{n}.pdf", [correct])
        assert [w["stageName"] for w in waited] == ["audit"]
    entry = _only_layout().profile["fields"]["invoice_number"]
    assert entry["graded"]["hits"] >= 5 and not entry["suspended"], entry
    other = {**correct, "corrections": {"invoice_number": "RN-2026-77"}}
    page = blauwal_invoice("E2026000000016", extra=["Rechnungsnummer: RN-2026-77"])
    _, _, ran = run_reviewed(stack, page, "in/other.pdf", [other])
    learned = EXTENDED_TYPES_SERDES.deserialize(ran.get_step("learn supplier profile").result)
    assert learned["suspended"] == ["invoice_number"]
    entry = _only_layout().profile["fields"]["invoice_number"]
    assert entry["suspended"] and entry["label"] == "Belegkennung", entry
    points = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert [p["value"] for p in points if p["name"] == "LayoutFieldsSuspended"] == [1]


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
    assert layouts().all() == []


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


def test_two_reviews_of_one_layout_learning_at_once_lose_neither(
    stack: Stack, shipped_rules: None
) -> None:
    """Two approved reviews of one layout's invoices run their learn steps at the same moment
    (the step bodies, on two threads): both land, neither overwrites the other."""
    from docflow.pipeline.learn import Lesson, learn_supplier
    from docflow.pipeline.read_batch import read_page_batch
    from docflow.pipeline.split import split_document
    from tests.suppliers.layouts import put_layout

    taught = put_layout(
        "\n".join(
            [
                "Blauwal Hafenlogistik GmbH",
                "Kaiweg 12, 20457 Hamburg",
                f"USt-IdNr.: {BLAUWAL_VAT}",
                "RECHNUNG",
                "Gesamtbetrag: 1.190,00 EUR",
            ]
        ),
        "Blauwal Hafenlogistik GmbH",
    )
    runs = []
    for index, number in enumerate(("E2026000000017", "E2026000000018")):
        doc = stack.upload(f"in/race-{index}.pdf", blauwal_invoice(number))
        split = split_document(doc)(_Step())
        for batch, (first, last) in enumerate(split.batches):
            read_page_batch(doc, batch, first, last)(_Step())
        lesson = Lesson(
            layout_id=taught.layout_id,
            supplier_id="",
            doc_type="invoice",
            values={"invoice_number": number, "total_amount": "1190.00"},
            shadow={},
            reviewers=("ap@example.com",),
        )
        runs.append((doc, lesson, split.plan))
    barrier = threading.Barrier(len(runs))
    answers: list[dict[str, Any]] = []

    def learn(doc: Any, lesson: Lesson, plan: list[list[int]]) -> None:
        barrier.wait()
        answers.append(learn_supplier(doc, lesson, plan)(_Step()))

    threads = [threading.Thread(target=learn, args=run) for run in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a["profileVersion"] for a in answers) == [2, 3]
    learned = layouts().get(taught.layout_id)
    assert learned is not None and learned.version == 3
    assert sorted(learned.profile["runs"]) == sorted(doc.run_id for doc, _s, _p in runs)
    assert learned.profile["fields"]["invoice_number"]["confirmed"] == 2
    # The same step again (a retry after a crash) learns nothing twice.
    doc, lesson, plan = runs[0]
    learn_supplier(doc, lesson, plan)(_Step())
    again = layouts().get(taught.layout_id)
    assert again is not None and again.version == 3
