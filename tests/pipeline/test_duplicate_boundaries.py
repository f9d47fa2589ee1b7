"""The edges of the duplicate steps (`docflow/pipeline/duplicates.py`, `duplicate_settle.py`),
each step called as the durable runner calls it, on moto with the shipped rules: which holder
makes a hit and with which status, which key kinds are the same bill and which only a possible
one, the take-over of an older version's key, the settle that supersedes, and the pure rules the
orchestrator branches on (`claim_due`, `DocumentSummary.with_duplicates`, `replaces_of`), and
the flow's steps (`docflow/flows/duplicates.py`). Each test names the boundary it guards
(bench/README.md, "Mutation testing")."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, cast

import pytest
from aws_durable_execution_sdk_python import DurableContext, StepContext

from docflow.document import DocumentSummary
from docflow.document.shown import DuplicateHit
from docflow.flows.duplicates import claim_again, claim_keys, settle_keys
from docflow.ids import DocumentRef
from docflow.pipeline import duplicates as dup
from docflow.pipeline.duplicate_settle import Settled, settle_due, settle_duplicates
from docflow.pipeline.run_state import RunState
from docflow.readmodel import transitions as t
from docflow.readmodel.schema import make_report
from docflow.reporting import recorder_for
from docflow.review.stage.decision import Decision
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from docflow.storage import result_key
from docflow.suppliers.duplicate_keys import Facts
from docflow.suppliers.duplicates import Claimant, DuplicateStore, claim_pk
from tests.support.aws import Stack

NUMBER = "INV-20931"
NUMBER_KEY = claim_pk("number|name:acme supplies|INV20931")
BILL_KEY = claim_pk("bill|INV20931|1100.00|USD")


class Attempt:
    """The step's context on its `attempt`th try (a logger that keeps nothing)."""

    def __init__(self, attempt: int = 1) -> None:
        self.attempt = attempt
        self.logger = logging.getLogger("test")


def ctx(attempt: int = 1) -> StepContext:
    return cast("StepContext", Attempt(attempt))


def invoice(
    number: str = NUMBER,
    vendor: str = "ACME Supplies Ltd",
    date: str = "2026-03-04",
    total: str = "1100.00",
    **more: Any,
) -> DocumentSummary:
    read = {
        "invoice_number": number,
        "vendor_name": vendor,
        "invoice_date": date,
        "total_amount": total,
        "currency": "USD",
    }
    fields = {k: {"value": v} for k, v in read.items() if v}
    return summary_of({"docType": "invoice", "fields": fields, **more})


def summary_of(raw: dict[str, Any]) -> DocumentSummary:
    """The run's typed record of a summary written as its JSON."""
    return DocumentSummary.from_json(raw)


def with_found(summary: DocumentSummary, found: dup.Duplicates) -> DocumentSummary:
    """The summary as the claim flow leaves it (`claim_keys`)."""
    return summary.with_duplicates(found.keys, found.earlier)


def doc(key: str = "in/a.pdf", version: str = "v1", sequencer: str = "01") -> DocumentRef:
    return DocumentRef("bucket", key, version_id=version, sequencer=sequencer)


def claim(who: DocumentRef, summary: DocumentSummary) -> dup.Duplicates:
    return dup.claim_duplicates(who, summary)(ctx())


def held(pk: str) -> dict[str, Any]:
    return DuplicateStore(load_settings().duplicate_table).get(pk) or {}


def report(who: DocumentRef, status: str) -> None:
    """The read model's state of `who`'s document: `status`, as its own reports left it."""
    recorder = recorder_for(load_settings())
    assert recorder.record(make_report(who, t.RECEIVED, "intake")).result == "accepted"
    if status == t.PENDING_REVIEW:
        payload = {"stageIndex": 0, "stageName": "fields"}
        last = make_report(who, status, "review-0", stage_index=0, payload=payload)
    else:
        last = make_report(who, status, status)
    assert recorder.record(last).result == "accepted"


@pytest.fixture
def rules(stack: Stack, shipped_rules: None) -> Stack:
    return stack


