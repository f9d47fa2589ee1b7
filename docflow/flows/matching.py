"""Matching as the execution runs it (docs/matching.md): every durable operation of it, in order.

An invoice or credit note that cites an order, after it is classified:

    find order                       is the order there? (fixes the wait's deadline)
    await order                      no: wait for it, no compute billed, until the deadline
    find receipts[ 2| 3]             three-way: do the goods receipts cover what it bills?
    await receipt[ 2| 3]             no: wait for the next receipt, until the same deadline
    match order                      the verdict; its share of the order reserved if the
                                     balance allows; anything short of a match adds the
                                     `match` stage, after the document's other stages

Before it finalizes, `settle order billing` makes its share billed (approved past the balance
at the match stage: taken on the reviewer's word); archived, `release order billing` gives a
reserved share back. A purchase order or delivery note, before it finalizes: `register order`
(or `register receipt`) then `wake waiting invoices`.

Each branch is taken on checkpointed values only (the summary, the step results), so a replay
takes the same operations. Step bodies are docflow/pipeline/matching.py.
"""

from __future__ import annotations

from dataclasses import replace

from aws_durable_execution_sdk_python import (
    CallbackError,
    CallbackSubmitterError,
    CallbackTimeoutError,
    DurableContext,
)
from aws_durable_execution_sdk_python.config import Duration, WaitForCallbackConfig

from docflow.document import DocumentSummary
from docflow.ids import DocumentRef
from docflow.matching.keys import BILL, CREDIT, ORDER, RECEIPT, OrderKey, cited
from docflow.matching.results import HELD, MatchRecord, Sighting, match_of, with_match
from docflow.matching.verdict import NONE, Difference
from docflow.observability import logger
from docflow.pipeline.matching import (
    LOOK_STEP,
    MATCH_STEP,
    ORDER_KIND,
    RECEIPT_KIND,
    WOKEN_STEP,
    await_document,
    look,
    match_order,
    register_order,
    register_receipt,
    release_billing,
    settle_billing,
    wake_waiters,
)
from docflow.pipeline.review_rounds import notify_retry
from docflow.pipeline.run_state import RunState
from docflow.rules.matching import MATCH_BECAUSE, RECEIPT_ROUNDS
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime


def _numbered(name: str, round_: int) -> str:
    return name if round_ == 0 else f"{name} {round_ + 1}"


def match_orders(context: DurableContext, doc: DocumentRef, run: RunState) -> RunState:
    """An invoice that cites an order: wait for what is missing, match, reserve its share;
    the run after it (its summary's `match`, and the `match` stage unless it matched)."""
    rules = runtime().rules.matching
    cites = cited(run.summary)
    if not rules.on or cites.role not in (BILL, CREDIT):
        return run
    if any(stage.choices for stage in run.stages):
        return run  # its type is unsure: a person picks it (triage) before anything waits
    if cites.key is None:
        if not cites.problem:
            return run  # it cites no order
        unkeyed = Difference("no-supplier", cites.problem)
        return _matched(run, MatchRecord(HELD, cites.role, None, NONE, "", (unkeyed,), 1))
    key = cites.key
    seen = context.step(look(doc, key, run.summary), name="find order", config=LOOK_STEP)
    if not seen.order and seen.wait_s > 0:
        _await(context, doc, key, ORDER_KIND, 0, seen)
    if rules.three_way and cites.role == BILL:
        for n in range(RECEIPT_ROUNDS):
            seen = context.step(
                look(doc, key, run.summary, seen.deadline),
                name=_numbered("find receipts", n),
                config=LOOK_STEP,
            )
            if not seen.order or seen.covered or seen.wait_s < 1:
                break
            _await(context, doc, key, RECEIPT_KIND, n, seen)
    matched = context.step(match_order(doc, key, run.summary), "match order", MATCH_STEP)
    return _matched(run, matched)


def _await(
    context: DurableContext, doc: DocumentRef, key: OrderKey, kind: str, round_: int, seen: Sighting
) -> None:
    """Wait for the order (or the next receipt) until the deadline. However the wait ends,
    `match order` reads the store and says what came and what never did."""
    config = WaitForCallbackConfig(
        timeout=Duration.from_seconds(seen.wait_s), retry_strategy=notify_retry
    )
    try:
        context.wait_for_callback(
            await_document(doc, key, kind, round_, seen),
            name=_numbered(f"await {kind}", round_),
            config=config,
        )
    except CallbackTimeoutError:
        return  # it never came: the match stage says so
    except CallbackSubmitterError as exc:
        # The wait could not be listed under the order: rather than wait unseen, go on now;
        # what is not there sends the invoice to the match stage, to a person.
        logger.error("matching wait not registered", extra={"kind": kind, "error": exc.message})
    except CallbackError as exc:
        logger.error("matching wait failed", extra={"kind": kind, "error": str(exc)})


def _matched(run: RunState, record: MatchRecord) -> RunState:
    """The run with its match, and the match stage where it did not match."""
    run = replace(run, summary=with_match(run.summary, record))
    if record.matched:
        return run
    stage = runtime().rules.stages[str(runtime().rules.matching.stage)]
    return run.with_stages([RoutedStage.of(stage, MATCH_BECAUSE)])


def _override(run: RunState) -> tuple[str, str]:
    """Who approved the match stage, and what they wrote (the note), if it was on the route."""
    name = runtime().rules.matching.stage
    for decided in run.decided:
        if decided.get("stageName") == name and decided.get("decision") == "approved":
            return str(decided.get("reviewer") or ""), str(decided.get("comment") or "")
    return "", ""


def settle_matching(context: DurableContext, doc: DocumentRef, run: RunState) -> RunState:
    """Before the document finalizes: an invoice's share of its order billed; an order or a
    receipt in the store, and the invoices waiting for it woken."""
    if not runtime().rules.matching.on:
        return run
    cites = cited(run.summary)  # as reviewed: a corrected order is registered as corrected
    if cites.key is not None and cites.role in (ORDER, RECEIPT):
        if cites.role == ORDER:
            context.step(register_order(doc, cites.key, run.summary), name="register order")
        else:
            context.step(register_receipt(doc, cites.key, run.summary), name="register receipt")
        kind = ORDER_KIND if cites.role == ORDER else RECEIPT_KIND
        woke = wake_waiters(doc, cites.key, kind)
        context.step(woke, name="wake waiting invoices", config=WOKEN_STEP)
        return run
    match = match_of(run.summary)
    if cites.role not in (BILL, CREDIT) or match is None:
        return run
    who, note = _override(run)
    step = settle_billing(doc, match, run.summary, who, note)
    settled = context.step(step, name="settle order billing", config=MATCH_STEP)
    return replace(run, summary=with_match(run.summary, settled))


def release_order_billing(
    context: DurableContext, doc: DocumentRef, summary: DocumentSummary
) -> None:
    """An archived invoice gives back the share of its order it reserved."""
    match = match_of(summary)
    if match is not None and match.reserved:
        context.step(release_billing(doc, match), name="release order billing")
