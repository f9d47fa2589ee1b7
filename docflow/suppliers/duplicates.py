"""Duplicate bills: the table that holds the claims (template.yaml's `DuplicateTable`,
docs/payment-controls.md "Duplicates"); the keys are made in `duplicate_keys`.

    pk = DUP#<sha256 of the key>    kind, documentId, version, runId, runOrder, the values it
                                    was made of (number, date, total, currency, vendor), the
                                    key of the upload, claimedAt; finalizedAt once its run
                                    finalized

A claim is one conditional put: it succeeds when no one holds the key, or when this run does
and has not finalized. Any other holder is answered with the stored item
(`ReturnValuesOnConditionCheckFailure`), so two racing copies cannot both claim one key, and
`claim` says what the holder is: another document (a hit, or, if its run ended without
finalizing, a key to take over); an older run of the same document that did not finalize (to
take over: a new version supersedes it); a version of the same document that finalized (a hit:
a re-saved bill is paid once, unless a person says the new version replaces it); a newer run of
the same document (left alone: the older run is superseded).

A run that is about to finalize marks its claims (`settle`): from then on a new version of its
document meets them as a finalized bill. The mark is conditional on the run still holding the
key, so a newer version that took a key over while this run was on its way is seen, and this
run is superseded instead of finalizing too. A release deletes only what this run holds (a
condition on `runId`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from docflow.dynamo import ConditionFailed, Table
from docflow.suppliers.duplicate_keys import Facts


def claim_pk(key: str) -> str:
    """The item's key: a digest, so no printed value is a key of the table."""
    return "DUP#" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:40]


class ClaimItem(TypedDict, total=False):
    """A claim as the claims table holds it: the key (`pk`) and how it was made (`kind`),
    the run that holds it (document, version, run, its order, file), when, the facts the
    earlier document's reviewer is shown, and `finalizedAt` once that run finalized."""

    pk: str
    kind: str
    documentId: str
    version: str
    runId: str
    runOrder: str
    key: str
    claimedAt: str
    number: str  # the facts (`FactsJson`)
    date: str
    total: str
    currency: str
    vendor: str
    finalizedAt: str


@dataclass(frozen=True)
class Claimant:
    """The run that claims: its document, version and run, where it sorts among the
    document's runs (`DocumentRef.run_order`), and its upload's key."""

    document_id: str
    version: str
    run_id: str
    run_order: str
    key: str

    def is_holder(self, item: ClaimItem) -> bool:
        return item.get("runId") == self.run_id

    def same_document(self, item: ClaimItem) -> bool:
        return item.get("documentId") == self.document_id

    def is_older_than(self, item: ClaimItem) -> bool:
        """A run of this document that sorts after this one holds `item`."""
        return self.same_document(item) and str(item.get("runOrder") or "") > self.run_order


def finalized(item: ClaimItem) -> bool:
    """The claim's run finalized its document."""
    return bool(item.get("finalizedAt"))


# What a claim found (`Claim.outcome`).
HELD = "held"  # this run holds the key now
YIELDED = "yielded"  # a newer run of this document holds it: not a duplicate of anything
HIT = "hit"  # another document holds it, or a version of this one that finalized
OLDER = "older"  # an older run of this document holds it, not marked finalized: the claimant
# takes it over (`take_over`) unless that run finalized before claims were marked


@dataclass(frozen=True)
class Claim:
    """A claim's outcome and, unless this run holds the key, the holder's item."""

    outcome: str
    holder: ClaimItem

    @property
    def held(self) -> bool:
        return self.outcome == HELD


# What a run about to finalize found (`DuplicateStore.settle`).
SETTLED = "settled"  # the run's claim is marked finalized (taken over from the version it
# replaces, or claimed now that no one holds it)
SUPERSEDED = "superseded"  # a newer run of the document holds the key: this one must not finalize
ELSEWHERE = "elsewhere"  # another document holds it (a person said this is not a duplicate)


def _claim_item(
    pk: str, who: Claimant, facts: Facts, kind: str, at: str, final_at: str = ""
) -> ClaimItem:
    """A claim: the key, who holds it (document, version, run, its order, file) and the facts
    the earlier document's reviewer is shown; `finalizedAt` once the run finalized."""
    return {
        "pk": pk,
        "kind": kind,
        "documentId": who.document_id,
        "version": who.version,
        "runId": who.run_id,
        "runOrder": who.run_order,
        "key": who.key,
        "claimedAt": at,
        **facts.to_json(),
        **({"finalizedAt": final_at} if final_at else {}),
    }