def test_a_bill_key_alone_is_the_same_bill_and_a_window_alone_only_possible(
    rules: Stack,
) -> None:
    """Which kinds are firm: the same number and total under another name is a duplicate;
    the same supplier and total days apart is a possible one."""
    first = claim(doc("in/a.pdf"), invoice(date=""))
    assert BILL_KEY in first.keys and first.stages == ()
    renamed = claim(doc("in/b.pdf"), invoice(vendor="ACME SUPPLIES UK", date=""))
    ((earlier, *_),) = [renamed.earlier]
    assert earlier["by"] == ["bill"]
    assert [s.because for s in renamed.stages] == [dup.DUPLICATE]
    # A renumbered copy three days later: only the window meets it.
    claim(doc("in/c.pdf"), invoice(number="X-1", vendor="Nordlicht", date="2026-05-01"))
    later = claim(doc("in/d.pdf"), invoice(number="X-2", vendor="Nordlicht", date="2026-05-04"))
    assert [e["by"] for e in later.earlier] == [["window"]]
    assert [s.because for s in later.stages] == [dup.POSSIBLE]


def test_an_older_version_that_did_not_finalize_gives_its_keys_to_the_new_one(
    rules: Stack,
) -> None:
    old, new = doc(version="v1", sequencer="01"), doc(version="v2", sequencer="02")
    claim(old, invoice())
    found = claim(new, invoice())
    assert found.earlier == () and found.stages == ()
    assert NUMBER_KEY in found.keys and BILL_KEY in found.keys
    assert held(NUMBER_KEY)["runId"] == new.run_id  # taken over, not only answered
    # The older run, late, neither takes them back nor meets the new one.
    late = claim(old, invoice())
    assert late.earlier == () and late.stages == () and NUMBER_KEY not in late.keys
    assert held(NUMBER_KEY)["runId"] == new.run_id


def test_an_older_version_that_finalized_is_met_and_replaced_only_on_approval(
    rules: Stack,
) -> None:
    old, new = doc(version="v1", sequencer="01"), doc(version="v2", sequencer="02")
    claim(old, invoice())
    assert settle_duplicates(old, invoice())(ctx()) == Settled(3)
    found = claim(new, invoice())
    (earlier,) = found.earlier
    assert (earlier["documentId"], earlier["version"], earlier["status"]) == (
        old.document_id,
        "v1",
        t.FINALIZED,
    )
    assert sorted(earlier["by"]) == ["amount", "bill", "number"]
    assert [s.because for s in found.stages] == [dup.DUPLICATE]
    summary = with_found(invoice(), found)
    assert dup.replaces_of(new, summary) == {
        "replaces": {"documentId": old.document_id, "version": "v1", "resultKey": result_key(old)}
    }
    # A reprocess of the version that finalized (a later run of v1) is nobody's duplicate.
    again = DocumentRef("bucket", "in/a.pdf", version_id="v1", sequencer="01", generation=1)
    assert claim(again, invoice()).earlier == ()


def test_a_version_finalized_before_claims_were_marked_is_met_by_its_report(
    rules: Stack,
) -> None:
    old, new = doc(version="v1", sequencer="01"), doc(version="v2", sequencer="02")
    claim(old, invoice())  # claimed, never settled: the claims of the old code
    report(old, t.FINALIZED)
    (earlier,) = claim(new, invoice()).earlier
    assert earlier["status"] == t.FINALIZED and earlier["version"] == "v1"
    assert held(NUMBER_KEY)["runId"] == old.run_id


@pytest.mark.parametrize(
    ("status", "taken"),
    [(t.FAILED, True), (t.ARCHIVED, True), (t.PENDING_REVIEW, False), (t.FINALIZED, False)],
)
def test_another_documents_key_is_taken_over_only_when_its_run_ended(
    rules: Stack, status: str, taken: bool
) -> None:
    other = doc("in/other.pdf")
    claim(other, invoice())
    report(other, status)
    found = claim(doc("in/mine.pdf"), invoice())
    assert (held(NUMBER_KEY)["documentId"] != other.document_id) is taken
    if taken:
        assert found.earlier == () and found.stages == ()
    else:
        (earlier,) = found.earlier
        assert earlier["status"] == status


