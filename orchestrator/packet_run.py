"""A packet's run (docs/packets.md): several documents in one file become one ordinary run
per part; this run ends when the split is settled. Control flow only."""

from __future__ import annotations

from dataclasses import replace

from aws_durable_execution_sdk_python import DurableContext

from docflow.document import DocumentSummary
from docflow.errors import UNRENDERABLE_PAGE
from docflow.flows.packet import start_parts
from docflow.ids import DocumentRef
from docflow.pipeline.classify import summarize_batches
from docflow.pipeline.finalize import WRITE_STEP, finalize_document
from docflow.pipeline.meter import run_meter
from docflow.pipeline.packet import PACKET, PLAN_STEP, plan_packet
from docflow.pipeline.results import PacketPlan, Reading, Split
from docflow.pipeline.run_state import RunState
from docflow.readmodel.transitions import APPROVED, CLASSIFIED, FINALIZED
from docflow.rules.routed import stages_json
from orchestrator.endings import RunEnded, archive, await_review, fail, record


def as_packet(
    context: DurableContext, doc: DocumentRef, split: Split, batches: Reading
) -> RunEnded | None:
    """The packet's run from its plan on, or None: a packet of one part goes on as the single
    document it is (one step more, no run more)."""
    plan = context.step(plan_packet(doc, split), name="plan parts", config=PLAN_STEP)
    if len(plan.parts) > 1:
        return process_packet(context, doc, split, batches, plan)
    if split.refused_pages:  # a single document with a page PDFium refuses
        page = split.refused_pages[0]
        return fail(context, doc, UNRENDERABLE_PAGE, f"page {page} cannot be loaded")
    return None


def process_packet(
    context: DurableContext, doc: DocumentRef, split: Split, batches: Reading, plan: PacketPlan
) -> RunEnded:
    """A packet of several parts: each part becomes an ordinary document with a run of its own
    (`start_parts`); this run ends when the split is settled, without waiting for them. An
    unsure boundary waits on the split stage first, whose approved parts replace the plan's."""
    engines = summarize_batches(batches.results)["engines"]
    packet = DocumentSummary(PACKET, pages=split.pages, engines=engines)
    summary = packet.to_json()  # its reports carry what a packet is: its type, pages, parts
    stages = (plan.stage,) if plan.stage else ()
    record(
        context,
        doc,
        CLASSIFIED,
        "classify",
        {**summary, "parts": len(plan.parts), "stages": stages_json(stages)},
    )
    parts = plan.ranges
    if plan.stage is not None:
        proposal = {"pages": split.pages, "parts": [list(p) for p in plan.parts]}
        proposal |= {"unsure": list(plan.unsure), "planKey": plan.key}
        shown = replace(RunState(packet, stages, {}, split.plan).for_reviewer(), split=proposal)
        review = await_review(context, doc, 0, plan.stage, shown)
        if review.status != APPROVED or review.decision is None:
            ended = {"stage": review.stage, "decision": review.status}
            return archive(context, doc, packet, review.reason, batches, None, ended)
        parts = [list(p) for p in review.decision.parts]
    started = start_parts(context, doc, parts)
    counts = {"parts": len(parts), "partsFailed": started.failed}
    summary |= counts
    meter = run_meter(context, batches.results, PACKET, plan.usage)
    # The final record: the packet and each of its parts.
    finished = replace(packet, more={**counts, "children": started.described(doc)})
    done = context.step(finalize_document(doc, finished, meter), "finalize", WRITE_STEP)
    record(
        context, doc, FINALIZED, "finalize", {"resultKey": done.key, "cost": done.cost, **summary}
    )
    return RunEnded(doc, FINALIZED, replace(packet, more=counts))
