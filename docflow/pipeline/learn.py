"""Steps: what an approved fields review teaches the supplier registry.

`propose supplier` (when the reviewer asked to "add this supplier"): a proposal for the
issuer, under the name the page prints, with the checked ids the document prints
(`suppliers.enrol`, `suppliers.proposals`). It writes no supplier: an operator approves it,
and the approver must not be the proposer (issue 43). The summary gains `supplierProposed`.

`learn supplier profile` runs after the review decisions and before finalize (after an
approved fields review, or an approved audit: `docflow.suppliers.route.learning_due`). It
locates each confirmed value on the pages (the words the read step stored in S3), takes the
label before it, its region, its place from the label and its shape, merges the page's
layout into the supplier's fingerprint (`suppliers.fingerprint`), and writes the profile by a
conditional write on the profile's version (`SupplierStore.update_profile`): a step that
runs twice learns once (the run id is remembered), and two reviews of one supplier racing
both land. Each update
appends a `profile` entry to the supplier's history, in the same transaction. After an
audit it also records what the audit found in the supplier's audit ledger (each corrected
profile field a miss, `docflow.suppliers.audit`).
"""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow.document import DocumentSummary
from docflow.extract.rules_engine.engine import layout_of
from docflow.extract.rules_engine.layout import Page
from docflow.ids import DocumentRef
from docflow.pipeline.audit import audit_outcome
from docflow.pipeline.extract import page_inputs
from docflow.runtime import runtime
from docflow.suppliers import fingerprint as fingerprints
from docflow.suppliers import history
from docflow.suppliers import profile as profiles
from docflow.suppliers.audit import AuditLedger
from docflow.suppliers.enrol import propose_from_page
from docflow.suppliers.shapes import Profile
from docflow.suppliers.store import SupplierStore


def outcomes(summary: DocumentSummary) -> dict[str, str]:
    """Per field the profile read: "hit" (the reviewer kept it) or "miss" (corrected)."""
    out: dict[str, str] = {}
    for name in summary.profile_fields:
        f = summary.field(name)
        changed = f is not None and f.corrected and str(f.original) != str(f.value)
        out[name] = "miss" if changed else "hit"
    return out


def profile_values(summary: DocumentSummary) -> dict[str, str]:
    """The approved values a supplier's profile may learn where it prints: every read or
    corrected scalar field, but one the registry filled; never a table (its value is a count
    of rows, no place on a page)."""
    return {
        name: str(f.value)
        for name, f in sorted((summary.fields or {}).items())
        if f.value not in (None, "") and f.source != "registry" and not f.is_table
    }


def _layouts(doc: DocumentRef, plan: list[list[int]]) -> list[Page]:
    """The pages extraction read, as layouts, from the words the read step stored in S3."""
    rules = runtime().classifier.rules.fields  # type: ignore[attr-defined]
    return [layout_of(p) for p in page_inputs(doc, plan, rules.max_pages)]


@durable_step
def propose_supplier(
    step: StepContext, doc: DocumentRef, summary: DocumentSummary, plan: list[list[int]], by: str
) -> dict[str, Any]:
    """The summary's additions: `supplierProposed` ({"proposalId", "name", "status",
    "conflict"}) or `supplierNotAdded` (why none was filed). `by`: the reviewer who asked."""
    store = SupplierStore(runtime().settings.supplier_table)
    source = (doc.document_id, doc.version_tag)
    proposed = propose_from_page(store, _layouts(doc, plan), summary.fields or {}, source, by)
    step.logger.info(
        "supplier proposed" if proposed.shown else "supplier not proposed",
        extra={"proposal": proposed.shown, "why": proposed.refused},
    )
    return proposed.to_json()


@durable_step
def learn_supplier(
    step: StepContext,
    doc: DocumentRef,
    summary: DocumentSummary,
    plan: list[list[int]],
    audit: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`audit`: who approved the document's audit stage (`route.audit_decision`), if any."""
    rt = runtime()
    rules = rt.classifier.rules.fields  # type: ignore[attr-defined]
    supplier_id = str((summary.supplier or {})["supplierId"])
    layouts = _layouts(doc, plan)
    learned = {
        name: profiles.learn_entry(layouts, name, value)
        for name, value in profile_values(summary).items()
    }
    learned = {k: v for k, v in learned.items() if v is not None or k in outcomes(summary)}
    # A field of the type that the approved review left empty: this supplier does not print it
    # (a rules engine that reads one there later disagrees with a person, and asks one).
    spec = rules.for_type(summary.doc_type)
    for name in spec.scalar_names if spec else ():
        if not getattr(summary.field(name), "value", None):
            learned[name] = {"absent": True}
    scored = outcomes(summary)
    store = SupplierStore(rt.settings.supplier_table)
    taught = ", ".join(sorted(k for k, v in learned.items() if v)) or "outcomes only"

    def note(_after: object) -> history.Entry:
        return history.entry(
            supplier_id,
            history.PROFILE,
            history.LEARN_STEP,
            f"learned from an approved review: {taught}",
            document_id=doc.document_id,
            version=doc.version_tag,
        )

    lines = fingerprints.lines_of(layouts)

    def change(old: Profile) -> Profile | None:
        new = profiles.updated(old, doc.run_id, learned, scored)
        return fingerprints.with_layout(new, old, lines) if new is not None else None

    after = store.update_profile(supplier_id, change, note)
    fields = sorted((after.profile if after else {}).get("fields") or {})
    step.logger.info(
        "supplier profile learned",
        extra={"supplierId": supplier_id, "fields": fields, "outcomes": scored},
    )
    result = {
        "supplierId": supplier_id,
        "learned": sorted(k for k, v in learned.items() if v),
        "outcomes": scored,
        "profileVersion": after.profile_version if after else None,
    }
    if audit is None:
        return result  # as it always was
    found = audit_outcome(doc, scored, audit)
    AuditLedger(rt.settings.supplier_table).record(supplier_id, doc.run_id, found)
    return {**result, "audit": {"fields": found["fields"], "misses": found["misses"]}}