@pytest.mark.parametrize("ahead", [0, 1, 2, 3])
def test_two_copies_interleaved_at_any_key_let_exactly_one_pass(rules: Stack, ahead: int) -> None:
    """Two copies' claim steps racing: every run claims in one order, so the other copy has
    claimed a prefix of it (`ahead` keys) when this one runs. Whatever the prefix, one copy
    holds every key and the other none, and only the other waits (claiming on past a hit,
    each held a key of the other's, and both waited at `duplicate`)."""
    first, second = doc("in/first.pdf"), doc("in/second.pdf")
    keys = dup.duplicate_keys(invoice())
    store = DuplicateStore(load_settings().duplicate_table)
    order = sorted(keys.claims.items(), key=lambda claim: claim_pk(claim[0]))
    assert len(order) == 3
    for readable, kind in order[:ahead]:  # how far the first copy's step got
        found = store.claim(claim_pk(readable), dup.claimant(first), keys.facts, kind, "t")
        assert found.held
    theirs = claim(second, invoice())
    mine = claim(first, invoice())
    passed, waits = (second, first) if ahead == 0 else (first, second)
    passing, waiting = (theirs, mine) if ahead == 0 else (mine, theirs)
    assert passing.stages == () and passing.earlier == ()
    assert sorted(passing.keys) == sorted(claim_pk(r) for r, _ in order)
    assert waiting.keys == () and [s.because for s in waiting.stages] == [dup.DUPLICATE]
    assert [e["documentId"] for e in waiting.earlier] == [passed.document_id]
    assert {held(claim_pk(r))["runId"] for r, _ in order} == {passed.run_id}
    assert waits.run_id != passed.run_id


def test_a_settle_that_finds_a_newer_version_holding_a_key_supersedes_the_run(
    rules: Stack,
) -> None:
    old, new = doc(version="v1", sequencer="01"), doc(version="v2", sequencer="02")
    claim(old, invoice())
    claim(new, invoice())  # took the keys over while the old run was on its way
    assert settle_duplicates(old, invoice())(ctx()) == Settled(0, superseded=True)
    assert "finalizedAt" not in held(NUMBER_KEY)
    assert settle_duplicates(new, invoice())(ctx()) == Settled(3)
    # Another document's key stays with it: not settled, not superseded.
    mine = doc("in/mine.pdf")
    assert settle_duplicates(mine, invoice())(ctx()) == Settled(0)
    assert held(NUMBER_KEY)["runId"] == new.run_id


def test_settle_is_due_when_keys_were_claimed_or_an_earlier_document_met() -> None:
    assert not settle_due(invoice())
    assert not settle_due(invoice(duplicateKeys=[], duplicateOf=[]))
    assert settle_due(invoice(duplicateKeys=["DUP#1"]))
    assert settle_due(invoice(duplicateOf=[{"documentId": "d-1"}]))
    assert Settled.from_json(Settled(2, True).to_json()) == Settled(2, True)
    assert Settled.from_json({}) == Settled()


def test_a_correction_releases_the_old_values_keys(rules: Stack) -> None:
    mine = doc()
    first = claim(mine, invoice())
    corrected = claim(mine, invoice(number="INV-20932", duplicateKeys=list(first.keys)))
    assert NUMBER_KEY not in corrected.keys and held(NUMBER_KEY) == {}
    assert held(claim_pk("number|name:acme supplies|INV20932"))["runId"] == mine.run_id
    # The keys that did not change stay held by the run.
    assert held(claim_pk("amount|name:acme supplies|2026-03-04|1100.00|USD"))


