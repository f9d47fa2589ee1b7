"""The duplicate keys an invoice claims, and the claims table on moto (the template's
`DuplicateTable`): normal forms, and the conditional writes that let exactly one of two racing
copies hold a key, let a new version take over an older one that did not finalize but meet
one that did, and release only the holder's."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from docflow.document import DocumentSummary
from docflow.settings import load_settings
from docflow.suppliers.duplicate_keys import (
    Facts,
    amount_key,
    number_key,
    suppliers_of,
    vendor_key,
)
from docflow.suppliers.duplicates import (
    ELSEWHERE,
    HELD,
    HIT,
    OLDER,
    SETTLED,
    SUPERSEDED,
    YIELDED,
    Claimant,
    DuplicateStore,
    claim_pk,
    duplicate_lines,
)
from tests.support.aws import Stack

FACTS = Facts("INV-20931", "2026-03-04", "1100.00", "USD", "ACME SUPPLIES LTD")
PK = claim_pk("number|name:acme supplies|INV20931")
AT = "2026-03-05T10:00:00Z"


def summary(**fields: str) -> dict[str, Any]:
    return {"docType": "invoice", "fields": {k: {"value": v} for k, v in fields.items()}}


@pytest.mark.parametrize(
    ("printed", "key"),
    [
        ("INV-0042", "INV42"),
        ("inv 42", "INV42"),
        ("INV42", "INV42"),
        ("Nº 0042/ä", "NO42A"),
        ("0042", "42"),
        ("000", "0"),
        ("2024/007", "2024.7"),
        ("2024-7", "2024.7"),
        ("INV-00\u200b42", "INV42"),  # a zero-width space is no separator
        ("ＩＮＶ－４２", "INV42"),  # full-width forms
        ("INV-\u0664\u0662", "INV42"),  # Arabic-Indic digits
    ],
)
def test_a_number_is_compared_without_case_separators_or_leading_zeros(
    printed: str, key: str
) -> None:
    assert number_key(printed) == key


def test_numbers_whose_groups_of_digits_differ_keep_apart() -> None:
    keys = {number_key(n) for n in ("2024-7", "20247", "202-47", "2024-70", "2024-7-0")}
    assert len(keys) == 5


@pytest.mark.parametrize(
    "name",
    ["Blauwal Hafenlogistik GmbH", "BLAUWAL HAFENLOGISTIK", "Blauwal-Hafenlogistik, GmbH"],
)
def test_a_vendor_is_compared_without_case_accents_or_legal_form(name: str) -> None:
    assert vendor_key(name) == "blauwal hafenlogistik"


@pytest.mark.parametrize(
    ("printed", "key"),
    [("1,100.00", "1100.00"), ("1.100,00", "1100.00"), ("1100", "1100.00"), ("-218,48", "-218.48")],
)
def test_an_amount_is_compared_in_two_decimals(printed: str, key: str) -> None:
    assert amount_key(printed) == key


def test_a_certain_registry_match_and_the_printed_name_each_make_keys() -> None:
    found = {**summary(vendor_name="ACME Supplies Ltd"), "supplier": {"supplierId": "acme"}}
    # A match that is not certain: the name.
    assert suppliers_of(DocumentSummary.from_json(found)) == ["name:acme supplies"]
    found["supplier"]["certain"] = True
    certain = DocumentSummary.from_json(found)
    assert suppliers_of(certain) == ["id:acme", "name:acme supplies"]
    keys = FACTS.keys(suppliers_of(certain))
    assert sorted(keys.values()) == ["amount", "amount", "bill", "number", "number"]
    # The bill key names no supplier: a copy whose name was printed otherwise meets it.
    assert "bill|INV20931|1100.00|USD" in keys
    assert Facts("", "", "", "", "").keys(["name:x"]) == {}  # nothing read, nothing claimed


def claimant(doc: str, run: str, order: str = "1", version: str = "") -> Claimant:
    return Claimant(doc, version or f"v-{run}", run, order.rjust(4, "0"), f"in/{doc}.pdf")


@pytest.fixture
def store(stack: Stack) -> DuplicateStore:
    return DuplicateStore(load_settings().duplicate_table)


def claim(store: DuplicateStore, who: Claimant, pk: str = PK) -> tuple[str, Any]:
    found = store.claim(pk, who, FACTS, "number", AT)
    return found.outcome, found.holder.get("documentId")


def test_of_two_copies_claiming_one_key_the_second_gets_the_first(store: DuplicateStore) -> None:
    assert claim(store, claimant("d-a", "run-a")) == (HELD, None)
    found = store.claim(PK, claimant("d-b", "run-b"), FACTS, "number", AT)
    assert found.outcome == HIT
    assert (found.holder["documentId"], found.holder["number"]) == ("d-a", "INV-20931")
    # The same run again (a retried step, a replay): still its own.
    assert claim(store, claimant("d-a", "run-a")) == (HELD, None)
    assert (store.get(PK) or {})["runId"] == "run-a"


def test_racing_claims_leave_exactly_one_holder(store: DuplicateStore) -> None:
    """Eight copies released at one barrier, ten rounds: each round exactly one wins."""
    for round_ in range(10):
        pk = claim_pk(f"race|{round_}")
        barrier = threading.Barrier(8)
        answers: dict[int, tuple[str, Any]] = {}

        def race(
            i: int,
            pk: str = pk,
            barrier: threading.Barrier = barrier,
            answers: dict[int, tuple[str, Any]] = answers,
        ) -> None:
            barrier.wait()
            answers[i] = claim(store, claimant(f"d-{i}", f"run-{i}"), pk)

        threads = [threading.Thread(target=race, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        winners = [i for i, (outcome, _) in answers.items() if outcome == HELD]
        assert len(winners) == 1
        assert {doc for outcome, doc in answers.values() if outcome == HIT} == {f"d-{winners[0]}"}


def test_a_new_version_takes_over_an_older_one_that_did_not_finalize(
    store: DuplicateStore,
) -> None:
    old, new = claimant("d-a", "run-old", "1"), claimant("d-a", "run-new", "2")
    assert claim(store, old) == (HELD, None)
    assert claim(store, new) == (OLDER, "d-a")
    assert store.take_over(PK, new, FACTS, "number", AT, "run-old")
    assert (store.get(PK) or {})["runId"] == "run-new"  # the newer version took it over
    # The older run, late (a retried step), neither takes it back nor is flagged.
    assert claim(store, claimant("d-a", "run-old", "1")) == (YIELDED, "d-a")
    assert (store.get(PK) or {})["runId"] == "run-new"
    assert store.release(PK, "run-old") is False  # the older run's archive leaves it alone
    assert store.release(PK, "run-new") is True and store.get(PK) is None
    assert store.release(PK, "run-new") is False  # a repeat deletes nothing


def test_a_new_version_of_a_finalized_bill_meets_it(store: DuplicateStore) -> None:
    old, new = claimant("d-a", "run-old", "1"), claimant("d-a", "run-new", "2")
    assert claim(store, old) == (HELD, None)
    assert store.settle(PK, old, FACTS, "number", AT) == SETTLED
    assert store.settle(PK, old, FACTS, "number", AT) == SETTLED  # a repeat: the same
    assert (store.get(PK) or {})["finalizedAt"] == AT
    found = store.claim(PK, new, FACTS, "number", AT)
    assert found.outcome == HIT and found.holder["runId"] == "run-old"
    # The finalized claim is taken by nobody, whatever its document's read model says.
    assert not store.take_over(PK, claimant("d-b", "run-b"), FACTS, "number", AT, "run-old")
    # The finalized run itself, redelivered, still holds it; a reprocess of its version
    # (a later run of the same version) is nobody's duplicate and leaves it as it is.
    assert claim(store, old) == (HELD, None)
    reprocess = claimant("d-a", "run-again", "3", version=old.version)
    assert claim(store, reprocess) == (YIELDED, "d-a")
    # Approved as its replacement, the new version takes the key over, marked finalized.
    assert store.settle(PK, new, FACTS, "number", AT) == SETTLED
    held = store.get(PK) or {}
    assert (held["runId"], held["finalizedAt"]) == ("run-new", AT)


def test_a_run_whose_key_a_newer_version_took_is_superseded_at_settle(
    store: DuplicateStore,
) -> None:
    old, new = claimant("d-a", "run-old", "1"), claimant("d-a", "run-new", "2")
    assert claim(store, old) == (HELD, None)
    assert claim(store, new) == (OLDER, "d-a")  # while the old run was on its way
    assert store.take_over(PK, new, FACTS, "number", AT, "run-old")
    assert store.settle(PK, old, FACTS, "number", AT) == SUPERSEDED
    assert "finalizedAt" not in (store.get(PK) or {})
    # Another document's key stays with it; a key no one holds is claimed at settle.
    assert store.settle(PK, claimant("d-b", "run-b"), FACTS, "number", AT) == ELSEWHERE
    free = claim_pk("number|name:acme supplies|INV1")
    assert store.settle(free, claimant("d-b", "run-b"), FACTS, "number", AT) == SETTLED
    assert (store.get(free) or {})["runId"] == "run-b"


def test_a_key_whose_holder_ended_is_taken_over_only_from_that_holder(
    store: DuplicateStore,
) -> None:
    assert claim(store, claimant("d-a", "run-a")) == (HELD, None)
    assert not store.take_over(PK, claimant("d-b", "run-b"), FACTS, "number", AT, "run-x")
    assert store.take_over(PK, claimant("d-b", "run-b"), FACTS, "number", AT, "run-a")
    assert (store.get(PK) or {})["documentId"] == "d-b"


def test_the_window_reads_the_amount_keys_of_seven_days_either_side() -> None:
    window = FACTS.window(["name:acme supplies"])
    days = sorted(k.split("|")[2] for k in window)
    assert days[0] == "2026-02-25" and days[-1] == "2026-03-11" and len(days) == 14
    assert "2026-03-04" not in days  # its own day is its amount key, claimed
    assert set(window.values()) == {"window"}
    assert all(k.endswith("|1100.00|USD") for k in window)
    assert Facts("INV-1", "4 March", "1100.00", "USD", "x").window(["name:x"]) == {}


def test_show_names_what_a_finalized_version_replaces() -> None:
    state = {
        "duplicateOf": [
            {"documentId": "d-a", "status": "finalized", "number": "INV-1", "by": ["window"]}
        ],
        "replaces": {"documentId": "d-a", "version": "v1", "resultKey": "docs/d-a/v/final.json"},
    }
    assert duplicate_lines(state) == [
        "duplicateOf d-a (finalized, number INV-1): the same supplier and total within a week "
        "(a possible duplicate)",
        "replaces    d-a version v1 (finalized before: a payment system reverses it)",
    ]