class DuplicateStore:
    """The claims table; every write is conditional, so each call is safe to repeat."""

    def __init__(self, table: str, client: Any = None) -> None:
        self.table = Table(table, client)

    def claim(self, pk: str, who: Claimant, facts: Facts, kind: str, at: str) -> Claim:
        """Claim the key for `who`; the module's docstring says who yields to whom."""
        try:
            self.table.put(
                _claim_item(pk, who, facts, kind, at),
                condition="attribute_not_exists(pk) OR "
                "(runId = :run AND attribute_not_exists(finalizedAt))",
                values={":run": who.run_id},
            )
        except ConditionFailed as held:
            holder = cast("ClaimItem", held.item)
        else:
            return Claim(HELD, {})
        if who.is_holder(holder):
            return Claim(HELD, {})  # this run finalized already (a redelivered run)
        if not who.same_document(holder):
            return Claim(HIT, holder)
        if who.is_older_than(holder):
            return Claim(YIELDED, holder)
        if not finalized(holder):
            return Claim(OLDER, holder)
        if holder.get("version") == who.version:
            return Claim(YIELDED, holder)  # a reprocess of the version that finalized
        return Claim(HIT, holder)  # a new version of a bill already finalized

    def take_over(
        self, pk: str, who: Claimant, facts: Facts, kind: str, at: str, held_by: str
    ) -> bool:
        """Claim a key whose holder (run `held_by`) did not finalize and will not (it failed,
        was archived, or is an older version of this document); False if it changed hands or
        finalized meanwhile."""
        item = _claim_item(pk, who, facts, kind, at)
        try:
            self.table.put(
                item,
                condition="runId = :held AND attribute_not_exists(finalizedAt)",
                values={":held": held_by},
            )
        except ConditionFailed:
            return False
        return True

    def settle(self, pk: str, who: Claimant, facts: Facts, kind: str, at: str) -> str:
        """Before `who` finalizes: mark its claim finalized (SETTLED), taking it over from an
        older run of its document (the version it replaces) or claiming it if no one holds it;
        SUPERSEDED when a newer run of the document holds it; ELSEWHERE when another document
        does. One conditional put when `who` holds it (the common case); repeats answer the
        same."""
        item = _claim_item(pk, who, facts, kind, at, final_at=at)
        condition, values = "runId = :held", {":held": who.run_id}
        for _ in range(3):
            try:
                self.table.put(item, condition=condition, values=values)
            except ConditionFailed as failed:
                holder = cast("ClaimItem", failed.item)
            else:
                return SETTLED
            if not holder:
                condition, values = "attribute_not_exists(pk)", {}
            elif who.is_holder(holder):
                return SETTLED  # marked already (a repeat)
            elif not who.same_document(holder):
                return ELSEWHERE
            elif who.is_older_than(holder):
                return SUPERSEDED
            else:  # an older run's claim of this document: the version this one replaces
                condition, values = "runId = :held", {":held": str(holder["runId"])}
        raise RuntimeError(f"the claim {pk} kept changing hands")

    def release(self, pk: str, run_id: str) -> bool:
        """Delete the claim if run `run_id` holds it: True if it did (nothing if another run
        holds it or no one does, so a repeat is harmless)."""
        try:
            self.table.delete(
                {"pk": pk},
                condition="runId = :run",
                values={":run": run_id},
            )
        except ConditionFailed:
            return False
        return True

    def get(self, pk: str) -> ClaimItem | None:
        return cast("ClaimItem | None", self.table.get({"pk": pk}))


_SAME = {
    "number": "supplier and number",
    "amount": "supplier, date and total",
    "bill": "number and total",
    "window": "supplier and total within a week (a possible duplicate)",
    "declared": "values of its duplicate key",
}


def duplicate_lines(state: Mapping[str, Any]) -> list[str]:
    """`docflow show`'s lines for the documents this one may duplicate (`duplicateOf`), and
    the earlier version a finalized one replaces (`replaces`)."""
    lines = []
    for e in state.get("duplicateOf") or []:
        total = " ".join(str(e[k]) for k in ("total", "currency") if e.get(k))
        facts = [f"{k} {v}" for k, v in (("number", e.get("number")), ("date", e.get("date"))) if v]
        facts += [f"total {total}"] if total else []
        said = f"{e.get('documentId')} ({e.get('status') or 'unknown'}"
        said += f", {', '.join(facts)})" if facts else ")"
        same = "; ".join(_SAME.get(str(b), str(b)) for b in e.get("by") or [])
        lines.append(f"{'duplicateOf':11} {said}: the same {same}" if same else said)
    replaced = state.get("replaces")
    if isinstance(replaced, Mapping) and replaced.get("documentId"):
        lines.append(
            f"{'replaces':11} {replaced['documentId']} version {replaced.get('version')}"
            " (finalized before: a payment system reverses it)"
        )
    return lines