def test_nothing_is_claimed_without_values_read_or_a_type_with_fields(rules: Stack) -> None:
    assert claim(doc(), summary_of({"docType": "invoice", "fields": {}})) == dup.Duplicates()
    assert claim(doc(), summary_of({"docType": "contract", "fields": {}})) == dup.Duplicates()
    unknown = dup.duplicate_keys(replace(invoice(), doc_type="no-such-type"))
    assert unknown.claims == {} and unknown.window == {}
    # A declared type claims its declared key, and no invoice's keys or window.
    receipt = summary_of(
        {
            "docType": "receipt",
            "fields": {
                "merchant": {"value": "Cafe Blau"},
                "date": {"value": "2026-03-04"},
                "total": {"value": "12.50"},
            },
        }
    )
    keys = dup.duplicate_keys(receipt)
    assert list(keys.claims.values()) == ["declared"] and keys.window == {}
    assert {"merchant", "date", "total", *dup.KEY_FIELDS} <= set(dup.key_fields())
    assert len(dup.key_fields()) == len(set(dup.key_fields()))


def test_the_last_failed_attempt_holds_every_key_it_may_hold_and_asks_a_person(
    rules: Stack,
) -> None:
    from docflow import aws

    aws.client("dynamodb").delete_table(TableName=load_settings().duplicate_table)
    summary = invoice(duplicateKeys=["DUP#earlier"])
    with pytest.raises(Exception, match=r"ResourceNotFound|non-existent|not found"):
        dup.claim_duplicates(doc(), summary)(ctx(dup.CLAIMS.attempts - 1))
    out = dup.claim_duplicates(doc(), summary)(ctx(dup.CLAIMS.attempts))
    assert [s.because for s in out.stages] == [dup.UNCHECKED]
    assert "DUP#earlier" in out.keys and NUMBER_KEY in out.keys and BILL_KEY in out.keys


FIELDS = RoutedStage(Stage("fields", ("ap@x",), 3600, 0), "fields")


def decision(*corrected: str) -> Decision:
    from docflow.review.stage.decision import Correction

    return Decision(True, corrections={n: cast("Correction", {"value": "x"}) for n in corrected})


def test_a_claim_is_due_again_after_a_correction_of_what_a_key_is_made_of(rules: Stack) -> None:
    for name in ("invoice_number", "invoice_date", "total_amount", "currency", "vendor_name"):
        assert dup.claim_due(FIELDS, decision(name)), name
    assert dup.claim_due(FIELDS, decision("merchant"))  # a declared type's key field
    assert not dup.claim_due(FIELDS, decision("po_number"))
    assert not dup.claim_due(FIELDS, decision())
    triage = FIELDS.offering(("invoice", "receipt"), {})
    assert dup.claim_due(triage, decision())


def test_the_summary_carries_the_keys_held_and_the_documents_met() -> None:
    hit = cast("DuplicateHit", {"documentId": "d-1", "by": ["number"]})
    found = dup.Duplicates(("DUP#a",), (hit,), ())
    out = with_found(
        summary_of({"docType": "invoice", "duplicateKeys": ["DUP#old"], "x": 1}), found
    )
    assert out.to_json() == {
        "docType": "invoice",
        "duplicateKeys": ["DUP#a"],
        "duplicateOf": [{"documentId": "d-1", "by": ["number"]}],
        "x": 1,
    }
    cleared = with_found(
        summary_of({"docType": "invoice", "duplicateKeys": ["DUP#old"]}), dup.Duplicates()
    )
    assert cleared.to_json() == {"docType": "invoice"}
    assert dup.Duplicates.from_json(found.to_json()) == found
    assert dup.Duplicates.from_json({}) == dup.Duplicates()


def test_only_a_finalized_other_version_of_the_same_document_is_replaced() -> None:
    new = doc(version="v2", sequencer="02")
    other = {"documentId": new.document_id, "version": "v1", "status": t.FINALIZED}

    def replaces(*met: dict[str, Any]) -> dict[str, Any]:
        return dup.replaces_of(new, invoice(duplicateOf=list(met)))

    assert replaces(other)["replaces"]["version"] == "v1"
    for changed in (
        {"documentId": "d-other"},
        {"version": "v2"},
        {"version": ""},
        {"status": t.PENDING_REVIEW},
    ):
        assert replaces({**other, **changed}) == {}, changed
    assert replaces() == {}
    # The first finalized other version met is the one replaced.
    third = {**other, "version": "v0"}
    assert replaces(third, other)["replaces"]["version"] == "v0"


