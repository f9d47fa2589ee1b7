"""The edges of the audit of learned profiles (`docflow/suppliers/audit.py`,
`docflow/suppliers/audit_key.py`, `docflow/suppliers/trust.py`, `docflow/pipeline/audit.py`):
the secret draw's rate to a hundredth of a percent, a name that decides nothing, trust at
exactly min_confirmations - 1 graded hits and not one fewer, a suspended record, distinct
reviewers, the run ids the ledger remembers and forgets, what an approved audit adds, and when
the step samples at all. Each test names the boundary it guards (bench/README.md, "Mutation
testing").

Issue 59 removed the `[audit] first` window (a field's probation is now before it is trusted:
its graded shadow reads) and the sample keyed by the document's id (an uploader chooses the
name): the tests of those edges became the trust and draw tests below."""

from __future__ import annotations

import json
import logging
from typing import Any, cast

import pytest
from aws_durable_execution_sdk_python import StepContext

from docflow import aws
from docflow.document import DocumentSummary
from docflow.ids import DocumentRef
from docflow.pipeline.audit import (
    Candidate,
    audit_candidate,
    audit_outcome,
    key_for,
    sample_for_audit,
)
from docflow.review.access.signing import KeyRing
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from docflow.suppliers import audit, audit_key, trust
from docflow.suppliers.shapes import AuditOutcome, Ledger, ProfileEntry
from tests.support.aws import Stack

KEY = audit_key.sample_key(KeyRing.from_json(json.dumps({"current": "k1", "k1": "b" * 40})))
# Content tags by their draw under KEY (the first of each draw among 20000 tags).
BY_DRAW: dict[int, str] = {}
for _n in range(20000):
    BY_DRAW.setdefault(audit_key.draw(KEY, f"etag-{_n}", "v1"), f"etag-{_n}")


def test_the_rate_samples_a_draw_strictly_below_rate_times_ten_thousand() -> None:
    """The rate's edge: a document whose draw is rate x 10000 is not sampled, one below it
    is; the product is rounded both ways (0.0061 x 10000 is 61.00000000000001 in floating
    point, and draw 61 is not below 61; 0.0029 x 10000 is 28.999999999999996, and draw 28
    is below 29)."""
    for b in sorted(BY_DRAW)[:40]:
        tag = BY_DRAW[b]
        assert audit_key.sampled(KEY, tag, "v1", b / 10000) is False, b  # its own: not below
        assert audit_key.sampled(KEY, tag, "v1", (b + 1) / 10000) is True, b
    assert 0.0061 * 10000 > 61 and 0.0029 * 10000 < 29
    assert audit_key.sampled(KEY, BY_DRAW[61], "v1", 0.0061) is False
    assert audit_key.sampled(KEY, BY_DRAW[61], "v1", 0.0062) is True
    assert audit_key.sampled(KEY, BY_DRAW[28], "v1", 0.0029) is True
    assert audit_key.sampled(KEY, BY_DRAW[29], "v1", 0.0029) is False
    tags = list(BY_DRAW.values())[:3000]
    assert all(audit_key.sampled(KEY, t, "v1", 1.0) for t in tags)
    assert not any(audit_key.sampled(KEY, t, "v1", 0.0) for t in tags)
    assert max(BY_DRAW) == audit_key.BUCKETS - 1 and min(BY_DRAW) == 0


