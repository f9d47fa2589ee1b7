"""The edges of the audit of learned profiles (`docflow/suppliers/audit.py`,
`docflow/pipeline/audit.py`): the `first` documents of a streak and not one more, the rate's
share to a hundredth of a percent, the run ids the ledger remembers and forgets, what an
approved audit adds, and when the step samples at all. Each test names the boundary it guards
(bench/README.md, "Mutation testing")."""

from __future__ import annotations

import hashlib
import logging
from typing import Any, cast

import pytest
from aws_durable_execution_sdk_python import StepContext

from docflow.document import DocumentSummary
from docflow.ids import DocumentRef
from docflow.pipeline.audit import audit_candidate, audit_outcome, sample_for_audit
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from docflow.suppliers import audit
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.shapes import AuditOutcome, Ledger, Profile
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_VAT
from tests.support.aws import Stack


def bucket(document_id: str) -> int:
    """The document's place in 0..9999, as the module's doc says."""
    return int.from_bytes(hashlib.sha256(document_id.encode()).digest()[:8], "big") % 10000


IDS = [f"d-{n:05d}" for n in range(3000)]


def test_the_rate_samples_a_bucket_strictly_below_rate_times_ten_thousand() -> None:
    """The rate's edge: a document whose bucket is rate x 10000 is not sampled, one below it
    is; the product is rounded (0.0061 x 10000 is 61.00000000000001 in floating point, and
    bucket 61 is not below 61)."""
    at = {bucket(d): d for d in IDS}
    for b in sorted(at)[:40]:
        d = at[b]
        assert audit.by_rate(d, b / 10000) is False, b  # its own bucket: not below
        assert audit.by_rate(d, (b + 1) / 10000) is True, b
    assert 0.0061 * 10000 > 61 and bucket("d-02912") == 61
    assert audit.by_rate("d-02912", 0.0061) is False
    assert audit.by_rate("d-02912", 0.0062) is True
    assert all(audit.by_rate(d, 1.0) for d in IDS)
    assert not any(audit.by_rate(d, 0.0) for d in IDS)


def test_a_field_with_fewer_than_first_documents_in_its_streak_is_audited() -> None:
    never = next(d for d in IDS if not audit.by_rate(d, 0.05))
    rated = next(d for d in IDS if audit.by_rate(d, 0.05))
    assert audit.sample_reason({"a": 2}, never, 3, 0.05) == "first"
    assert audit.sample_reason({"a": 3}, never, 3, 0.05) == ""
    assert audit.sample_reason({"a": 3, "b": 0}, never, 3, 0.05) == "first"  # any field
    assert audit.sample_reason({"a": 3}, rated, 3, 0.05) == "rate"
    assert audit.sample_reason({"a": 0}, rated, 0, 0.05) == "rate"  # first = 0: none
    assert audit.sample_reason({}, never, 3, 0.05) == ""


def sample(ledger: Ledger, run: str, epochs: dict[str, str], document: str = "d-x") -> Ledger:
    new, _why = audit.with_sample(ledger, run, document, epochs, 3, 0.0)
    assert new is not None
    return new


def test_the_ledger_counts_each_field_in_its_own_streak() -> None:
    ledger = sample(cast("Ledger", {}), "r1", {"a": "s1", "b": "s1"})
    ledger = sample(ledger, "r2", {"a": "s1", "b": "s2"})  # b trusted anew
    assert ledger["fields"] == {
        "a": {"since": "s1", "count": 2},
        "b": {"since": "s2", "count": 1},
    }
    assert ledger["sampled"] == 2 and ledger["unreviewed"] == 0
    for run in ("r3", "r4"):
        ledger = sample(ledger, run, {"a": "s1", "b": "s2"})
    # r4: `a` has 3 documents before it but `b` only 2 (its streak began at r2): first.
    assert [r["audit"] for r in ledger["runs"]] == ["first", "first", "first", "first"]
    ledger = sample(ledger, "r5", {"a": "s1", "b": "s2"})
    assert ledger["runs"][-1] == {"run": "r5", "audit": ""}
    assert (ledger["unreviewed"], ledger["unreviewedValues"]) == (1, 2)
    # A field the ledger never saw starts at 0: first again.
    ledger = sample(ledger, "r6", {"c": "s9"})
    assert ledger["runs"][-1]["audit"] == "first"
    assert ledger["fields"]["c"] == {"since": "s9", "count": 1}