def test_what_the_earlier_document_shows_keeps_only_what_was_read() -> None:
    held_item = {
        "documentId": "d-1",
        "version": "v1",
        "key": "in/a.pdf",
        "number": "INV-1",
        "date": "",
        "total": "1.00",
        "runId": "r-1",
        "pk": "DUP#x",
    }
    assert dup._earlier(held_item, t.FINALIZED, "number") == {
        "documentId": "d-1",
        "version": "v1",
        "key": "in/a.pdf",
        "number": "INV-1",
        "total": "1.00",
        "status": t.FINALIZED,
        "by": ["number"],
    }


def test_a_release_counts_only_the_keys_this_run_still_holds(rules: Stack) -> None:
    mine, other = doc("in/a.pdf"), doc("in/b.pdf")
    first = claim(mine, invoice())
    store = DuplicateStore(load_settings().duplicate_table)
    facts = Facts(NUMBER, "2026-03-04", "1100.00", "USD", "ACME")
    who = Claimant(other.document_id, "v1", other.run_id, other.run_order, other.key)
    assert store.take_over(NUMBER_KEY, who, facts, "number", "t", mine.run_id)
    released = dup.release_duplicates(mine, list(first.keys))(ctx())
    assert released == len(first.keys) - 1
    assert held(NUMBER_KEY)["runId"] == other.run_id
    assert dup.release_duplicates(mine, list(first.keys))(ctx()) == 0