def test_the_draw_is_the_content_and_version_under_the_key_and_never_the_name() -> None:
    """`content_of`: the ETag, else the version id; the bucket and key (the name) are no part
    of the draw: two names with one content and version draw alike, one name with two
    contents draws apart, and so does one content under another version or key."""
    tag = BY_DRAW[61]
    a = DocumentRef("bucket", "in/a.pdf", version_id="v1", content_tag=tag)
    b = DocumentRef("other", "in/zzz.pdf", version_id="v1", content_tag=tag)
    from docflow.pipeline.audit import content_of

    assert content_of(a) == content_of(b) == tag
    assert audit_key.draw(KEY, content_of(a), a.version) == 61
    assert audit_key.draw(KEY, content_of(b), b.version) == 61
    untagged = DocumentRef("bucket", "in/a.pdf", version_id="v9")
    assert content_of(untagged) == "v9"
    assert audit_key.draw(KEY, tag, "v2") != 61  # another version of the bytes
    assert audit_key.draw(KEY, BY_DRAW[62], "v1") == 62  # other bytes under the name
    other = audit_key.sample_key(KeyRing.from_json(json.dumps({"current": "k", "k": "c" * 40})))
    low = sorted(BY_DRAW)[:20]
    assert [audit_key.draw(other, BY_DRAW[d], "v1") for d in low] != low


def entry(confirmed: int, hits: int, **more: Any) -> ProfileEntry:
    return cast("ProfileEntry", {"confirmed": confirmed, "graded": {"hits": hits}, **more})


@pytest.mark.parametrize("m", [1, 2, 3, 5])
def test_a_field_is_trusted_at_exactly_min_confirmations_less_one_graded_hits(m: int) -> None:
    """What replaced the `first` window: the field's probation is its graded shadow reads.
    `min_confirmations` agreeing reviews, `min_confirmations - 1` of them hits: trusted; one
    hit short, or one review short: not."""
    assert trust.trusted(entry(m, m - 1), m)
    assert trust.trusted(entry(m + 3, m + 3), m)
    if m > 1:
        assert not trust.trusted(entry(m, m - 2), m)
        assert not trust.trusted(entry(m + 5, m - 2), m)  # reviews do not stand in for hits
    assert not trust.trusted(entry(m - 1, m - 1), m)
    assert not trust.trusted(cast("ProfileEntry", {"confirmed": m}), m) or m == 1


def test_a_suspended_record_is_trusted_by_nothing() -> None:
    assert not trust.trusted(entry(9, 9, suspended=True), 2)
    assert trust.trusted(entry(9, 9, suspended=False), 2)


def test_distinct_reviewers_count_at_their_edge() -> None:
    """`[audit] distinct_reviewers`: that many people, not one fewer; 1 (or less) asks for
    nobody in particular, even with no reviewer recorded."""
    two = entry(2, 1, reviewers=["a@x", "b@x"])
    assert trust.trusted(two, 2, 2) and not trust.trusted(two, 2, 3)
    assert trust.trusted(entry(2, 1), 2, 1) and trust.trusted(entry(2, 1), 2, 0)
    assert not trust.trusted(entry(2, 1, reviewers=["a@x"]), 2, 2)


def sample(ledger: Ledger, run: str, chosen: bool, fields: tuple[str, ...] = ("a",)) -> Ledger:
    new, _why = audit.with_sample(ledger, run, fields, chosen)
    assert new is not None
    return new


def test_the_ledger_counts_the_sampled_apart_from_what_went_through() -> None:
    """A drawn document is counted sampled, the others unreviewed with their values; a run
    counted already answers as it did the first time, whatever the draw says now."""
    ledger = sample(cast("Ledger", {}), "r1", True, ("a", "b"))
    assert (ledger["sampled"], ledger["unreviewed"], ledger["unreviewedValues"]) == (1, 0, 0)
    ledger = sample(ledger, "r2", False, ("a", "b", "c"))
    assert (ledger["sampled"], ledger["unreviewed"], ledger["unreviewedValues"]) == (1, 1, 3)
    assert ledger["runs"] == [{"run": "r1", "audit": "rate"}, {"run": "r2", "audit": ""}]
    assert audit.with_sample(ledger, "r1", ("a",), False) == (None, "rate")
    assert audit.with_sample(ledger, "r2", ("a",), True) == (None, "")


