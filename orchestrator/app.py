"""The docflow pipeline as one durable execution per document version. Control flow only.

    received -> supersede older runs -> split -> read e-invoice (an XML or a hybrid PDF)
             -> read pages (map over batches; an XML's one page is its invoice as text)
             -> a packet of several parts: plan parts -> (an unsure boundary: the split
                stage) -> write each part and start its run -> finalize (docs/packets.md)
             -> classify (an e-invoice's type: its type code's) -> extract fields (the
                bank-details check) -> enrich (summary, risk)
             -> claim the duplicate keys (the same invoice again: the duplicate stage)
             -> read on a learned profile with no stage: sampled into the audit stage
             -> an invoice citing an order: wait for it (and its receipts), match it line by
                line, reserve its share of the order (a difference: the match stage)
             -> for each review stage: wait for its reviewers (a quorum, reminders and
                escalation in rounds of durable waits) -> approved? next : archive
                (an approved triage stage adds the picked type's stages and fields)
             -> an approved fields review: propose the supplier when the reviewer asked (an
                operator approves it), and teach the page's layout (its shadow read graded)
             -> settle the duplicate keys (a newer version holding one: superseded)
             -> bill the order, or register an order or receipt and wake its invoices
             -> finalize
    anything unrecoverable -> failed, with a reason code

Every side effect is a named step in `docflow.pipeline`; this module and the flows it calls
(`docflow.flows`: reading, enrich, duplicates, triage, matching, review rounds, a packet's
parts) only decide what runs next, from checkpointed values, so it replays identically. How a
run waits, records and ends is `endings.py`; a packet's own run is `packet_run.py`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aws_durable_execution_sdk_python import (
    CallbackSubmitterError,
    DurableContext,
    DurableOperationError,
    durable_execution,
)

from docflow.classify.sensitive import beyond_issuer
from docflow.errors import IntakeError
from docflow.flows.duplicates import claim_again, claim_keys, settle_keys
from docflow.flows.enrich import batch_wait, enrich_document, enriched_into
from docflow.flows.matching import match_again, match_orders, settle_matching
from docflow.flows.reading import einvoice_of, read_pages
from docflow.flows.triage import after_triage
from docflow.ids import DocumentRef
from docflow.observability import DocLogger, logger
from docflow.pipeline.audit import AUDIT_STEP, audit_candidate, sample_for_audit
from docflow.pipeline.classify import (
    CLASSIFY_STEP,
    classify_document,
    every_page_blank,
    summarize_batches,
)
from docflow.pipeline.duplicates import replaces_of
from docflow.pipeline.extract import (
    EXTRACT_STEP,
    apply_corrections,
    extract_fields,
    extracted_into,
    final_fields,
)
from docflow.pipeline.finalize import WRITE_STEP, finalize_document
from docflow.pipeline.learn import learn_supplier, lesson_of, propose_supplier
from docflow.pipeline.meter import run_meter
from docflow.pipeline.record import function_version
from docflow.pipeline.results import Classification, Reading
from docflow.pipeline.run_state import RunState
from docflow.pipeline.split import SPLIT_STEP, XML, split_document
from docflow.pipeline.supersede import SUPERSEDE_STEP, SUPERSEDED, end_older_runs, still_latest
from docflow.readmodel.transitions import (
    APPROVED,
    CLASSIFIED,
    ENRICHING,
    FAILED,
    FINALIZED,
    READING,
    RECEIVED,
)
from docflow.rules.routed import stages_from_json
from docflow.suppliers.route import issuer_iban_privacy, learning_due
from docflow.telemetry.plugin import orchestrator_plugins
from orchestrator.endings import FoundBefore, RunEnded, archive, await_review, fail, record
from orchestrator.packet_run import as_packet

# A document none of whose pages has ink: a terminal failure that says so, not a triage.
BLANK_DOCUMENT = "blank-document"


def run_document(event: Any, context: DurableContext) -> dict[str, Any]:
    try:
        doc = DocumentRef.from_event(event)
    except IntakeError as exc:
        logger.error("refused execution input", extra={"reason": exc.reason})
        return {"status": FAILED, "reason": exc.reason, "message": exc.message}
    context.set_logger(DocLogger(doc.log_keys()))
    try:
        return process(context, doc).to_json()
    except CallbackSubmitterError as exc:
        said = f"reviewers could not be notified: {exc.message}"
        return fail(context, doc, "notify-failed", said).to_json()
    except DurableOperationError as exc:
        # A step that kept failing after its retries: the document fails, the run does not.
        return fail(context, doc, "internal-error", f"{exc.error_type}: {exc.message}").to_json()


# One OpenTelemetry trace per run when DOCFLOW_OTEL turns tracing on (docs/trace.md).
handler = durable_execution(run_document, plugins=orchestrator_plugins())


def process(context: DurableContext, doc: DocumentRef) -> RunEnded:
    record(
        context,
        doc,
        RECEIVED,
        "intake",
        {"bucket": doc.bucket, "key": doc.key, "etag": doc.content_tag}
        | {"functionVersion": function_version(context)}  # the version it runs to the end
        | (doc.part.payload() if doc.part else {}),  # a packet's part: its packet and pages
    )

    # A newer version ends the reviews older runs wait on; a run that is itself older stops.
    older = context.step(end_older_runs(doc), "supersede older runs", SUPERSEDE_STEP)
    if not older.latest:
        return archive(context, doc, None, SUPERSEDED)

    split = context.step(split_document(doc), name="split", config=SPLIT_STEP)
    if not split.ok:
        return fail(context, doc, split.reason, split.message)
    record(
        context,
        doc,
        READING,
        "read",
        {"pages": split.pages, "bytes": split.bytes, "batches": len(split.batches)},
    )

    einvoice = einvoice_of(context, doc, split)  # its data in S3, its small object here
    batches = read_pages(context, doc, split.plan, xml=split.einvoice == XML)
    if batches.error is not None:
        return fail(context, doc, batches.error.reason, batches.error.message)
    blank = every_page_blank(batches.results)  # from the checkpointed batch summaries
    if blank:
        read: FoundBefore = {"engines": summarize_batches(batches.results)["engines"]}
        return fail(context, doc, BLANK_DOCUMENT, blank, read)
    if split.packet:  # the rules read it as a packet: one document per part
        ended = as_packet(context, doc, split, batches)
        if ended is not None:
            return ended

    stated = einvoice.document_type if einvoice else None  # the type code, not keywords
    found = context.step(classify_document(doc, batches.results, stated), "classify", CLASSIFY_STEP)
    run = route(context, doc, found, RunState.classified(found, split, einvoice))
    record(context, doc, CLASSIFIED, "classify", run.classified_report)
    run = match_orders(context, doc, run)  # waits for its order (and receipts): docs/matching.md

    run, ended = review_all(context, doc, run, batches)
    if ended is not None:
        return ended
    run = teach_registry(context, doc, run)
    # A click can race a newer version's cancel and win; the replaced content still stops here.
    if run.stages and not context.step(still_latest(doc), name="check newest run"):
        return archive(context, doc, run.summary, SUPERSEDED, batches, run.usage)

    # Its duplicate keys marked finalized; a newer version that took one meanwhile wins.
    if not settle_keys(context, doc, run):
        return archive(context, doc, run.summary, SUPERSEDED, batches, run.usage)

    run = settle_matching(context, doc, run)  # its share of the order billed; an order wakes
    # The run prices itself in its last step (operations, step time, pages by engine).
    meter = run_meter(context, batches.results, run.summary.doc_type, run.usage)
    done = context.step(finalize_document(doc, run.summary, meter), "finalize", WRITE_STEP)
    replaced = replaces_of(doc, run.summary)  # the finalized version a payment system reverses
    finished = {"resultKey": done.key, "cost": done.cost, **final_fields(run.summary), **replaced}
    record(context, doc, FINALIZED, "finalize", finished)
    return RunEnded(doc, FINALIZED, run.summary, replaces=replaced)


def route(
    context: DurableContext, doc: DocumentRef, found: Classification, run: RunState
) -> RunState:
    """After classify: the fields, the summary and risk, and the payment controls; the
    document's summary and the review stages it goes through, in order."""
    if found.extract:
        # Its stages (a `fields` review when a check fails) are checkpointed, like classify's.
        data = run.summary.einvoice_key  # an e-invoice: its fields from its data
        extracted = context.step(
            extract_fields(doc, found.doc_type, run.plan, data), "extract", EXTRACT_STEP
        )
        # An IBAN held back at classify routes to privacy unless it was the issuer's.
        privacy = issuer_iban_privacy(found.privacy_held, extracted.ibans)
        run = extracted_into(run, extracted, privacy)
    # Summary and risk: on-demand under the token budget, or a wait for a batch job (a pile),
    # which the read model shows as `enriching` while it lasts. The issuer's own payee IBANs
    # are no sensitive data to the risk rules (docflow/classify/sensitive.py).
    judged = replace(found, sensitive=beyond_issuer(found.sensitive, list(run.summary.ibans)))
    enriched = enrich_document(
        context,
        doc,
        judged,
        run.plan,
        lambda seconds: record(context, doc, ENRICHING, "enrich", batch_wait(seconds)),
    )
    run = enriched_into(run, enriched)
    if found.extract:  # the same invoice again waits at `duplicate` (docs/payment-controls.md)
        run = claim_keys(context, doc, run)
    candidate = audit_candidate(run.summary, run.stages)  # read on a profile, seen by nobody
    if candidate is not None:
        sampled = context.step(sample_for_audit(doc, candidate), "audit sample", AUDIT_STEP)
        run = run.with_stages(stages_from_json(sampled))
    return run


