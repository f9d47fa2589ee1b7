"""Step: a run about to finalize settles its duplicate keys (docs/payment-controls.md,
"Duplicates").

`settle duplicate keys` runs right before `finalize` for a document that claimed keys or met
an earlier one. Each key is marked finalized for this run (`DuplicateStore.settle`): its own
claim, the claim of the earlier version it replaces (a person approved it at `duplicate`), or a
key nobody holds any more (the copy it met was archived since). From then on a new version of
the document meets the keys as a finalized bill, and waits.

A newer version of the document that claimed one of the keys while this run was on its way
(this run had not finalized, so it took them over) means this run is superseded: it is
archived instead of finalizing, so the two versions of one bill never both finalize. Keys held
by another document stay where they are: a person approved this one as not a duplicate of it.

A claims table out of reach is retried; when it stays out of reach the run fails
(`internal-error`) rather than finalize a bill whose keys a re-saved copy could take over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow.document import DocumentSummary
from docflow.ids import DocumentRef
from docflow.pipeline.duplicates import CLAIMS, claimant, duplicate_keys
from docflow.pipeline.serdes import RecordSerDes
from docflow.readmodel.schema import now_iso
from docflow.runtime import runtime
from docflow.suppliers.duplicates import SETTLED, SUPERSEDED, DuplicateStore, claim_pk


class SettledJson(TypedDict):
    settled: int
    superseded: bool


@dataclass(frozen=True)
class Settled:
    """The settle step: how many keys are now marked finalized for this run, and whether a
    newer run of the document holds one (then this run must not finalize)."""

    settled: int = 0
    superseded: bool = False

    def to_json(self) -> SettledJson:
        return {"settled": self.settled, "superseded": self.superseded}

    @classmethod
    def from_json(cls, raw: SettledJson) -> Settled:
        return cls(int(raw.get("settled", 0)), bool(raw.get("superseded", False)))


SETTLE_STEP = CLAIMS.config(RecordSerDes(Settled))  # the claims table's tries, as a claim's


def settle_due(summary: DocumentSummary) -> bool:
    """Pure, on checkpointed values: the run claimed keys or met an earlier document."""
    return bool(summary.duplicate_keys or summary.duplicate_of)


@durable_step
def settle_duplicates(step: StepContext, doc: DocumentRef, summary: DocumentSummary) -> Settled:
    keys = duplicate_keys(summary)
    store, who, at = DuplicateStore(runtime().settings.duplicate_table), claimant(doc), now_iso()
    settled = 0
    for readable, kind in keys.claims.items():
        outcome = store.settle(claim_pk(readable), who, keys.facts, kind, at)
        if outcome == SUPERSEDED:
            # What it marked already goes back with the archive's release (this run's own).
            step.logger.info("duplicate keys held by a newer run", extra={"settled": settled})
            return Settled(settled, superseded=True)
        settled += outcome == SETTLED
    step.logger.info("duplicate keys settled", extra={"settled": settled})
    return Settled(settled)
