"""Steps: claim a document's duplicate keys before it can finalize, and give them back when it
is archived (docs/payment-controls.md, "Duplicates").

`claim duplicate keys` runs once the stages are known (after enrich) for a document with
fields; the rules' `[duplicates] stage` turns it on. Each key is a conditional write
(`docflow.suppliers.duplicates`), so of two copies racing through two executions exactly one
claims; the other gets the `duplicate` stage, with the earlier document's facts in the summary
(`duplicateOf`) for its review page, `docflow show` and the dashboard. The step then reads,
consistently, the keys of the days around the document's date (`window`): a bill of the same
supplier and total there is a possible duplicate (`possible-duplicate`). Claiming before
reading means of two such bills racing, at least one sees the other.

The claim is keyed to the run, so the step's own retry or replay claims again harmlessly. A new
version of a document takes over the keys of an older version that did not finalize; one whose
earlier version finalized waits at `duplicate`, and if a person approves it, it finalizes
`replaces`-ing that version (`replaces_of`). A reviewer's correction of a value a key is made of
(or a triage pick of a type with fields) claims again (`claim_again`), which may add the stage
then. An archived run's claims are released (`release_duplicates`); a claim whose holder failed
or was archived without releasing is taken over. The flow that settles the keys of a run about
to finalize is `duplicate_settle`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypedDict, cast

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow.document import DocumentSummary
from docflow.document.shown import DuplicateHit
from docflow.dynamo import Table
from docflow.ids import DocumentRef, event_id
from docflow.pipeline.retries import Degrading
from docflow.pipeline.serdes import RecordSerDes
from docflow.readmodel.schema import now_iso
from docflow.readmodel.table import STATE_SK, doc_pk, history_sk
from docflow.readmodel.transitions import ARCHIVED, FAILED, FINALIZED, seq_for
from docflow.review.stage.decision import Decision
from docflow.rules.routed import RoutedStage, RoutedStageJson, stages_from_json, stages_json
from docflow.runtime import runtime
from docflow.storage import result_key
from docflow.suppliers.duplicate_keys import (
    FIRM_KINDS,
    KEY_FIELDS,
    Facts,
    declared_key,
    suppliers_of,
)
from docflow.suppliers.duplicates import (
    OLDER,
    YIELDED,
    Claimant,
    ClaimItem,
    DuplicateStore,
    claim_pk,
    finalized,
)

DUPLICATE = "duplicate"  # the stage's `because`: the same bill again
POSSIBLE = "possible-duplicate"  # only a window hit: the same supplier and total days apart
UNCHECKED = "duplicate-unchecked"  # the check could not run: a person looks instead
# A holder in one of these states will not finalize: its key is free to take.
_ENDED = (FAILED, ARCHIVED)


class DuplicatesJson(TypedDict):
    """The claim step's checkpoint (`Duplicates.to_json`)."""

    keys: list[str]
    earlier: list[DuplicateHit]
    stages: list[RoutedStageJson]


@dataclass(frozen=True)
class Duplicates:
    """The claim step: the claim items this run holds (`keys`), the other documents holding
    one of its keys (`earlier`: id, status, number, date, total, ...) and the stage to add."""

    keys: tuple[str, ...] = ()
    earlier: tuple[DuplicateHit, ...] = ()
    stages: tuple[RoutedStage, ...] = ()

    def to_json(self) -> DuplicatesJson:
        return {
            "keys": list(self.keys),
            "earlier": [e.copy() for e in self.earlier],
            "stages": stages_json(self.stages),
        }

    @classmethod
    def from_json(cls, raw: DuplicatesJson) -> Duplicates:
        return cls(
            tuple(str(k) for k in raw.get("keys", [])),
            tuple(e.copy() for e in raw.get("earlier", [])),
            stages_from_json(raw.get("stages", [])),
        )


@dataclass(frozen=True)
class Keys:
    """What a document claims: its facts, the keys it claims ({readable: kind}) and the
    neighbouring days' keys it only reads ({readable: "window"})."""

    facts: Facts
    claims: dict[str, str]
    window: dict[str, str]


CLAIMS = Degrading(attempts=5, first_s=2, most_s=30)
# DynamoDB out of reach gets a few tries; the last one sends the invoice to a person
# (`duplicate-unchecked`) instead of failing it, as extraction degrades.
CLAIM_STEP = CLAIMS.config(RecordSerDes(Duplicates))


def claimant(doc: DocumentRef) -> Claimant:
    return Claimant(doc.document_id, doc.version, doc.run_id, doc.run_order, doc.key)