def review_all(
    context: DurableContext, doc: DocumentRef, run: RunState, batches: Reading
) -> tuple[RunState, RunEnded | None]:
    """Each review stage in turn; the run's state after them, or the archived result when a
    stage was not approved."""
    index = 0
    while index < len(run.stages):  # an approved triage stage adds the picked type's stages
        stage = run.stages[index]
        review = await_review(context, doc, index, stage, run.for_reviewer())
        if review.status != APPROVED or review.decision is None:
            how = {"stage": review.stage, "decision": review.status}
            return run, archive(context, doc, run.summary, review.reason, batches, run.usage, how)
        decision = review.decision
        run = run.with_decided(review.record or {})
        # A reviewer's corrected fields.
        run = replace(run, summary=apply_corrections(run.summary, decision))
        if decision.add_supplier and not run.add_supplier:
            run = replace(run, add_supplier=True, proposer=decision.reviewer)
        if stage.choices:  # triage: the reviewer picked the type; route and extract it
            run = after_triage(context, doc, run, index, decision)
        run = claim_again(context, doc, run, index, stage, decision)  # a corrected number
        run = match_again(context, doc, run, index)  # a corrected order number: matched again
        index += 1
    return run, None


def teach_registry(context: DurableContext, doc: DocumentRef, run: RunState) -> RunState:
    """What an approved fields review teaches the supplier registry; the run after it."""
    summary = run.summary
    # "Add this supplier": a proposal an operator approves; the registry is not written here.
    if run.add_supplier and summary.supplier_id is None:
        step = propose_supplier(doc, summary, run.plan, run.proposer)
        summary = summary.with_proposal(context.step(step, name="propose supplier"))
    # An approved fields review or audit teaches the page's layout (a conditional write) and
    # grades its shadow read; an audit's corrections are the profile's misses.
    if learning_due(summary, run.stages, run.decided):
        lesson = lesson_of(summary, run.shadow, run.stages, run.decided)
        context.step(learn_supplier(doc, lesson, run.plan), name="learn supplier profile")
    return replace(run, summary=summary)
