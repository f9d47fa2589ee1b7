"""Steps: what an approved review teaches the supplier registry and the learned layouts.

`propose supplier` (when the reviewer asked to "add this supplier"): a proposal for the
issuer, with the name the page prints and the name the reviewer approved, and the checked ids
the document prints (`suppliers.enrol`, `suppliers.proposals`). It writes no supplier: an
operator approves it (choosing one of the two names), and the approver must not be the
proposer (issue 43). The summary gains `supplierProposed`.

`learn supplier profile` runs after the review decisions and before finalize, after an
approved fields review or audit (`docflow.suppliers.route.learning_due`), with the run's
`Lesson` (`lesson_of`: explicit values, never the summary whole). It teaches the page's
layout (`docflow.suppliers.layouts`), registered supplier or not: the layout the extract step
matched, else one the pages match now (taught meanwhile), else a new one. It grades the
layout's shadow read against the approved values (`suppliers.trust.grade`), locates each
approved value on the pages (the words the read step stored in S3: its label, region, place
from the label and shape), merges the page's lines into the fingerprint, and writes the layout
by a conditional write on its version with a history entry: a step that runs twice learns
once (the run id is remembered), two reviews of one layout racing both land. The graded reads
go into the layout's audit ledger (the audit's first window), and after an audit, what it
found (each corrected profile field a miss). A field whose established record a disagreeing
review suspended is named in the step's answer, its history and the log: an operator resets
it (`docflow suppliers profile reset`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow.document import DocumentSummary
from docflow.document.shown import ProposalAnswer
from docflow.extract.rules_engine.engine import layout_of
from docflow.extract.rules_engine.layout import Page
from docflow.ids import DocumentRef
from docflow.observability import count
from docflow.pipeline.audit import audit_outcome
from docflow.pipeline.extract_pages import page_inputs
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime
from docflow.suppliers import fingerprint as fingerprints
from docflow.suppliers import history, trust
from docflow.suppliers import profile as profiles
from docflow.suppliers.audit import AuditLedger
from docflow.suppliers.enrol import propose_from_page
from docflow.suppliers.layouts import Layout, LayoutStore, new_id
from docflow.suppliers.match import match_layout, scanned
from docflow.suppliers.route import AuditApproval, audit_decision, teachers
from docflow.suppliers.shapes import ProfileEntry
from docflow.suppliers.store import SupplierStore

# A checked id or a registered account named the supplier: the layout is linked to it.
_BY_ID = ("fingerprint", "name")


@dataclass(frozen=True)
class Lesson:
    """What an approved review teaches, in explicit values (`lesson_of`)."""

    layout_id: str  # the layout the extract step matched ("" none)
    supplier_id: str  # the registered supplier a checked id or IBAN named ("" none)
    doc_type: str
    values: dict[str, str]  # each approved scalar value (a table's is no place on a page)
    shadow: dict[str, str | None]  # the layout's shadow read at extract
    given: tuple[str, ...] = ()  # the fields the layout gave as values
    reviewers: tuple[str, ...] = ()
    audit: AuditApproval | None = None  # who approved an audit stage, when there was one
    corrected: tuple[str, ...] = field(default=())  # the fields a person changed
    language: str = ""  # the language the extract step read the page in


class AuditFound(TypedDict):
    """What an audit found: the profile fields it checked, and those it corrected."""

    fields: list[str]
    misses: list[str]


class Learned(TypedDict):
    """The `learn supplier profile` step's answer: the layout taught (None: look-alikes none
    of whose lines tells which), the fields it learned, each shadow read's grade, the
    profile's version after it and the fields it suspended; after an audit, what it found."""

    layoutId: str | None
    learned: list[str]
    outcomes: dict[str, str]
    profileVersion: int | None
    suspended: NotRequired[list[str]]
    audit: NotRequired[AuditFound]


def profile_values(summary: DocumentSummary) -> dict[str, str]:
    """The approved values a layout's profile may learn where they are printed: every read
    or corrected scalar field (a name the registry filled too: the layout's issuer); never a
    table (its value is a count of rows, no place on a page)."""
    return {
        name: str(f.value)
        for name, f in sorted((summary.fields or {}).items())
        if f.value not in (None, "") and not f.is_table
    }


def lesson_of(
    summary: DocumentSummary,
    shadow: Mapping[str, str | None],
    stages: Sequence[RoutedStage],
    decided: Sequence[Mapping[str, Any]],
) -> Lesson:
    """Pure, on checkpointed values: the lesson of the run's approved review."""
    layout = summary.layout or {}
    supplier = summary.supplier or {}
    linked = supplier.get("certain") and supplier.get("by") not in _BY_ID
    fields = summary.fields or {}
    corrected = sorted(n for n, f in fields.items() if f.corrected and f.original != f.value)
    return Lesson(
        layout_id=str(layout.get("layoutId") or ""),
        supplier_id=str(supplier.get("supplierId") or "") if linked else "",
        doc_type=summary.doc_type,
        values=profile_values(summary),
        shadow=dict(shadow),
        given=tuple(summary.profile_fields),
        reviewers=tuple(teachers(stages, decided)),
        audit=audit_decision(stages, decided),
        corrected=tuple(corrected),
        language=str(layout.get("language") or ""),
    )