class Steps:
    """The durable context as the orchestrator uses it here: each step run at once, its name
    kept (the runner checkpoints the same names)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def step(self, func: Any, name: str, config: Any = None) -> Any:
        self.names.append(name)
        return func(ctx())


def state(summary: DocumentSummary, stages: list[RoutedStage] | None = None) -> RunState:
    return RunState(summary, tuple(stages or ()), {}, [])


def test_the_claim_step_is_named_once_and_a_hit_joins_the_stages(rules: Stack) -> None:
    claim(doc("in/a.pdf"), invoice())
    steps = Steps()
    run = claim_keys(cast("DurableContext", steps), doc("in/b.pdf"), state(invoice()))
    assert steps.names == ["claim duplicate keys"]
    assert [s.because for s in run.stages] == [dup.DUPLICATE]
    assert run.summary.duplicate_of[0]["documentId"] == doc("in/a.pdf").document_id
    assert run.summary.duplicate_keys == ()  # every key is the first copy's


def test_a_correction_claims_again_under_the_stages_index_unless_a_duplicate_stage_is_ahead(
    rules: Stack,
) -> None:
    claim(doc("in/a.pdf"), invoice())
    mine = doc("in/b.pdf")
    run = state(invoice(number="INV-1"), [FIELDS])
    steps = Steps()
    same = claim_again(cast("DurableContext", steps), mine, run, 0, FIELDS, decision("po_number"))
    assert same is run and steps.names == []
    corrected = state(invoice(), [FIELDS])
    again = claim_again(
        cast("DurableContext", steps), mine, corrected, 0, FIELDS, decision("invoice_number")
    )
    assert steps.names == ["claim duplicate keys review-0"]
    assert [s.because for s in again.stages] == ["fields", dup.DUPLICATE]
    assert again.summary.duplicate_of
    # A duplicate stage still to come: the hit is said there, no second stage added.
    duplicate = RoutedStage(Stage("duplicate", ("ap@x",), 60, 0), dup.POSSIBLE)
    ahead = state(invoice(), [FIELDS, duplicate])
    later = claim_again(
        cast("DurableContext", steps), mine, ahead, 0, FIELDS, decision("invoice_number")
    )
    assert later.stages == (FIELDS, duplicate) and later.summary.duplicate_of
    # The duplicate stage behind this one (already decided) does not count as ahead.
    behind = state(invoice(), [duplicate, FIELDS])
    after = claim_again(
        cast("DurableContext", steps), mine, behind, 1, FIELDS, decision("invoice_number")
    )
    assert [s.because for s in after.stages] == [dup.POSSIBLE, "fields", dup.DUPLICATE]
    assert steps.names[-1] == "claim duplicate keys review-1"


def test_settle_runs_only_for_a_run_with_keys_and_says_whether_it_may_finalize(
    rules: Stack,
) -> None:
    steps = Steps()
    assert settle_keys(cast("DurableContext", steps), doc(), state(invoice())) is True
    assert steps.names == []
    old, new = doc(version="v1", sequencer="01"), doc(version="v2", sequencer="02")
    held = with_found(invoice(), claim(old, invoice()))
    claim(new, invoice())
    assert settle_keys(cast("DurableContext", steps), old, state(held)) is False
    assert steps.names == ["settle duplicate keys"]
    mine = with_found(invoice(), claim(doc("in/c.pdf"), invoice(number="C-1")))
    assert settle_keys(cast("DurableContext", steps), doc("in/c.pdf"), state(mine)) is True


def test_what_the_earlier_document_shows_keeps_every_fact_that_was_read() -> None:
    held_item = {
        "documentId": "d-1",
        "version": "v1",
        "key": "in/a.pdf",
        "number": "INV-1",
        "date": "2026-03-04",
        "total": "1.00",
        "currency": "EUR",
        "vendor": "ACME",
        "runId": "r-1",
        "runOrder": "0001",
        "claimedAt": "2026-03-05",
    }
    shown = dup._earlier(held_item, t.PENDING_REVIEW, "amount")
    assert shown == {
        "documentId": "d-1",
        "version": "v1",
        "key": "in/a.pdf",
        "number": "INV-1",
        "date": "2026-03-04",
        "total": "1.00",
        "currency": "EUR",
        "vendor": "ACME",
        "status": t.PENDING_REVIEW,
        "by": ["amount"],
    }


def amount_key(date: str) -> str:
    return claim_pk(f"amount|name:acme supplies|{date}|1100.00|USD")


def test_a_new_versions_window_never_meets_its_own_unfinished_older_version(
    rules: Stack,
) -> None:
    """v2 corrects v1's date by two days: v1 (not finalized) still holds the amount key of
    the old date, which v2's window reads. The document's own older version is no duplicate."""
    old, new = doc(version="v1", sequencer="01"), doc(version="v2", sequencer="02")
    claim(old, invoice(date="2026-03-04"))
    found = claim(new, invoice(date="2026-03-06"))
    assert held(amount_key("2026-03-04"))["runId"] == old.run_id  # read by the window
    assert found.earlier == () and found.stages == ()


def test_a_reprocess_never_meets_its_own_finalized_version_in_the_window(rules: Stack) -> None:
    """A later run of the version that finalized, its date corrected: the finalized run's
    amount key of the old date is the same version's, no earlier bill."""
    first = doc(version="v1", sequencer="01")
    claim(first, invoice(date="2026-03-04"))
    store = DuplicateStore(load_settings().duplicate_table)
    facts = Facts(NUMBER, "2026-03-04", "1100.00", "USD", "ACME Supplies Ltd")
    pk = amount_key("2026-03-04")
    assert store.settle(pk, dup.claimant(first), facts, "amount", "t") == "settled"
    again = DocumentRef("bucket", "in/a.pdf", version_id="v1", sequencer="01", generation=1)
    found = claim(again, invoice(date="2026-03-06"))
    assert held(pk)["runId"] == first.run_id and held(pk)["finalizedAt"] == "t"
    assert found.earlier == () and found.stages == ()


def test_a_holder_the_read_model_does_not_know_is_met_with_no_status(rules: Stack) -> None:
    # Another document's claim whose run never reported (no state item): a hit all the same,
    # its status said as none rather than made up.
    claim(doc("in/a.pdf"), invoice())
    found = claim(doc("in/b.pdf"), invoice())
    ((earlier, *_),) = [found.earlier]
    assert earlier["status"] == "" and earlier["documentId"] == doc("in/a.pdf").document_id


