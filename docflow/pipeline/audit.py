"""Step: sample a document read on a learned profile into the audit stage.

`audit_candidate` (pure, on checkpointed values) says when the step runs: the document would
finalize with no person (no stage on its route after enrich) and some of its fields were
read on its supplier's profile. The step counts it in the supplier's audit ledger
(`docflow.suppliers.audit`, a conditional write that remembers the run id, so a step that
runs twice counts once and answers the same) and returns the audit stage when it is
sampled: the first `[audit] first` documents after a field became trusted, then a share
`[audit] rate` by document id. With no `[audit] stage` it still counts (what went through
unreviewed is what `docflow audit` reports) and adds nothing.

The registry or the ledger out of reach: retried (AUDIT_STEP), and on the last attempt the
document is audited uncounted (a person sees it rather than nobody, and the document does not
fail for a count).

`audit_outcome` is what an approved audit found, for the learn step to record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow.document import DocumentSummary
from docflow.ids import DocumentRef
from docflow.pipeline.retries import Degrading
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime
from docflow.suppliers.audit import AuditLedger
from docflow.suppliers.route import AUDIT
from docflow.suppliers.store import SupplierStore

SAMPLE = Degrading(attempts=3, first_s=2, most_s=30)
AUDIT_STEP = SAMPLE.config()


def audit_candidate(summary: DocumentSummary, stages: Sequence[RoutedStage]) -> bool:
    """Nobody would see this document, and a learned profile gave some of its values."""
    certain = bool((summary.supplier or {}).get("certain"))
    return not stages and bool(summary.profile_fields) and certain


@durable_step
def sample_for_audit(
    step: StepContext, doc: DocumentRef, summary: DocumentSummary
) -> list[dict[str, Any]]:
    """The audit stage when this document is sampled, else []."""
    rt = runtime()
    controls = rt.rules.controls
    supplier_id = str((summary.supplier or {})["supplierId"])
    fields = sorted(summary.profile_fields)
    try:
        why = _count(rt.settings.supplier_table, doc, supplier_id, fields)
    except Exception as exc:  # the registry out of reach: retried, then a person looks
        if not SAMPLE.last(step):
            raise
        step.logger.warning("audit ledger unreachable", extra={"error": type(exc).__name__})
        why = "ledger-failed"
    step.logger.info(
        "audit sample", extra={"supplierId": supplier_id, "fields": fields, "why": why}
    )
    if not why or not controls.audit_stage:
        return []
    return [RoutedStage.of(rt.rules.stages[controls.audit_stage], AUDIT).to_json()]


def _count(table: str, doc: DocumentRef, supplier_id: str, fields: list[str]) -> str:
    """Count the document in the supplier's ledger; why it is audited ("" when it is not)."""
    controls = runtime().rules.controls
    supplier = SupplierStore(table).get(supplier_id)
    entries = (supplier.profile.get("fields") or {}) if supplier else {}
    epochs = {name: str((entries.get(name) or {}).get("since", "")) for name in fields}
    return AuditLedger(table).sample(
        supplier_id,
        doc.run_id,
        doc.document_id,
        epochs,
        controls.audit_first,
        controls.audit_rate,
    )


def audit_outcome(
    doc: DocumentRef, scored: Mapping[str, str], decision: Mapping[str, Any]
) -> dict[str, Any]:
    """What an approved audit found: the profile fields it checked and those it corrected;
    `decision`: `docflow.suppliers.route.audit_decision`'s answer (who, when)."""
    return {
        "documentId": doc.document_id,
        "runId": doc.run_id,
        "fields": sorted(scored),
        "misses": sorted(k for k, v in scored.items() if v == "miss"),
        "decidedBy": str(decision.get("decidedBy", "")),
        "at": str(decision.get("decidedAt", "")),
    }
