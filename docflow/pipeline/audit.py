"""Step: sample a document read on a learned profile into the audit stage.

`audit_candidate` (pure, on checkpointed values) says when the step runs, and with what: the
document would finalize with no person (no stage on its route after enrich) and some of its
fields were read on a learned profile. The step draws the sample (`audit_key.sampled`: an
HMAC under a secret key of the document's content tag and version, at `[audit] rate`), counts
the document in the ledger (`docflow.suppliers.audit`, a conditional write that remembers the
run id, so a step that runs twice counts once and answers the same) and returns the audit
stage when it is sampled. With no `[audit] stage` it still counts (what went through
unreviewed is what `docflow audit` reports) and adds nothing.

The registry, the ledger or the key out of reach: retried (AUDIT_STEP), and on the last
attempt the document is audited uncounted (a person sees it rather than nobody, and the
document does not fail for a count).

`audit_outcome` is what an approved audit found, for the learn step to record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow.document import DocumentSummary
from docflow.ids import DocumentRef
from docflow.pipeline.retries import Degrading
from docflow.review.access.keys import KeySource, build_key_source
from docflow.rules.routed import RoutedStage, RoutedStageJson
from docflow.runtime import runtime
from docflow.settings import Settings
from docflow.suppliers.audit import AuditLedger
from docflow.suppliers.audit_key import sample_key, sampled
from docflow.suppliers.route import AUDIT, AuditApproval
from docflow.suppliers.shapes import AuditOutcome

SAMPLE = Degrading(attempts=3, first_s=2, most_s=30)
AUDIT_STEP = SAMPLE.config()


@dataclass(frozen=True)
class Candidate:
    """A document read on a learned profile that nobody would see: whose profile (the
    ledger's owner) and the fields it gave."""

    owner: str
    fields: tuple[str, ...]


def audit_candidate(summary: DocumentSummary, stages: Sequence[RoutedStage]) -> Candidate | None:
    """Nobody would see this document, and a learned layout's profile gave some of its
    values: the layout's ledger counts it (a run from before layouts: its supplier's)."""
    read = tuple(sorted(summary.profile_fields))
    if stages or not read:
        return None
    if summary.layout is not None:
        owner = str(summary.layout.get("layoutId") or "")
        return Candidate(owner, read) if owner else None
    supplier = summary.supplier_id
    return Candidate(supplier, read) if supplier else None


@durable_step
def sample_for_audit(step: StepContext, doc: DocumentRef, read: Candidate) -> list[RoutedStageJson]:
    """The audit stage when this document is sampled, else []."""
    rt = runtime()
    controls = rt.rules.controls
    try:
        chosen = sampled(key_for(rt.settings), content_of(doc), doc.version, controls.audit_rate)
        ledger = AuditLedger(rt.settings.supplier_table)
        why = ledger.sample(read.owner, doc.run_id, read.fields, chosen)
    except Exception as exc:  # the registry or the key out of reach: retried, then a person
        if not SAMPLE.last(step):
            raise
        step.logger.warning("audit ledger unreachable", extra={"error": type(exc).__name__})
        why = "ledger-failed"
    step.logger.info(
        "audit sample", extra={"owner": read.owner, "fields": list(read.fields), "why": why}
    )
    if not why or not controls.audit_stage:
        return []
    return [RoutedStage.of(rt.rules.stages[controls.audit_stage], AUDIT).to_json()]


def key_for(settings: Settings, source: KeySource | None = None) -> bytes:
    """The sample's key, from the review links' ring the settings name
    (`docflow.suppliers.audit_key.sample_key`); one read of the secret per document read on a
    profile with no stage."""
    return sample_key((source or build_key_source(settings)).ring())


def content_of(doc: DocumentRef) -> str:
    """What the sample's draw is keyed by besides the version: the ETag S3 gave the bytes,
    or the version id where the run was started without one."""
    return doc.content_tag or doc.version


def audit_outcome(
    doc: DocumentRef, scored: Mapping[str, str], decision: AuditApproval
) -> AuditOutcome:
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