def test_the_ledger_remembers_the_last_hundred_runs() -> None:
    ledger = cast("Ledger", {})
    for n in range(audit.KEEP + 1):
        ledger = sample(ledger, f"r{n}", {"a": "s"})
    runs = [r["run"] for r in ledger["runs"]]
    assert len(runs) == audit.KEEP == 100 and runs[0] == "r1" and runs[-1] == f"r{audit.KEEP}"
    # The oldest run, forgotten, would count again; the newest kept one does not.
    assert audit.with_sample(ledger, "r0", "d-x", {"a": "s"}, 3, 0.0)[0] is not None
    assert audit.with_sample(ledger, "r1", "d-x", {"a": "s"}, 3, 0.0)[0] is None


def outcome(misses: list[str], fields: tuple[str, ...] = ("a", "b")) -> AuditOutcome:
    return {"documentId": "d-1", "fields": list(fields), "misses": misses}


def test_an_approved_audit_counts_its_values_and_misses_once() -> None:
    ledger = audit.with_outcome(cast("Ledger", {}), "r1", outcome(["a"]))
    assert ledger is not None
    counts = {k: ledger[k] for k in ("audited", "valuesAudited", "misses", "documentsWithMiss")}  # type: ignore[literal-required]
    assert counts == {"audited": 1, "valuesAudited": 2, "misses": 1, "documentsWithMiss": 1}
    assert audit.with_outcome(ledger, "r1", outcome(["a"])) is None
    clean = audit.with_outcome(ledger, "r2", outcome([]))
    assert clean is not None
    assert (clean["audited"], clean["misses"], clean["documentsWithMiss"]) == (2, 1, 1)
    assert clean["audits"] == ["r1", "r2"]


def test_the_ledger_keeps_the_last_fifty_outcomes() -> None:
    ledger: Ledger | None = cast("Ledger", {})
    for n in range(audit.KEEP_OUTCOMES + 1):
        assert ledger is not None
        ledger = audit.with_outcome(ledger, f"r{n}", {**outcome([]), "documentId": f"d-{n}"})
    assert ledger is not None
    kept = [o["documentId"] for o in ledger["outcomes"]]
    assert len(kept) == 50 and kept[0] == "d-1" and kept[-1] == "d-50"
    assert ledger["audited"] == 51


def test_no_values_audited_estimates_nothing() -> None:
    assert audit.estimate(0, 0) is None
    assert audit.estimate(0, -1) is None
    share = audit.estimate(0, 1)
    assert share is not None and share["share"] == 0.0 and share["low"] == 0.0
    summary = audit.summarize({"unreviewedValues": 10})
    assert summary["wrongShare"] is None and summary["expectedWrongValues"] is None
    full = audit.summarize({"misses": 1, "valuesAudited": 4, "unreviewedValues": 10})
    assert full["wrongShare"] is not None and full["expectedWrongValues"] is not None
    assert full["expectedWrongValues"]["share"] == 2.5
    assert full["expectedWrongValues"]["low"] == round(full["wrongShare"]["low"] * 10, 2)


def test_the_report_lists_suppliers_by_id_and_adds_them_up() -> None:
    ledgers = [
        cast("Ledger", {"supplierId": "zed", "unreviewed": 2, "misses": 1, "valuesAudited": 2}),
        cast("Ledger", {"supplierId": "abe", "unreviewed": 3}),
    ]
    out = audit.report(ledgers, {"abe": "Abe GmbH"})
    assert [s["supplierId"] for s in out["suppliers"]] == ["abe", "zed"]
    assert [s["name"] for s in out["suppliers"]] == ["Abe GmbH", None]
    assert out["overall"]["unreviewed"] == 5 and out["overall"]["misses"] == 1
    assert (out["confidence"], out["method"]) == (0.95, "wilson")


def test_a_write_that_lost_a_race_is_applied_again(stack: Stack) -> None:
    """The ledger's conditional write on `version`: a writer that read an old version reads
    again and reapplies, so both counts land."""
    ledger = audit.AuditLedger(load_settings().supplier_table)
    ledger.sample("s", "r1", "d-1", {"a": "x"}, 0, 0.0)
    raced: list[int] = []

    def apply(old: Ledger) -> Ledger | None:
        if not raced:  # another run counts between this read and this write
            raced.append(1)
            ledger.sample("s", "r2", "d-2", {"a": "x"}, 0, 0.0)
        new, _ = audit.with_sample(old, "r3", "d-3", {"a": "x"}, 0, 0.0)
        return new

    after = ledger.change("s", apply)
    assert after["unreviewed"] == 3 and after["version"] == 3
    assert ledger.get("s")["fields"]["a"]["count"] == 3
    # No change: nothing written, the ledger as it was.
    assert ledger.change("s", lambda old: None)["version"] == 3
    assert ledger.get("s")["listing"] == "AUDIT" and ledger.get("s")["listedAt"] == "s"