def test_the_ledger_remembers_the_last_hundred_runs() -> None:
    ledger = cast("Ledger", {})
    for n in range(audit.KEEP + 1):
        ledger = sample(ledger, f"r{n}", False)
    runs = [r["run"] for r in ledger["runs"]]
    assert len(runs) == audit.KEEP == 100 and runs[0] == "r1" and runs[-1] == f"r{audit.KEEP}"
    # The oldest run, forgotten, would count again; the newest kept one does not.
    assert audit.with_sample(ledger, "r0", ("a",), False)[0] is not None
    assert audit.with_sample(ledger, "r1", ("a",), False)[0] is None


def test_a_graded_review_counts_once_and_the_ledger_remembers_a_hundred() -> None:
    ledger = audit.with_graded(cast("Ledger", {}), "r1", ("a", "b"), ("b",))
    assert ledger is not None
    assert (ledger["graded"], ledger["gradedValues"], ledger["gradedMisses"]) == (1, 2, 1)
    assert audit.with_graded(ledger, "r1", ("a",), ()) is None
    for n in range(2, audit.KEEP + 2):
        ledger = audit.with_graded(ledger, f"r{n}", ("a",), ()) or ledger
    assert len(ledger["gradedRuns"]) == 100 and ledger["gradedRuns"][0] == "r2"
    assert audit.with_graded(ledger, "r1", ("a",), ()) is not None


def outcome(misses: list[str], fields: tuple[str, ...] = ("a", "b")) -> AuditOutcome:
    return {"documentId": "d-1", "fields": list(fields), "misses": misses}


def test_an_approved_audit_counts_its_values_and_misses_once() -> None:
    ledger = audit.with_outcome(cast("Ledger", {}), "r1", outcome(["a"]))
    assert ledger is not None
    counts = {k: ledger[k] for k in ("audited", "valuesAudited", "misses", "documentsWithMiss")}
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
    summary = audit.summarize({"unreviewedValues": 10, "gradedValues": 0})
    assert summary["sampled"]["wrongShare"] is None and summary["expectedWrongValues"] is None
    assert summary["graded"]["wrongShare"] is None
    full = audit.summarize(
        {"misses": 1, "valuesAudited": 4, "unreviewedValues": 10, "gradedValues": 1}
    )
    wrong = full["sampled"]["wrongShare"]
    assert wrong is not None and full["expectedWrongValues"] is not None
    assert full["expectedWrongValues"]["share"] == 2.5
    assert full["expectedWrongValues"]["low"] == round(wrong["low"] * 10, 2)
    graded = full["graded"]["wrongShare"]
    assert graded is not None and graded["share"] == 0.0  # graded apart from the sample


def test_the_report_lists_layouts_by_id_and_adds_them_up() -> None:
    ledgers = [
        cast("Ledger", {"supplierId": "zed", "unreviewed": 2, "misses": 1, "valuesAudited": 2}),
        cast("Ledger", {"supplierId": "abe", "unreviewed": 3, "graded": 1}),
    ]
    out = audit.report(ledgers, {"abe": ("Abe GmbH", "abe-1"), "zed": ("", "")})
    assert [s["layoutId"] for s in out["layouts"]] == ["abe", "zed"]
    assert [s["issuer"] for s in out["layouts"]] == ["Abe GmbH", None]
    assert [s["supplierId"] for s in out["layouts"]] == ["abe-1", None]
    assert out["overall"]["unreviewed"] == 5 and out["overall"]["sampled"]["misses"] == 1
    assert out["overall"]["graded"]["documents"] == 1
    assert (out["confidence"], out["method"]) == (0.95, "wilson")


def test_a_write_that_lost_a_race_is_applied_again(stack: Stack) -> None:
    """The ledger's conditional write on `version`: a writer that read an old version reads
    again and reapplies, so both counts land."""
    ledger = audit.AuditLedger(load_settings().supplier_table)
    ledger.sample("s", "r1", ("a",), False)
    raced: list[int] = []

    def apply(old: Ledger) -> Ledger | None:
        if not raced:  # another run counts between this read and this write
            raced.append(1)
            ledger.sample("s", "r2", ("a",), False)
        new, _ = audit.with_sample(old, "r3", ("a",), False)
        return new

    after = ledger.change("s", apply)
    assert after["unreviewed"] == 3 and after["version"] == 3
    assert [r["run"] for r in ledger.get("s")["runs"]] == ["r1", "r2", "r3"]
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


