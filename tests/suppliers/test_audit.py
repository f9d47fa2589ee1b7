"""Issue 43 item 3, the audit's rules: which documents read on a learned profile a person
checks anyway (deterministic by document id: the first N after a field became trusted, then a
share), the ledger's counts (a step that runs twice counts once), and `docflow audit --json`
with its interval (statsmodels' Wilson interval), through moto; and the trust rule itself:
one review does not make a profile field decide, two agreeing ones do."""

from __future__ import annotations

import json
import threading

import pytest
from statsmodels.stats.proportion import proportion_confint

from docflow.cli import main
from docflow.document import DocumentSummary
from docflow.extract.base import PageInput
from docflow.extract.rules_engine.layout import from_text
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from docflow.suppliers import audit, profile
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.hook import consult
from docflow.suppliers.route import audit_decision, learning_due
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_VAT
from tests.support.aws import Stack

PAGE = f"""Blauwal Hafenlogistik GmbH
USt-IdNr.: {BLAUWAL_VAT}
RECHNUNG
Belegkennung: E2026000000017
Gesamtbetrag: 1.190,00 EUR"""
ENTRY = {"label": "Belegkennung", "region": [0, 0, 1, 1], "page": 1, "shape": r"E\d{13}"}


def test_a_field_decides_only_after_two_agreeing_reviews() -> None:
    one = profile.updated({}, "run-1", {"invoice_number": ENTRY}, {})
    assert one is not None
    assert not profile.trusted(one["fields"]["invoice_number"], 2)
    assert profile.trusted(one["fields"]["invoice_number"], 1)
    two = profile.updated(one, "run-2", {"invoice_number": ENTRY}, {})
    assert two is not None and profile.trusted(two["fields"]["invoice_number"], 2)
    # A review that finds the field after another label starts the count again.
    elsewhere = {**ENTRY, "label": "Rechnungsnummer"}
    moved = profile.updated(two, "run-3", {"invoice_number": elsewhere}, {})
    assert moved is not None
    entry = moved["fields"]["invoice_number"]
    assert entry["confirmed"] == 1 and entry["since"] == "run-3"
    assert not profile.trusted(entry, 2)
    # A miss confirms nothing.
    missed = profile.updated(two, "run-4", {"invoice_number": None}, {"invoice_number": "miss"})
    assert missed is not None and missed["fields"]["invoice_number"]["confirmed"] == 2


def test_an_untrusted_profile_field_gives_no_value_and_no_confidence(stack: Stack) -> None:
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    learned = profile.learn_entry([from_text(1, PAGE)], "invoice_number", "E2026000000017")
    once = profile.updated({}, "run-1", {"invoice_number": learned}, {})
    assert once is not None
    store.update_profile("blauwal", lambda p: once)
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    same = {"value": "E2026000000017", "confidence": 0.7, "page": 1, "box": None}
    out = consult(store, [page], {"invoice_number": same}, ["invoice_number"])  # the default: 2
    # One review adds no confidence to the rules' reading, and fills nothing alone.
    assert out.fields["invoice_number"] == same and not out.checks
    assert out.shown["profileFields"] == []
    assert "invoice_number" not in consult(store, [page], {}, ["invoice_number"]).fields
    # It may still doubt: a rules reading it disagrees with goes to a person.
    other = {"invoice_number": {**same, "value": "RE-1", "confidence": 0.95}}
    doubted = consult(store, [page], other, ["invoice_number"])
    assert [c["code"] for c in doubted.checks] == ["profile-disagrees"]
    twice = profile.updated(once, "run-2", {"invoice_number": learned}, {})
    assert twice is not None
    store.update_profile("blauwal", lambda p: twice)
    read = consult(store, [page], {}, ["invoice_number"])
    assert read.fields["invoice_number"]["source"] == "profile"
    assert read.shown["profileFields"] == ["invoice_number"]


def routed(name: str, because: str) -> RoutedStage:
    return RoutedStage(Stage(name, ("ap@x",), 3600, 0), because)


def test_a_review_that_changed_the_vendor_or_passed_a_bank_check_teaches_nothing() -> None:
    fields_stage = [routed("fields", "fields")]
    approved = [{"stageName": "fields", "decision": "approved", "reviewer": "ap@x"}]
    typed = {"invoice_number": {"value": "E1", "original": None, "correctedBy": "ap"}}
    found = {"docType": "invoice", "supplier": {"supplierId": "blauwal", "certain": True}}
    summary = DocumentSummary.from_json({**found, "fields": typed})
    assert learning_due(summary, fields_stage, approved)
    vendor = {"value": "Evil Trading Ltd", "original": "Blauwal", "correctedBy": "ap"}
    renamed = DocumentSummary.from_json({**found, "fields": {**typed, "vendor_name": vendor}})
    assert not learning_due(renamed, fields_stage, approved)
    bank = [*fields_stage, routed("bank-details", "bank-details")]
    assert not learning_due(summary, bank, [*approved, {"stageName": "bank-details"}])
    # An approved audit teaches, and says who approved it.
    audited = [routed("audit", "audit")]
    said = [{"stageName": "audit", "decision": "approved", "reviewer": "c@x", "decidedAt": "t"}]
    assert learning_due(summary, audited, said)
    assert audit_decision(audited, said) == {"decidedBy": "c@x", "decidedAt": "t"}
    assert audit_decision(fields_stage, approved) is None