def _status(document_id: str) -> str:
    """The holder's status as the read model has it now ("" if it has none)."""
    state = Table(runtime().settings.table_name).get({"pk": doc_pk(document_id), "sk": STATE_SK})
    return str((state or {}).get("status") or "")


def _earlier(held: ClaimItem, status: str, kind: str) -> DuplicateHit:
    """What the review page, `show` and the dashboard say of the earlier document."""
    kept = ("documentId", "version", "key", "number", "date", "total", "currency", "vendor")
    row = cast("Mapping[str, object]", held)
    hit = {**{k: row[k] for k in kept if row.get(k)}, "status": status, "by": [kind]}
    return cast("DuplicateHit", hit)


def duplicate_keys(summary: DocumentSummary) -> Keys:
    """What `summary` claims under the rules: nothing when the control is off or the type
    declares no fields; an invoice's keys when its type reads `invoice_number`; a declared
    `duplicate_key`'s for any type."""
    rt = runtime()
    decl = rt.rules.fields.for_type(summary.doc_type)
    facts = Facts.of(summary, decl)
    if not rt.rules.controls.duplicate_stage or decl is None:
        return Keys(facts, {}, {})
    claims, window = declared_key(decl, summary), {}
    if "invoice_number" in decl.names:
        suppliers = suppliers_of(summary)
        claims = {**facts.keys(suppliers), **claims}
        window = facts.window(suppliers)
    return Keys(facts, claims, window)


def key_fields() -> tuple[str, ...]:
    """Every field a key is made of under the rules: a correction of one claims again."""
    declared = (n for t in runtime().rules.fields.types.values() for n in t.duplicate_key)
    return tuple(dict.fromkeys((*KEY_FIELDS, *declared)))


@durable_step
def claim_duplicates(step: StepContext, doc: DocumentRef, summary: DocumentSummary) -> Duplicates:
    keys = duplicate_keys(summary)
    try:
        return _claim(step, doc, summary, keys)
    except Exception as exc:
        stage = runtime().rules.controls.duplicate_stage
        if not CLAIMS.last(step) or not stage:
            raise
        step.logger.warning("duplicate check failed", extra={"error": type(exc).__name__})
        unchecked = RoutedStage.of(runtime().rules.stages[stage], UNCHECKED)
        # Every key it may hold, so an archive releases them (a release is conditional).
        held = {*summary.duplicate_keys, *(claim_pk(k) for k in keys.claims)}
        return Duplicates(tuple(sorted(held)), (), (unchecked,))


def _shown_status(who: Claimant, holder: ClaimItem) -> str | None:
    """The status to show of a holder that makes this document a duplicate; None when it
    does not (this run, or a run of this document that is not a finalized earlier version,
    or another document's run that ended without finalizing)."""
    if who.is_holder(holder):
        return None
    if who.same_document(holder):
        earlier = finalized(holder) and holder.get("version") != who.version
        return FINALIZED if earlier and not who.is_older_than(holder) else None
    if finalized(holder):
        return FINALIZED
    status = _status(str(holder["documentId"]))
    return None if status in _ENDED else status


def _finalized_before(holder: ClaimItem) -> bool:
    """A claim of an older version, not marked finalized: did its run finalize all the same,
    before runs marked their claims (`settle`)? Its `finalized` report in the read model's
    history says so (one GetItem: the report's key is a function of the run)."""
    seq = seq_for(FINALIZED)
    reported = event_id(str(holder["runId"]), str(seq), FINALIZED)
    key = {
        "pk": doc_pk(str(holder["documentId"])),
        "sk": history_sk(str(holder.get("runOrder") or ""), seq, reported),
    }
    return Table(runtime().settings.table_name).get(key) is not None


def _claim_one(
    store: DuplicateStore, pk: str, who: Claimant, facts: Facts, kind: str, at: str
) -> tuple[ClaimItem | None, str | None]:
    """Claim one key: (None, None) when this run holds it now; else the holder's item and
    the status to show of it (None: a newer run of this document holds it, no duplicate)."""
    for _ in range(3):  # a holder that moves between the claim and the take-over: again
        found = store.claim(pk, who, facts, kind, at)
        if found.held:
            return None, None
        holder = found.holder
        if found.outcome == YIELDED:
            return holder, None
        if found.outcome == OLDER and _finalized_before(holder):
            return holder, FINALIZED
        status = None if found.outcome == OLDER else _shown_status(who, holder)
        if status is not None:
            return holder, status
        # An older version that did not finalize, or another document's run that ended
        # without finalizing: its key is free to take (a write on the holder's run id).
        if store.take_over(pk, who, facts, kind, at, str(holder["runId"])):
            return None, None
    raise RuntimeError(f"the claim {pk} kept changing hands")