READ = Candidate("layout-1", ("a", "b"))


def step(doc: DocumentRef, read: Candidate = READ) -> list[dict[str, Any]]:
    return sample_for_audit(doc, read)(cast("StepContext", Attempt()))


def test_the_step_audits_exactly_what_the_secret_draws_and_a_rerun_answers_alike(
    stack: Stack, shipped_rules: None
) -> None:
    """Through the step, the stack's own key at the shipped rate (0.05, edge 500): documents
    with the same name and other bytes are audited exactly when their draw is under 500,
    the ledger counts each once, and a step run again answers as it did."""
    key = key_for(load_settings())
    draws = {audit_key.draw(key, f"etag-{n}", "v1"): f"etag-{n}" for n in range(4000)}
    under = [draws[d] for d in sorted(draws) if d < 500][:2]
    at = draws.get(500) or draws[min(d for d in draws if d >= 500)]
    above = draws[max(draws)]
    docs = [DocumentRef("bucket", "in/same.pdf", version_id="v1", content_tag=t) for t in under]
    passed = [
        DocumentRef("bucket", "in/same.pdf", version_id="v1", content_tag=t) for t in (at, above)
    ]
    assert [bool(step(d)) for d in docs] == [True, True]
    assert [bool(step(d)) for d in passed] == [False, False]
    (stage,) = step(docs[0])  # a step run again answers as it did
    assert (stage["name"], stage["because"]) == ("audit", "audit")
    ledger = audit.AuditLedger(load_settings().supplier_table).get("layout-1")
    assert (ledger["sampled"], ledger["unreviewed"], ledger["unreviewedValues"]) == (2, 2, 4)


LAYOUT = {"layoutId": "lay-1"}


@pytest.mark.parametrize(
    ("summary", "stages", "owner"),
    [
        ({"supplier": {"supplierId": "s", "certain": True}, "profileFields": ["b", "a"]}, [], "s"),
        ({"supplier": {"supplierId": "s"}, "layout": LAYOUT, "profileFields": ["a"]}, [], "lay-1"),
        (
            {"supplier": {"supplierId": "s"}, "layout": {"layoutId": ""}, "profileFields": ["a"]},
            [],
            None,
        ),
        ({"supplier": {"supplierId": "s", "certain": True}, "profileFields": []}, [], None),
        ({"profileFields": ["a"]}, [], None),
        (
            {"supplier": {"supplierId": "s", "certain": True}, "profileFields": ["a"]},
            [RoutedStage(Stage("legal", ("l@x",), 60, 0), "rule")],
            None,
        ),
    ],
)
def test_only_a_document_nobody_would_see_read_on_a_profile_is_a_candidate(
    summary: dict[str, Any], stages: list[RoutedStage], owner: str | None
) -> None:
    """The ledger's owner is the layout where the run read one, else (a run from before
    layouts) its supplier; no owner, no stage-free route or no profile field: no candidate."""
    found = audit_candidate(typed(summary), stages)
    if owner is None:
        assert found is None
    else:
        assert found is not None and found.owner == owner
        assert found.fields == tuple(sorted(summary["profileFields"]))


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


def test_hkdf_derives_one_to_8160_bytes_and_says_so_outside() -> None:
    from docflow.suppliers.audit_key import hkdf_sha256

    assert len(hkdf_sha256(b"k" * 32, b"info", length=1)) == 1
    assert len(hkdf_sha256(b"k" * 32, b"info", length=8160)) == 8160
    for length in (0, 8161):
        with pytest.raises(ValueError, match=r"^HKDF can derive 1 to 8160 bytes$"):
            hkdf_sha256(b"k" * 32, b"info", length=length)