def _layouts(doc: DocumentRef, plan: list[list[int]]) -> list[Page]:
    """The pages extraction read, as layouts, from the words the read step stored in S3."""
    rules = runtime().classifier.rules.fields  # type: ignore[attr-defined]
    return [layout_of(p) for p in page_inputs(doc, plan, rules.max_pages)]


@durable_step
def propose_supplier(
    step: StepContext, doc: DocumentRef, summary: DocumentSummary, plan: list[list[int]], by: str
) -> ProposalAnswer:
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


def graded(lesson: Lesson) -> dict[str, str]:
    """Per field the layout read before the person: HIT, MISS, or nothing to grade."""
    out = {}
    for name, read in sorted(lesson.shadow.items()):
        outcome = trust.grade(name, read, lesson.values.get(name, ""))
        if outcome:
            out[name] = outcome
    return out


def _entries(
    pages: Sequence[Page], lesson: Lesson, declared: Sequence[str]
) -> dict[str, ProfileEntry | None]:
    """What the approved values teach: each located value's entry; a field the profile read
    but that cannot be located now keeps its outcome (None); a declared field the review left
    empty, `absent`."""
    learned: dict[str, ProfileEntry | None] = {
        name: profiles.learn_entry(pages, name, value) for name, value in lesson.values.items()
    }
    learned = {k: v for k, v in learned.items() if v is not None or k in lesson.shadow}
    for name in declared:
        if not lesson.values.get(name):
            learned[name] = {"absent": True}
    return learned


def _which(store: LayoutStore, lesson: Lesson, pages: Sequence[Page], run_id: str) -> str | None:
    """The layout to teach: the one extraction matched; else one the pages match now (another
    review taught it meanwhile); else a new one. None when the pages now match look-alikes
    none of whose own lines tells which."""
    if lesson.layout_id:
        return lesson.layout_id
    found = match_layout(store.outlines(), pages)
    if found.ambiguous:
        return None
    return found.layout.layout_id if found.layout is not None else new_id(run_id)


@durable_step
def learn_supplier(
    step: StepContext, doc: DocumentRef, lesson: Lesson, plan: list[list[int]]
) -> Learned:
    """The layout taught (the module's docstring): {"layoutId", "learned", "outcomes",
    "profileVersion", "suspended"}, and "audit" after an audit."""
    rt = runtime()
    table = rt.settings.supplier_table
    pages = _layouts(doc, plan)
    spec = rt.rules.fields.for_type(lesson.doc_type)
    learned = _entries(pages, lesson, spec.scalar_names if spec else ())
    scored = graded(lesson)
    store = LayoutStore(table)
    layout_id = _which(store, lesson, pages, doc.run_id)
    if layout_id is None:
        step.logger.info("layout not taught: look-alike layouts", extra={"outcomes": scored})
        return {"layoutId": None, "learned": [], "outcomes": scored, "profileVersion": None}
    lines = fingerprints.lines_of(pages)
    at = history.now()
    who = lesson.reviewers[0] if lesson.reviewers else ""
    suspended: list[str] = []

    def change(old: Layout) -> Layout | None:
        new = trust.updated(old.profile, doc.run_id, learned, scored, who, at)
        if new is None:
            return None
        suspended[:] = trust.newly_suspended(old.profile, new)
        return Layout(
            old.layout_id,
            fingerprints.with_layout(new, old.profile, lines, scanned(pages)),
            old.version,
            old.supplier_id or lesson.supplier_id,
            old.doc_type or lesson.doc_type,
            old.language or lesson.language,
        )

    def note(after: Layout) -> history.Entry:
        taught = ", ".join(sorted(k for k, v in learned.items() if v)) or "outcomes only"
        hits = sorted(k for k, v in scored.items() if v == trust.HIT)
        misses = sorted(k for k, v in scored.items() if v == trust.MISS)
        said = f"learned from an approved review: {taught}; graded hits {hits}, misses {misses}"
        if suspended:
            said += f"; suspended {suspended}: an established record disagreed, reset to learn"
        return history.entry(
            after.layout_id,
            history.PROFILE,
            history.LEARN_STEP,
            said,
            document_id=doc.document_id,
            version=doc.version_tag,
        )

    after = store.change(layout_id, change, note)
    ledger = AuditLedger(table)
    # The graded reads are the audit's first window; an audit's own reads are its sample's.
    window = {k: v for k, v in scored.items() if lesson.audit is None or k not in lesson.given}
    if window:
        ledger.grade(layout_id, doc.run_id, sorted(window), sorted(_misses(window)))
    if suspended:
        step.logger.warning(
            "layout fields suspended: an operator resets them",
            extra={"layoutId": layout_id, "fields": suspended},
        )
        count("LayoutFieldsSuspended", len(suspended))  # a retry suspends nothing twice
    logged = {"layoutId": layout_id, "outcomes": scored, "fields": sorted(learned)}
    step.logger.info("layout learned", extra=logged)
    result: Learned = {
        "layoutId": layout_id,
        "learned": sorted(k for k, v in learned.items() if v),
        "outcomes": scored,
        "profileVersion": after.version,
        "suspended": suspended,
    }
    if lesson.audit is None:
        return result
    found = audit_outcome(doc, {k: scored.get(k, trust.HIT) for k in lesson.given}, lesson.audit)
    ledger.record(layout_id, doc.run_id, found)
    return {**result, "audit": {"fields": found["fields"], "misses": found["misses"]}}


def _misses(scored: Mapping[str, str]) -> list[str]:
    return [k for k, v in scored.items() if v == trust.MISS]