def _claim(step: StepContext, doc: DocumentRef, summary: DocumentSummary, keys: Keys) -> Duplicates:
    rt = runtime()
    if not keys.claims and not summary.duplicate_keys:
        return Duplicates()
    store, who, at = DuplicateStore(rt.settings.duplicate_table), claimant(doc), now_iso()
    held: list[str] = []
    earlier: dict[str, DuplicateHit] = {}

    def seen(holder: ClaimItem, status: str, kind: str) -> None:
        entry = earlier.setdefault(str(holder["documentId"]), _earlier(holder, status, kind))
        if kind not in entry["by"]:
            entry["by"].append(kind)

    # In one order every run shares, and no new claim once another document holds one: of two
    # copies racing, the one that wins their first key holds them all and the other none, so
    # exactly one passes (claiming on past a hit, each held a key of the other's, and both
    # waited). The keys after a hit are read, for the review page, or kept if held already.
    hit = False
    for readable, kind in sorted(keys.claims.items(), key=lambda claim: claim_pk(claim[0])):
        pk = claim_pk(readable)
        if hit and pk not in summary.duplicate_keys:
            found = store.get(pk)  # a key no one holds is claimed if a person lets it pass
            status = _shown_status(who, found) if found else None
            if found and status is not None:
                seen(found, status, kind)
            continue
        holder, status = _claim_one(store, pk, who, keys.facts, kind, at)
        if holder is None:
            held.append(pk)
        elif status is not None:
            hit = True
            seen(holder, status, kind)
    for entry in earlier.values():  # as the keys are listed, not as they were claimed
        entry["by"].sort(key=list(keys.claims.values()).index)
    # Claimed first, then read: of two bills days apart racing, one sees the other.
    for readable, kind in keys.window.items():
        near = store.get(claim_pk(readable))
        status = _shown_status(who, near) if near else None
        if near and status is not None:
            seen(near, status, kind)
    # A corrected value's old keys: no longer this document's, so no longer held.
    for stale in sorted(set(summary.duplicate_keys) - set(held)):
        store.release(stale, doc.run_id)
    step.logger.info(
        "duplicate keys claimed",
        extra={"claimed": len(held), "keys": len(keys.claims), "hits": len(earlier)},
    )
    stages = _stage(tuple(earlier.values()))
    return Duplicates(tuple(sorted(set(held))), tuple(earlier.values()), stages)


def _stage(earlier: tuple[DuplicateHit, ...]) -> tuple[RoutedStage, ...]:
    """The `duplicate` stage when anything was found: `because` says whether a key of the same
    bill was held (`duplicate`) or only a neighbouring day's (`possible-duplicate`)."""
    stage = runtime().rules.controls.duplicate_stage
    if not earlier or not stage:
        return ()
    firm = any(kind in FIRM_KINDS for e in earlier for kind in e["by"])
    return (RoutedStage.of(runtime().rules.stages[stage], DUPLICATE if firm else POSSIBLE),)


def claim_due(stage: RoutedStage, decision: Decision) -> bool:
    """On checkpointed values and the rules: did this decision change what the keys are made
    of (a corrected number, date, total, currency, vendor or declared key field; a triage
    pick, which reads fields)?"""
    return bool(stage.choices) or any(n in decision.corrections for n in key_fields())


class ReplacedVersion(TypedDict):
    documentId: str
    version: str
    resultKey: str


class Replaces(TypedDict, total=False):
    """What a finalized version adds to its record when it replaces an earlier one."""

    replaces: ReplacedVersion


def replaces_of(doc: DocumentRef, summary: DocumentSummary) -> Replaces:
    """Pure: `{"replaces": {documentId, version, resultKey}}`, the earlier version of this
    document that finalized and that this one (approved at `duplicate`) replaces: what a
    payment system reverses. `{}` for a document that replaces nothing."""
    for e in summary.duplicate_of:
        version = str(e.get("version") or "")
        same = e.get("documentId") == doc.document_id and version and version != doc.version
        if same and e.get("status") == FINALIZED:
            earlier = result_key(replace(doc, version_id=version))
            return {
                "replaces": {
                    "documentId": doc.document_id,
                    "version": version,
                    "resultKey": earlier,
                }
            }
    return {}


@durable_step
def release_duplicates(step: StepContext, doc: DocumentRef, keys: Sequence[str]) -> int:
    """Delete the claims this run holds (each on the condition that it still does): how many
    went. A repeat deletes nothing more."""
    store = DuplicateStore(runtime().settings.duplicate_table)
    released = sum(1 for pk in keys if store.release(str(pk), doc.run_id))
    step.logger.info("duplicate keys released", extra={"released": released})
    return released