def test_the_draw_reads_the_digest_big_end_first() -> None:
    """The draw is the HMAC's first eight bytes as a big-endian number, mod the buckets: a
    reimplementation elsewhere (an auditor's check) draws the same."""
    import hashlib
    import hmac

    from docflow.suppliers.audit_key import BUCKETS, draw

    digest = hmac.new(b"k" * 32, b"etag\x1f1", hashlib.sha256).digest()
    assert draw(b"k" * 32, "etag", "1") == int(digest[:8].hex(), 16) % BUCKETS


def test_a_run_remembered_without_its_answer_was_not_sampled() -> None:
    # A run the ledger remembers with no `audit` (written before the answer was kept) answers
    # as a run that went through: no audit, and nothing counted again.
    ledger = cast("Ledger", {"runs": [{"run": "r1"}], "unreviewed": 1})
    assert audit.with_sample(ledger, "r1", ("a",), True) == (None, "")
    assert audit.with_sample(ledger, "r1", ("a",), False) == (None, "")


def test_the_expected_wrong_values_are_rounded_to_a_hundredth() -> None:
    summary = audit.summarize({"misses": 1, "valuesAudited": 3, "unreviewedValues": 1})
    expected = summary["expectedWrongValues"]
    wrong = summary["sampled"]["wrongShare"]
    assert expected is not None and wrong is not None
    assert expected["share"] == 0.33
    assert (expected["low"], expected["high"]) == (round(wrong["low"], 2), round(wrong["high"], 2))


def test_a_layout_nobody_named_has_no_issuer_and_no_supplier() -> None:
    ledgers = [cast("Ledger", {"supplierId": "lay-1", "unreviewed": 1})]
    (row,) = audit.report(ledgers, {})["layouts"]
    assert (row["layoutId"], row["issuer"], row["supplierId"]) == ("lay-1", None, None)


def test_every_ledger_is_listed_through_the_ledgers_own_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`all` queries the sparse index with the client the ledger was given (another account's
    or region's table), never a default one."""
    asked: list[dict[str, Any]] = []

    class Client:
        def query(self, **args: Any) -> dict[str, Any]:
            asked.append(args)
            return {"Items": [{"pk": {"S": "AUDIT#lay-1"}, "supplierId": {"S": "lay-1"}}]}

    def no_default(*_: object, **__: object) -> object:
        raise AssertionError("a default client was made")

    monkeypatch.setattr(aws, "client", no_default)
    ledger = audit.AuditLedger("ledgers", Client())
    assert ledger.all() == [{"pk": "AUDIT#lay-1", "supplierId": "lay-1"}]
    assert [(a["TableName"], a["ExpressionAttributeValues"]) for a in asked] == [
        ("ledgers", {":l": {"S": "AUDIT"}})
    ]


def test_a_change_answers_the_ledger_as_it_was_written(stack: Stack) -> None:
    ledger = audit.AuditLedger(load_settings().supplier_table)
    after = ledger.change("lay-1", lambda old: audit.with_sample(old, "r1", ("a",), True)[0])
    assert after == ledger.get("lay-1")
    assert after["pk"] == "AUDIT#lay-1" and after["sampled"] == 1


def test_a_ledger_that_keeps_changing_gives_up_after_its_attempts_saying_whose(
    stack: Stack,
) -> None:
    """Another run's count lands between every read and write: after ATTEMPTS tries the
    change is refused naming the layout, and each of the other runs' counts stands."""
    ledger = audit.AuditLedger(load_settings().supplier_table)
    other = audit.AuditLedger(load_settings().supplier_table)
    raced: list[str] = []

    def apply(old: Ledger) -> Ledger | None:
        raced.append(f"other-{len(raced)}")
        other.sample("lay-1", raced[-1], ("a",), False)
        return audit.with_sample(old, "mine", ("a",), True)[0]

    with pytest.raises(RuntimeError, match=r"^supplier lay-1: audit ledger kept changing$"):
        ledger.change("lay-1", apply)
    assert len(raced) == audit.ATTEMPTS
    after = ledger.get("lay-1")
    assert after["unreviewed"] == audit.ATTEMPTS and not after.get("sampled")