def test_a_claim_and_a_take_over_store_the_kind_the_upload_and_when(rules: Stack) -> None:
    old, new = doc(version="v1", sequencer="01"), doc(version="v2", sequencer="02")
    claim(old, invoice())
    first = held(NUMBER_KEY)
    assert (first["kind"], first["key"], first["runId"]) == ("number", "in/a.pdf", old.run_id)
    assert first["claimedAt"] and held(BILL_KEY)["kind"] == "bill"
    claim(new, invoice())  # takes the older version's keys over
    taken = held(NUMBER_KEY)
    assert (taken["kind"], taken["key"], taken["runId"]) == ("number", "in/a.pdf", new.run_id)
    assert taken["claimedAt"] >= first["claimedAt"]


def test_a_correction_that_leaves_no_key_releases_every_old_one(rules: Stack) -> None:
    who = doc()
    found = claim(who, invoice())
    assert NUMBER_KEY in found.keys
    cleared = with_found(invoice(number="", total="", date=""), found)
    again = claim(who, cleared)
    assert again.keys == () and held(NUMBER_KEY) == {} and held(BILL_KEY) == {}


def test_each_other_document_met_is_its_own_entry(rules: Stack) -> None:
    # a holds the number and bill keys, b the amount key: c meets both, each once.
    a, b, c = doc("in/a.pdf"), doc("in/b.pdf"), doc("in/c.pdf")
    claim(a, invoice(date=""))
    claim(b, invoice(number="X-9"))
    found = claim(c, invoice())
    by = {e["documentId"]: sorted(e["by"]) for e in found.earlier}
    assert by == {a.document_id: ["bill", "number"], b.document_id: ["amount"]}


def test_a_window_hit_says_the_holders_status(rules: Stack) -> None:
    claim(doc("in/c.pdf"), invoice(number="X-1", vendor="Nordlicht", date="2026-05-01"))
    report(doc("in/c.pdf"), t.PENDING_REVIEW)
    later = claim(doc("in/d.pdf"), invoice(number="X-2", vendor="Nordlicht", date="2026-05-04"))
    assert [(e["by"], e["status"]) for e in later.earlier] == [(["window"], t.PENDING_REVIEW)]


def test_a_declared_types_facts_are_its_keys_values(rules: Stack) -> None:
    # A receipt (shipped rules: duplicate_key = merchant, date, total) has no invoice fields:
    # the facts its claim keeps and the review page shows are its key's values.
    read = {"merchant": "Café Blau", "date": "2026-03-04", "total": "12,50"}
    receipt = summary_of(
        {"docType": "receipt", "fields": {k: {"value": v} for k, v in read.items()}}
    )
    keys = dup.duplicate_keys(receipt)
    assert list(keys.claims.values()) == ["declared"]
    assert (keys.facts.vendor, keys.facts.date, keys.facts.total) == (
        "Café Blau",
        "2026-03-04",
        "12,50",
    )


def test_a_key_that_keeps_changing_hands_is_given_up_after_three_tries(rules: Stack) -> None:
    """Each try meets an older run of the document holding the key, and each take-over finds
    it moved on: after three the step refuses, naming the claim, rather than loop."""
    tries: list[str] = []

    class Store:
        def claim(self, pk: str, who: Claimant, *_: object) -> Any:
            from docflow.suppliers.duplicates import OLDER, Claim

            tries.append(pk)
            return Claim(OLDER, {"documentId": who.document_id, "runId": f"old-{len(tries)}"})

        def take_over(self, *_: object) -> bool:
            return False

    who = dup.claimant(doc())
    with pytest.raises(RuntimeError, match=rf"^the claim {NUMBER_KEY} kept changing hands$"):
        dup._claim_one(
            cast("DuplicateStore", Store()), NUMBER_KEY, who, Facts("", "", "", "", ""), "n", "t"
        )
    assert len(tries) == 3
