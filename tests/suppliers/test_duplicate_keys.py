"""The duplicate keys an invoice claims, and the claims table on moto (the template's
`DuplicateTable`): normal forms, and the conditional writes that let exactly one of two racing
copies hold a key, never flag a document's own versions, and release only the holder's."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from docflow.settings import load_settings
from docflow.suppliers.duplicates import (
    Claimant,
    DuplicateStore,
    Facts,
    amount_key,
    claim_pk,
    number_key,
    suppliers_of,
    vendor_key,
)
from tests.support.aws import Stack

FACTS = Facts("INV-20931", "2026-03-04", "1100.00", "USD", "ACME SUPPLIES LTD")
PK = claim_pk("number|name:acme supplies|INV20931")


def summary(**fields: str) -> dict[str, Any]:
    return {"fields": {k: {"value": v} for k, v in fields.items()}}


@pytest.mark.parametrize(
    ("printed", "key"),
    [("INV-0042", "INV0042"), ("inv 0042", "INV0042"), ("Nº 42/ä", "NO42A"), ("0042", "0042")],
)
def test_a_number_is_compared_in_upper_case_letters_and_digits(printed: str, key: str) -> None:
    assert number_key(printed) == key


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
    assert suppliers_of(found) == ["name:acme supplies"]  # a match that is not certain: name
    found["supplier"]["certain"] = True
    assert suppliers_of(found) == ["id:acme", "name:acme supplies"]
    keys = FACTS.keys(suppliers_of(found))
    assert sorted(keys.values()) == ["amount", "amount", "number", "number"]
    assert Facts("", "", "", "", "").keys(["name:x"]) == {}  # nothing read, nothing claimed


def claimant(doc: str, run: str, order: str = "1") -> Claimant:
    return Claimant(doc, f"v-{run}", run, order.rjust(4, "0"), f"in/{doc}.pdf")


@pytest.fixture
def store(stack: Stack) -> DuplicateStore:
    return DuplicateStore(load_settings().duplicate_table)


def test_of_two_copies_claiming_one_key_the_second_gets_the_first(store: DuplicateStore) -> None:
    assert store.claim(PK, claimant("d-a", "run-a"), FACTS, "number", "t1") is None
    held = store.claim(PK, claimant("d-b", "run-b"), FACTS, "number", "t2")
    assert held is not None and (held["documentId"], held["number"]) == ("d-a", "INV-20931")
    # The same run again (a retried step, a replay): still its own.
    assert store.claim(PK, claimant("d-a", "run-a"), FACTS, "number", "t3") is None
    assert (store.get(PK) or {})["runId"] == "run-a"


def test_racing_claims_leave_exactly_one_holder(store: DuplicateStore) -> None:
    """Eight copies released at one barrier, ten rounds: each round exactly one wins."""
    for round_ in range(10):
        pk = claim_pk(f"race|{round_}")
        barrier = threading.Barrier(8)
        answers: dict[int, dict[str, Any] | None] = {}

        def claim(
            i: int,
            pk: str = pk,
            barrier: threading.Barrier = barrier,
            answers: dict[int, dict[str, Any] | None] = answers,
        ) -> None:
            barrier.wait()
            answers[i] = store.claim(pk, claimant(f"d-{i}", f"run-{i}"), FACTS, "number", "t")

        threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        winners = [i for i, held in answers.items() if held is None]
        assert len(winners) == 1
        assert {held["documentId"] for held in answers.values() if held} == {f"d-{winners[0]}"}


def test_a_documents_versions_are_never_each_others_duplicates(store: DuplicateStore) -> None:
    assert store.claim(PK, claimant("d-a", "run-old", "1"), FACTS, "number", "t1") is None
    assert store.claim(PK, claimant("d-a", "run-new", "2"), FACTS, "number", "t2") is None
    assert (store.get(PK) or {})["runId"] == "run-new"  # the newer version took it over
    # The older run, late (a retried step), neither takes it back nor is flagged.
    assert store.claim(PK, claimant("d-a", "run-old", "1"), FACTS, "number", "t3") is None
    assert (store.get(PK) or {})["runId"] == "run-new"
    assert store.release(PK, "run-old") is False  # the older run's archive leaves it alone
    assert store.release(PK, "run-new") is True and store.get(PK) is None
    assert store.release(PK, "run-new") is False  # a repeat deletes nothing


def test_a_key_whose_holder_ended_is_taken_over_only_from_that_holder(
    store: DuplicateStore,
) -> None:
    assert store.claim(PK, claimant("d-a", "run-a"), FACTS, "number", "t1") is None
    assert not store.take_over(PK, claimant("d-b", "run-b"), FACTS, "number", "t2", "run-x")
    assert store.take_over(PK, claimant("d-b", "run-b"), FACTS, "number", "t2", "run-a")
    assert (store.get(PK) or {})["documentId"] == "d-b"
