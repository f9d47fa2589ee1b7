"""The edges of the claims table (`docflow/suppliers/duplicates.py`): what a claim, a take-over
and a settle store (how the key was made, the upload, when), the holder rewriting its own claim
and nobody else's, which run of a document is newer (an order missing or equal is not), a
settle that keeps meeting another holder giving up after three tries, the store's own client,
and `docflow show`'s line for an earlier document nothing was read of. Each test names the
boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from typing import Any

import pytest

from docflow import aws
from docflow.dynamo import ConditionFailed
from docflow.settings import load_settings
from docflow.suppliers.duplicate_keys import Facts
from docflow.suppliers.duplicates import (
    Claimant,
    DuplicateStore,
    claim_pk,
    duplicate_lines,
)
from tests.support.aws import Stack

FACTS = Facts("INV-20931", "2026-03-04", "1100.00", "USD", "ACME SUPPLIES LTD")
PK = claim_pk("number|name:acme supplies|INV20931")


def claimant(doc: str, run: str, order: str = "0001") -> Claimant:
    return Claimant(doc, f"v-{run}", run, order, f"in/{doc}.pdf")


@pytest.fixture
def store(stack: Stack) -> DuplicateStore:
    return DuplicateStore(load_settings().duplicate_table)


def stored(store: DuplicateStore) -> tuple[Any, ...]:
    item = store.get(PK) or {}
    return (item.get("kind"), item.get("key"), item.get("claimedAt"), item.get("runId"))


def test_a_claim_stores_how_its_key_was_made_the_upload_and_when(store: DuplicateStore) -> None:
    who = claimant("d-a", "run-a")
    assert store.claim(PK, who, FACTS, "number", "2026-03-05T10:00:00Z").held
    assert stored(store) == ("number", "in/d-a.pdf", "2026-03-05T10:00:00Z", "run-a")
    # The holder claiming again (a retried step) rewrites its own claim.
    assert store.claim(PK, who, FACTS, "bill", "2026-03-05T11:00:00Z").held
    assert stored(store) == ("bill", "in/d-a.pdf", "2026-03-05T11:00:00Z", "run-a")
    # Another document's claim leaves it as it is.
    assert not store.claim(PK, claimant("d-b", "run-b"), FACTS, "amount", "2026-03-06").held
    assert stored(store) == ("bill", "in/d-a.pdf", "2026-03-05T11:00:00Z", "run-a")


def test_a_take_over_and_a_settle_store_their_kind_and_time(store: DuplicateStore) -> None:
    store.claim(PK, claimant("d-a", "run-a"), FACTS, "number", "t1")
    newer = claimant("d-a", "run-b", "0002")
    assert store.take_over(PK, newer, FACTS, "amount", "t2", "run-a")
    assert stored(store) == ("amount", "in/d-a.pdf", "t2", "run-b")
    assert store.settle(PK, newer, FACTS, "bill", "t3") == "settled"
    assert stored(store) == ("bill", "in/d-a.pdf", "t3", "run-b")
    assert (store.get(PK) or {})["finalizedAt"] == "t3"


def test_a_run_is_newer_only_by_an_order_that_sorts_after() -> None:
    who = claimant("d-a", "run-a", "0002")
    assert who.is_older_than({"documentId": "d-a", "runOrder": "0003"})
    assert not who.is_older_than({"documentId": "d-a", "runOrder": "0002"})  # not by itself
    assert not who.is_older_than({"documentId": "d-a", "runOrder": "0001"})
    assert not who.is_older_than({"documentId": "d-a"})  # a holder with no order is not newer
    assert not who.is_older_than({"documentId": "d-b", "runOrder": "0003"})


def test_a_settle_that_keeps_meeting_another_holder_gives_up_after_three_tries() -> None:
    """Each try finds an older run of the document holding the key (the version this one
    replaces), a different one each time: after three puts the settle refuses, saying which
    claim, rather than writing over whoever holds it now."""
    puts: list[dict[str, Any]] = []

    class Table:
        def put(self, item: dict[str, Any], **_: object) -> None:
            puts.append(item)
            raise ConditionFailed({"documentId": "d-a", "runId": f"old-{len(puts)}"})

    store = DuplicateStore("claims")
    store.table = Table()  # type: ignore[assignment]
    who = claimant("d-a", "run-z", "0009")
    with pytest.raises(RuntimeError, match=rf"^the claim {PK} kept changing hands$"):
        store.settle(PK, who, FACTS, "number", "t1")
    assert len(puts) == 3


def test_the_store_reads_and_writes_through_the_client_it_was_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[dict[str, Any]] = []

    class Client:
        def get_item(self, **args: Any) -> dict[str, Any]:
            asked.append(args)
            return {}

    def no_default(*_: object, **__: object) -> object:
        raise AssertionError("a default client was made")

    monkeypatch.setattr(aws, "client", no_default)
    assert DuplicateStore("claims", Client()).get(PK) is None
    assert [a["TableName"] for a in asked] == ["claims"]


def test_an_earlier_document_nothing_was_read_of_is_named_alone() -> None:
    entry = {"documentId": "d-1", "status": "finalized", "by": ["declared"]}
    assert duplicate_lines({"duplicateOf": [entry]}) == [
        "duplicateOf d-1 (finalized): the same values of its duplicate key"
    ]
