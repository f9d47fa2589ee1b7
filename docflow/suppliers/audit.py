"""The audit of learned profiles: which documents read on a profile a person checks anyway,
and the ledger that counts what went through unreviewed and what the audits found.

A document that would finalize with no person, some of its fields read on a learned profile,
is sampled at a rate only (`with_sample`): the draw is an HMAC under a secret key of the
document's content and version (`docflow.suppliers.audit_key`), never a function of its name.
A field's probation is before it is trusted (the graded shadow reads), not the documents
after it. Sampled documents wait at the audit stage.

The ledger is one item per learned layout in the registry's table (a run from before layouts
counted under its supplier's id):

    pk = AUDIT#<layoutId>     listing = "AUDIT", listedAt = layoutId (the sparse
                              `by-listing` index `docflow audit` queries, never a Scan)
      graded, gradedValues, gradedMisses   the reviews that graded the layout's shadow read:
                              the audit's first window (the learn step counts them)
      unreviewed, unreviewedValues     documents (and profile values) that went through
      sampled     documents sent to the audit stage
      audited, valuesAudited, misses, documentsWithMiss   what approved audits found
      outcomes    the last audits: documentId, fields, misses, decidedBy, at
      runs, audits, gradedRuns   run ids already counted (a step that runs twice counts
                              once)

Every change is a conditional write on the item's `version`; a writer that lost a race reads
again and reapplies, so concurrent runs of one supplier all count.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from docflow.dynamo import ConditionFailed, Table
from docflow.suppliers.shapes import (
    AuditCounts,
    AuditOutcome,
    AuditReport,
    AuditRun,
    AuditSummary,
    GradedSummary,
    LayoutAudit,
    Ledger,
    SampledSummary,
    Share,
)
from docflow.suppliers.store import SupplierStore

LISTING = "AUDIT"
ATTEMPTS = 8
KEEP = 100  # run ids remembered per list
KEEP_OUTCOMES = 50
RATE = "rate"
COUNTS = (
    "graded",
    "gradedValues",
    "gradedMisses",
    "unreviewed",
    "unreviewedValues",
    "sampled",
    "audited",
    "valuesAudited",
    "misses",
    "documentsWithMiss",
)


def audit_pk(supplier_id: str) -> str:
    return f"AUDIT#{supplier_id}"


def with_sample(
    ledger: Ledger, run_id: str, fields: Sequence[str], chosen: bool
) -> tuple[Ledger | None, str]:
    """The ledger after one document read on the profile (None when this run was counted
    already), and why it is audited: "rate" when `chosen` (the secret draw,
    `audit_key.sampled`), else "". A repeat answers as the first time did, whatever it is
    told now."""
    for seen in ledger.get("runs") or []:
        if seen.get("run") == run_id:
            return None, str(seen.get("audit", ""))
    why = RATE if chosen else ""
    new = _counts(ledger)
    if why:
        new["sampled"] += 1
    else:
        new["unreviewed"] += 1
        new["unreviewedValues"] += len(fields)
    runs = [*(ledger.get("runs") or []), AuditRun(run=run_id, audit=why)][-KEEP:]
    return cast("Ledger", {**ledger, **new, "runs": runs}), why


def with_graded(
    ledger: Ledger, run_id: str, fields: Sequence[str], misses: Sequence[str]
) -> Ledger | None:
    """The ledger after one review graded the layout's shadow read (`fields` graded, of them
    `misses` wrong); None when this run was counted already."""
    seen = list(ledger.get("gradedRuns") or [])
    if run_id in seen:
        return None
    new = _counts(ledger)
    new["graded"] += 1
    new["gradedValues"] += len(fields)
    new["gradedMisses"] += len(misses)
    return cast("Ledger", {**ledger, **new, "gradedRuns": [*seen, run_id][-KEEP:]})


def with_outcome(ledger: Ledger, run_id: str, outcome: AuditOutcome) -> Ledger | None:
    """The ledger after an approved audit; `outcome`: documentId, fields (audited), misses
    (the fields the auditor corrected), decidedBy, at. None when counted already."""
    audits = list(ledger.get("audits") or [])
    if run_id in audits:
        return None
    new = _counts(ledger)
    new["audited"] += 1
    new["valuesAudited"] += len(outcome["fields"])
    new["misses"] += len(outcome["misses"])
    new["documentsWithMiss"] += 1 if outcome["misses"] else 0
    kept = [*(ledger.get("outcomes") or []), outcome][-KEEP_OUTCOMES:]
    return cast("Ledger", {**ledger, **new, "outcomes": kept, "audits": [*audits, run_id][-KEEP:]})


def _counts(ledger: Mapping[str, object]) -> AuditCounts:
    return cast("AuditCounts", {k: int(str(ledger.get(k) or 0)) for k in COUNTS})


class AuditLedger:
    """The ledger items in the supplier table (`SupplierStore`'s table)."""

    def __init__(self, table: str, ddb: Any = None) -> None:
        self.table = Table(table, ddb)

    def get(self, supplier_id: str) -> Ledger:
        return cast("Ledger", self.table.get({"pk": audit_pk(supplier_id)}) or {})

    def change(self, supplier_id: str, apply: Callable[[Ledger], Ledger | None]) -> Ledger:
        """Apply `apply` (old ledger -> new, or None for no change) by a conditional write on
        `version`; the ledger after it."""
        for _ in range(ATTEMPTS):
            old = self.get(supplier_id)
            new = apply(old)
            if new is None:
                return old
            version = int(old.get("version", 0))
            item = {
                **{k: v for k, v in new.items() if k != "pk" and v is not None},
                "supplierId": supplier_id,
                "listing": LISTING,
                "listedAt": supplier_id,
                "version": version + 1,
            }
            # An update, not a put: the functions update registry items, they never put one
            # whole (least privilege in template.yaml).
            names = {f"#a{i}": k for i, k in enumerate(item)}
            sets = ", ".join(f"#a{i} = :a{i}" for i in range(len(item)))
            values = {f":a{i}": v for i, v in enumerate(item.values())}
            try:
                self.table.update(
                    {"pk": audit_pk(supplier_id)},
                    f"SET {sets}",
                    condition="attribute_not_exists(pk) OR #a_version = :was",
                    names={**names, "#a_version": "version"},
                    values={**values, ":was": version},
                )
            except ConditionFailed:
                continue  # another run's count landed first: read it and count again
            return cast("Ledger", {**item, "pk": audit_pk(supplier_id)})
        raise RuntimeError(f"supplier {supplier_id}: audit ledger kept changing")

    def sample(self, supplier_id: str, run_id: str, fields: Sequence[str], chosen: bool) -> str:
        """Count one document read on the profile; why it is audited (`with_sample`)."""
        answer: list[str] = []

        def apply(old: Ledger) -> Ledger | None:
            new, why = with_sample(old, run_id, fields, chosen)
            answer[:] = [why]
            return new

        self.change(supplier_id, apply)
        return answer[0]

    def grade(self, owner: str, run_id: str, fields: Sequence[str], misses: Sequence[str]) -> None:
        """Count one review's graded shadow read (`with_graded`)."""
        self.change(owner, lambda old: with_graded(old, run_id, fields, misses))

    def record(self, supplier_id: str, run_id: str, outcome: AuditOutcome) -> None:
        """`outcome`: what the audit found (`docflow.pipeline.audit.audit_outcome`)."""
        self.change(supplier_id, lambda old: with_outcome(old, run_id, outcome))

    def all(self) -> list[Ledger]:
        """Every supplier's ledger (a Query on the sparse index, never a Scan)."""
        return cast(
            "list[Ledger]", SupplierStore(self.table.name, self.table.client).listed(LISTING)
        )


def estimate(misses: int, values: int) -> Share | None:
    """The share of wrong values, and its 95% interval (Wilson's, statsmodels'
    `proportion_confint`); None with nothing audited. Imported here only: the functions
    never call it, the CLI and the benchmark do."""
    if values <= 0:
        return None
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(misses, values, alpha=0.05, method="wilson")
    return {"share": misses / values, "low": float(low), "high": float(high)}


def _scaled(share: Share | None, n: int) -> Share | None:
    if share is None:
        return None
    return Share(
        share=round(share["share"] * n, 2),
        low=round(share["low"] * n, 2),
        high=round(share["high"] * n, 2),
    )


def summarize(ledger: Mapping[str, object]) -> AuditSummary:
    """One layout's (or all layouts') counts: the graded reads (the first window) and the
    sampled audits apart, each with its share of wrong values and Wilson's interval, and the
    wrong values the sample's share implies among those that went through unreviewed."""
    c = _counts(ledger)
    sampled_share = estimate(c["misses"], c["valuesAudited"])
    return AuditSummary(
        graded=GradedSummary(
            documents=c["graded"],
            values=c["gradedValues"],
            misses=c["gradedMisses"],
            wrongShare=estimate(c["gradedMisses"], c["gradedValues"]),
        ),
        sampled=SampledSummary(
            documents=c["sampled"],
            audited=c["audited"],
            values=c["valuesAudited"],
            misses=c["misses"],
            documentsWithMiss=c["documentsWithMiss"],
            wrongShare=sampled_share,
        ),
        unreviewed=c["unreviewed"],
        unreviewedValues=c["unreviewedValues"],
        expectedWrongValues=_scaled(sampled_share, c["unreviewedValues"]),
    )


def report(ledgers: Sequence[Ledger], named: Mapping[str, tuple[str, str]]) -> AuditReport:
    """`docflow audit --json`: per layout (by id) and overall; `named`: layout id ->
    (issuer, supplier id), each "" when unknown."""
    rows = []
    for lg in sorted(ledgers, key=lambda lg: str(lg["supplierId"])):
        owner = str(lg["supplierId"])
        issuer, supplier = named.get(owner, ("", ""))
        rows.append(
            LayoutAudit(
                layoutId=owner,
                issuer=issuer or None,
                supplierId=supplier or None,
                **summarize(lg),
            )
        )
    total = {k: sum(int(str(lg.get(k) or 0)) for lg in ledgers) for k in COUNTS}
    overall = summarize(total)
    return {"layouts": rows, "overall": overall, "confidence": 0.95, "method": "wilson"}