def test_the_sample_is_deterministic_by_document_id_and_takes_the_first_after_trust() -> None:
    ids = [f"d-{i:05d}" for i in range(4000)]
    picked = [d for d in ids if audit.by_rate(d, 0.05)]
    assert picked == [d for d in ids if audit.by_rate(d, 0.05)]  # the same every time
    assert 0.04 < len(picked) / len(ids) < 0.06
    assert not any(audit.by_rate(d, 0.0) for d in ids) and all(audit.by_rate(d, 1.0) for d in ids)
    never = next(d for d in ids if not audit.by_rate(d, 0.05))
    ledger: dict = {}
    answers = []
    for n in range(5):
        new, why = audit.with_sample(ledger, f"run-{n}", never, {"invoice_number": "r1"}, 3, 0.05)
        assert new is not None
        ledger = new
        answers.append(why)
    assert answers == ["first", "first", "first", "", ""]
    assert ledger["sampled"] == 3 and ledger["unreviewed"] == 2
    # The same run again counts nothing and answers as it did.
    again, why = audit.with_sample(ledger, "run-0", never, {"invoice_number": "r1"}, 3, 0.05)
    assert again is None and why == "first"
    # The field trusted anew (another streak): its first three are audited again.
    _, why = audit.with_sample(ledger, "run-9", never, {"invoice_number": "r7"}, 3, 0.05)
    assert why == "first"
    one = next(d for d in ids if audit.by_rate(d, 0.05))
    _, why = audit.with_sample(ledger, "run-8", one, {"invoice_number": "r1"}, 3, 0.05)
    assert why == "rate"


def test_documents_of_one_supplier_sampled_at_once_all_count(stack: Stack) -> None:
    ledger = audit.AuditLedger(load_settings().supplier_table)
    barrier = threading.Barrier(4)

    def sample(n: int) -> None:
        barrier.wait()
        ledger.sample("blauwal", f"run-{n}", f"d-{n}", {"invoice_number": "r1"}, 0, 0.0)

    threads = [threading.Thread(target=sample, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    found = ledger.get("blauwal")
    assert found["unreviewed"] == 4 and found["fields"]["invoice_number"]["count"] == 4
    assert found["version"] == 4


def test_docflow_audit_json_counts_and_gives_wilsons_interval(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    ledger = audit.AuditLedger(load_settings().supplier_table)
    epochs = {"invoice_number": "r1", "invoice_date": "r1"}
    for n in range(40):
        ledger.sample("blauwal", f"run-{n}", f"d-{n}", epochs, 3, 0.05)
    ledger.sample("blauwal", "run-0", "d-0", epochs, 3, 0.05)  # a step run twice
    for n in range(3):
        missed = ["invoice_date"] if n == 0 else []
        outcome = {"documentId": f"d-{n}", "fields": sorted(epochs), "misses": missed}
        ledger.record("blauwal", f"run-{n}", {**outcome, "decidedBy": "c@x", "at": "t"})
    ledger.record("blauwal", "run-0", {"documentId": "d-0", "fields": [], "misses": []})
    ledger.sample("other", "run-x", "d-x", {"po_number": "r2"}, 0, 0.0)
    assert main(["audit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"suppliers", "overall", "confidence", "method"}
    (blauwal, other) = out["suppliers"]
    assert blauwal["supplierId"] == "blauwal" and blauwal["name"] == "Blauwal Hafenlogistik GmbH"
    assert other["name"] is None and other["wrongShare"] is None
    sampled = blauwal["sampled"]
    assert sampled >= 3 and blauwal["unreviewed"] == 40 - sampled
    assert blauwal["unreviewedValues"] == 2 * (40 - sampled)
    assert (blauwal["audited"], blauwal["valuesAudited"], blauwal["misses"]) == (3, 6, 1)
    assert blauwal["documentsWithMiss"] == 1
    low, high = proportion_confint(1, 6, alpha=0.05, method="wilson")
    assert blauwal["wrongShare"] == pytest.approx({"share": 1 / 6, "low": low, "high": high})
    n = blauwal["unreviewedValues"]
    assert blauwal["expectedWrongValues"]["high"] == pytest.approx(round(high * n, 2))
    overall = out["overall"]
    assert overall["unreviewed"] == blauwal["unreviewed"] + 1 and overall["misses"] == 1
    assert overall["wrongShare"] == blauwal["wrongShare"]
    assert main(["audit"]) == 0
    assert "blauwal" in capsys.readouterr().out


def test_the_audit_page_says_why_it_is_there() -> None:
    from docflow.review.web.pages import _why

    said = _why("audit", "invoice", [])
    assert "learned profile" in said and "check every value" in said


def test_a_ledger_out_of_reach_sends_the_document_to_the_audit(
    stack: Stack, shipped_rules: None
) -> None:
    """The registry's table gone: the step retries, and on its last attempt the document
    waits at the audit stage rather than failing or going through uncounted."""
    from docflow import aws
    from docflow.pipeline.audit import SAMPLE, sample_for_audit

    class LastAttempt:
        attempt = SAMPLE.attempts

        class logger:
            @staticmethod
            def info(*_: object, **__: object) -> None: ...

            @staticmethod
            def warning(*_: object, **__: object) -> None: ...

    aws.client("dynamodb").delete_table(TableName=load_settings().supplier_table)
    doc = stack.upload("in/any.pdf", b"%PDF-1.4")
    summary = DocumentSummary(
        "invoice", supplier={"supplierId": "blauwal", "certain": True}, profile_fields=("x",)
    )
    (stage,) = sample_for_audit(doc, summary)(LastAttempt())  # type: ignore[arg-type]
    assert stage["name"] == "audit" and stage["because"] == "audit"
    first = type("First", (LastAttempt,), {"attempt": 1})
    with pytest.raises(Exception, match=r"ResourceNotFound|not found|does not exist"):
        sample_for_audit(doc, summary)(first())  # type: ignore[arg-type]