class Attempt:
    def __init__(self, attempt: int = 1) -> None:
        self.attempt = attempt
        self.logger = logging.getLogger("test")


def typed(raw: dict[str, Any]) -> DocumentSummary:
    """The run's typed record of a summary written as its JSON."""
    return DocumentSummary.from_json({"docType": "invoice", **raw})


SUMMARY = typed({"supplier": {"supplierId": "blauwal", "certain": True}, "profileFields": ["a"]})


def step(doc: DocumentRef, summary: DocumentSummary = SUMMARY) -> list[dict[str, Any]]:
    return sample_for_audit(doc, summary)(cast("StepContext", Attempt()))


def test_the_step_audits_the_first_documents_and_then_only_the_sampled(
    stack: Stack, shipped_rules: None
) -> None:
    docs = [DocumentRef("bucket", f"in/{n}.pdf") for n in range(40)]
    never = [d for d in docs if not audit.by_rate(d.document_id, 0.05)]
    answers = [bool(step(d)) for d in never[:5]]
    assert answers == [True, True, True, False, False]  # the shipped [audit] first = 3
    (stage,) = step(never[0])  # a step run again answers as it did
    assert (stage["name"], stage["because"]) == ("audit", "audit")
    sampled = next(d for d in docs if audit.by_rate(d.document_id, 0.05))
    assert step(sampled)
    ledger = audit.AuditLedger(load_settings().supplier_table).get("blauwal")
    assert (ledger["sampled"], ledger["unreviewed"]) == (4, 2)


def test_the_step_counts_each_field_in_the_streak_its_profile_entry_began(
    stack: Stack, shipped_rules: None
) -> None:
    """The step reads each field's `since` from the supplier's profile (`_count`): a field
    trusted anew (another `since`) is one of the first documents again, and a field the
    profile has no entry for counts in a streak of its own (`since` "")."""
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")

    def trusted_since(run: str) -> None:
        store.update_profile(
            "blauwal", lambda p: cast("Profile", {**p, "fields": {"a": {"since": run}}})
        )

    trusted_since("run-1")
    docs = [DocumentRef("bucket", f"in/{n}.pdf") for n in range(80)]
    never = [d for d in docs if not audit.by_rate(d.document_id, 0.05)]
    assert [bool(step(d)) for d in never[:4]] == [True, True, True, False]
    trusted_since("run-9")
    assert [bool(step(d)) for d in never[4:8]] == [True, True, True, False]
    ledger = audit.AuditLedger(load_settings().supplier_table).get("blauwal")
    assert ledger["fields"]["a"] == {"since": "run-9", "count": 4}
    both = typed(
        {"supplier": {"supplierId": "blauwal", "certain": True}, "profileFields": ["a", "b"]}
    )
    step(never[8], both)
    ledger = audit.AuditLedger(load_settings().supplier_table).get("blauwal")
    assert ledger["fields"]["b"] == {"since": "", "count": 1}


@pytest.mark.parametrize(
    ("summary", "stages", "due"),
    [
        ({"supplier": {"certain": True}, "profileFields": ["a"]}, [], True),
        ({"supplier": {"certain": True}, "profileFields": []}, [], False),
        ({"supplier": {"certain": False}, "profileFields": ["a"]}, [], False),
        ({"profileFields": ["a"]}, [], False),
        (
            {"supplier": {"certain": True}, "profileFields": ["a"]},
            [RoutedStage(Stage("legal", ("l@x",), 60, 0), "rule")],
            False,
        ),
    ],
)
def test_only_a_document_nobody_would_see_read_on_a_trusted_profile_is_a_candidate(
    summary: dict[str, Any], stages: list[RoutedStage], due: bool
) -> None:
    assert audit_candidate(typed(summary), stages) is due


def test_an_audits_outcome_names_the_fields_checked_and_those_corrected() -> None:
    doc = DocumentRef("bucket", "in/a.pdf", version_id="v1")
    found = audit_outcome(
        doc, {"b": "hit", "a": "miss", "c": "miss"}, {"decidedBy": "c@x", "decidedAt": "t"}
    )
    assert found == {
        "documentId": doc.document_id,
        "runId": doc.run_id,
        "fields": ["a", "b", "c"],
        "misses": ["a", "c"],
        "decidedBy": "c@x",
        "at": "t",
    }
    assert audit_outcome(doc, {}, {})["decidedBy"] == "" and audit_outcome(doc, {}, {})["at"] == ""
