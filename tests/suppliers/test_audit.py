"""Issue 43 item 3, the audit's rules: which documents read on a learned profile a person
checks anyway (a share, drawn by a secret: tests/suppliers/test_audit_sample.py), the
ledger's counts (a step that runs twice counts once), and `docflow audit --json`
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
from docflow.suppliers import audit, profile, trust
from docflow.suppliers.hook import consult
from docflow.suppliers.route import audit_decision, learning_due
from docflow.suppliers.store import SupplierStore
from tests.suppliers.layouts import put_layout
from tests.suppliers.papers import BLAUWAL_VAT
from tests.support.aws import Stack

BLAUWAL = "Blauwal Hafenlogistik GmbH"
PAGE = f"""Blauwal Hafenlogistik GmbH
USt-IdNr.: {BLAUWAL_VAT}
RECHNUNG
Belegkennung: E2026000000017
Gesamtbetrag: 1.190,00 EUR"""
ENTRY = {"label": "Belegkennung", "region": [0, 0, 1, 1], "page": 1, "shape": r"E\d{13}"}


def test_a_field_decides_only_after_two_agreeing_reviews_one_finding_its_read_right() -> None:
    one = trust.updated({}, "run-1", {"invoice_number": ENTRY}, {})
    assert one is not None
    assert not trust.trusted(one["fields"]["invoice_number"], 2)
    assert trust.trusted(one["fields"]["invoice_number"], 1)
    two = trust.updated(one, "run-2", {"invoice_number": ENTRY}, {"invoice_number": "hit"})
    assert two is not None and trust.trusted(two["fields"]["invoice_number"], 2)
    # A review that finds the field after another label starts the count again.
    elsewhere = {**ENTRY, "label": "Rechnungsnummer"}
    moved = trust.updated(two, "run-3", {"invoice_number": elsewhere}, {})
    assert moved is not None
    entry = moved["fields"]["invoice_number"]
    assert entry["confirmed"] == 1 and entry["since"] == "run-3"
    assert not trust.trusted(entry, 2)
    # A miss confirms nothing.
    missed = trust.updated(two, "run-4", {"invoice_number": None}, {"invoice_number": "miss"})
    assert missed is not None and missed["fields"]["invoice_number"]["confirmed"] == 2


def test_an_untrusted_profile_field_gives_no_value_and_no_confidence(stack: Stack) -> None:
    learned = profile.learn_entry([from_text(1, PAGE)], "invoice_number", "E2026000000017")
    once = trust.updated({}, "run-1", {"invoice_number": learned}, {})
    assert once is not None
    put_layout(PAGE, BLAUWAL, once["fields"])
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    same = {"value": "E2026000000017", "confidence": 0.7, "page": 1, "box": None}
    out = consult(_store(), [page], {"invoice_number": same}, ["invoice_number"])
    # One review adds no confidence to the rules' reading, and fills nothing alone; the
    # layout's read is a shadow read, kept for the learn step to grade.
    assert out.fields["invoice_number"] == same
    assert out.shown["profileFields"] == []
    assert out.shown["shadow"]["invoice_number"] == "E2026000000017"
    assert "invoice_number" not in consult(_store(), [page], {}, ["invoice_number"]).fields
    # It may still doubt: a rules reading it disagrees with goes to a person.
    other = {"invoice_number": {**same, "value": "RE-1", "confidence": 0.95}}
    doubted = consult(_store(), [page], other, ["invoice_number"])
    assert "profile-disagrees" in [c.code for c in doubted.checks]
    graded = {"invoice_number": "hit"}
    twice = trust.updated(once, "run-2", {"invoice_number": learned}, graded)
    assert twice is not None
    put_layout(PAGE, BLAUWAL, twice["fields"])
    read = consult(_store(), [page], {}, ["invoice_number"])
    assert read.fields["invoice_number"]["source"] == "profile"
    assert read.shown["profileFields"] == ["invoice_number"]


def _store() -> SupplierStore:
    return SupplierStore(load_settings().supplier_table)


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


def test_a_run_counted_once_answers_as_it_did() -> None:
    ledger: dict = {}
    answers = []
    for n, chosen in enumerate((True, False, False)):
        new, why = audit.with_sample(ledger, f"run-{n}", ["invoice_number"], chosen)
        assert new is not None
        ledger = new
        answers.append(why)
    assert answers == ["rate", "", ""]
    assert ledger["sampled"] == 1 and ledger["unreviewed"] == 2
    assert ledger["unreviewedValues"] == 2
    # The same run again counts nothing and answers as it did, whatever the draw says now.
    again, why = audit.with_sample(ledger, "run-0", ["invoice_number"], False)
    assert again is None and why == "rate"
    again, why = audit.with_sample(ledger, "run-1", ["invoice_number"], True)
    assert again is None and why == ""


def test_documents_of_one_supplier_sampled_at_once_all_count(stack: Stack) -> None:
    ledger = audit.AuditLedger(load_settings().supplier_table)
    barrier = threading.Barrier(4)

    def sample(n: int) -> None:
        barrier.wait()
        ledger.sample("blauwal", f"run-{n}", ["invoice_number"], False)

    threads = [threading.Thread(target=sample, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    found = ledger.get("blauwal")
    assert found["unreviewed"] == 4 and found["unreviewedValues"] == 4
    assert found["version"] == 4


def test_docflow_audit_counts_graded_reads_and_sampled_audits_apart(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 59: the graded shadow reads (the first window) and the sampled audits are two
    estimates, each with Wilson's interval; per layout, its issuer and supplier named."""
    layout = put_layout(PAGE, BLAUWAL, supplier_id="blauwal")
    owner = layout.layout_id
    ledger = audit.AuditLedger(load_settings().supplier_table)
    epochs = ["invoice_date", "invoice_number"]
    for n in range(4):  # four reviews graded the shadow read: one value wrong
        ledger.grade(owner, f"review-{n}", epochs, ["invoice_date"] if n == 1 else [])
    ledger.grade(owner, "review-1", epochs, ["invoice_date"])  # a step run twice
    for n in range(40):
        ledger.sample(owner, f"run-{n}", epochs, n % 10 == 0)
    ledger.sample(owner, "run-0", epochs, False)  # a step run twice
    for n in range(3):
        missed = ["invoice_date"] if n == 0 else []
        outcome = {"documentId": f"d-{n}", "fields": sorted(epochs), "misses": missed}
        ledger.record(owner, f"run-{n}", {**outcome, "decidedBy": "c@x", "at": "t"})
    ledger.record(owner, "run-0", {"documentId": "d-0", "fields": [], "misses": []})
    ledger.sample("L-0000000000ff", "run-x", ["po_number"], False)
    assert main(["audit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"layouts", "overall", "confidence", "method"}
    (row, other) = out["layouts"]
    assert (row["layoutId"], row["issuer"], row["supplierId"]) == (owner, BLAUWAL, "blauwal")
    assert other["issuer"] is None and other["sampled"]["wrongShare"] is None
    graded = row["graded"]
    assert (graded["documents"], graded["values"], graded["misses"]) == (4, 8, 1)
    low, high = proportion_confint(1, 8, alpha=0.05, method="wilson")
    assert graded["wrongShare"] == pytest.approx({"share": 1 / 8, "low": low, "high": high})
    sampled = row["sampled"]
    assert sampled["documents"] == 4 and row["unreviewed"] == 40 - 4
    assert row["unreviewedValues"] == 2 * (40 - 4)
    assert (sampled["audited"], sampled["values"], sampled["misses"]) == (3, 6, 1)
    assert sampled["documentsWithMiss"] == 1
    low, high = proportion_confint(1, 6, alpha=0.05, method="wilson")
    assert sampled["wrongShare"] == pytest.approx({"share": 1 / 6, "low": low, "high": high})
    n = row["unreviewedValues"]
    assert row["expectedWrongValues"]["high"] == pytest.approx(round(high * n, 2))
    overall = out["overall"]
    assert overall["unreviewed"] == row["unreviewed"] + 1 and overall["sampled"]["misses"] == 1
    assert overall["sampled"]["wrongShare"] == sampled["wrongShare"]
    assert overall["graded"] == graded
    assert main(["audit"]) == 0
    assert owner in capsys.readouterr().out


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
    from docflow.pipeline.audit import SAMPLE, Candidate, sample_for_audit

    class LastAttempt:
        attempt = SAMPLE.attempts

        class logger:
            @staticmethod
            def info(*_: object, **__: object) -> None: ...

            @staticmethod
            def warning(*_: object, **__: object) -> None: ...

    aws.client("dynamodb").delete_table(TableName=load_settings().supplier_table)
    doc = stack.upload("in/any.pdf", b"%PDF-1.4")
    summary = Candidate("blauwal", ("x",))
    (stage,) = sample_for_audit(doc, summary)(LastAttempt())  # type: ignore[arg-type]
    assert stage["name"] == "audit" and stage["because"] == "audit"
    first = type("First", (LastAttempt,), {"attempt": 1})
    with pytest.raises(Exception, match=r"ResourceNotFound|not found|does not exist"):
        sample_for_audit(doc, summary)(first())  # type: ignore[arg-type]


def test_a_review_teaches_the_pages_layout_registered_supplier_or_not() -> None:
    """Issue 59 item 4: reading is learned per layout. A run since layouts (its summary has
    `layout`) teaches whatever its supplier's registration, unless the review changed who is
    paid, or the page's checked id and the person disagree on the issuer, or the layout was
    matched ambiguously or withheld."""
    fields_stage = [routed("fields", "fields")]
    approved = [{"stageName": "fields", "decision": "approved", "reviewer": "ap@x"}]
    typed = {"invoice_number": {"value": "E1", "original": None, "correctedBy": "ap"}}
    shown = {"docType": "invoice", "supplier": {"status": "unknown"}, "fields": typed}
    raw = {**shown, "layout": {"status": "none"}}
    unknown = DocumentSummary.from_json(raw)
    assert learning_due(unknown, fields_stage, approved)
    for status in ("ambiguous", "withheld", "data"):
        other = DocumentSummary.from_json({**raw, "layout": {"status": status}})
        assert not learning_due(other, fields_stage, approved)
    renamed = {"value": "Atelier Nord", "original": "de Lattre Alexis", "correctedBy": "ap"}
    corrected = {**raw, "fields": {**typed, "vendor_name": renamed}}
    # the layout's issuer, corrected
    assert learning_due(DocumentSummary.from_json(corrected), fields_stage, approved)
    by_vat = {**corrected, "supplier": {"supplierId": "b", "certain": True, "by": "vat"}}
    # the id and the person disagree
    assert not learning_due(DocumentSummary.from_json(by_vat), fields_stage, approved)
    iban = {"value": "DE89...", "original": "DE12...", "correctedBy": "ap"}
    paid = DocumentSummary.from_json({**raw, "fields": {**typed, "iban": iban}})
    assert not learning_due(paid, fields_stage, approved)
    bank = [*fields_stage, routed("bank-details", "bank-details")]
    assert not learning_due(unknown, bank, approved)
    assert not learning_due(unknown, fields_stage, [])  # nobody approved it
