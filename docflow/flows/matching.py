"""Matching as the execution runs it (docs/matching.md): every durable operation of it, in order.

An invoice or credit note that cites an order, after it is classified:

    find order                       is the order there? (fixes the wait's deadline)
    await order                      no: wait for it, no compute billed, until the deadline
    find receipts[ 2| 3]             three-way: do the goods receipts cover what it bills?
    await receipt[ 2| 3]             no: wait for the next receipt, until the same deadline
    match order                      the verdict; its share of the order reserved if the
                                     balance allows; anything short of a match adds the
                                     `match` stage, after the document's other stages

After an approved review stage that changed the order it cites (its number or supplier
corrected, or a triage pick that made it an invoice), the same again, each name followed by
` review-<i>`, after `release order billing review-<i>` gave back what it reserved of the old
order: `find order review-<i>` ... `match order review-<i>`.

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
from docflow.matching.keys import BILL, CREDIT, ORDER, RECEIPT, Cited, OrderKey, cited
from docflow.matching.results import (
    HELD,
    MatchRecord,
    Sighting,
    match_of,
    with_match,
    without_match,
)
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
    cites = cited(run.summary)
    if not runtime().rules.matching.on or cites.role not in (BILL, CREDIT):
        return run
    if any(stage.choices for stage in run.stages):
        return run  # its type is unsure: a person picks it (triage), then `match_again`
    record = _match(context, doc, run, cites)
    return run if record is None else _matched(run, record)


def match_again(context: DurableContext, doc: DocumentRef, run: RunState, index: int) -> RunState:
    """After the approved stage at `index`: when the invoice now cites another order than it
    was matched to (its order number or supplier corrected, or a triage pick made it an
    invoice), its reserved share of the old order goes back and it is matched again (waiting
    as before), each operation named `... review-<index>`; the `match` stage still to come is
    kept only if the new match needs it. Not on a recorded run: nothing changed there."""
    cites = cited(run.summary)
    if not runtime().rules.matching.on or cites.role not in (BILL, CREDIT):
        return run
    before = match_of(run.summary)
    was = before.order.key.pk if before is not None and before.order is not None else None
    now = cites.key.pk if cites.key is not None else None  # as printed or not: the same order
    if was == now and (before is not None or not cites.problem):
        return run  # the same order (or none, as before)
    after = f" review-{index}"
    if before is not None and before.reserved:
        context.step(release_billing(doc, before), name=f"release order billing{after}")
    record = _match(context, doc, run, cites, after)
    # A match stage still to come showed the old match: the new match adds its own if needed.
    stages = tuple(s for i, s in enumerate(run.stages) if i <= index or s.because != MATCH_BECAUSE)
    run = replace(run, stages=stages)
    if record is None:  # it cites no order now
        return replace(run, summary=without_match(run.summary))
    return _matched(run, record)


def _match(
    context: DurableContext, doc: DocumentRef, run: RunState, cites: Cited, after: str = ""
) -> MatchRecord | None:
    """Wait for the order (and receipts) and match; None when it cites no order. `after`
    tells a second match's operation names apart from the first's."""
    rules = runtime().rules.matching
    if cites.key is None:
        if not cites.problem:
            return None  # it cites no order
        unkeyed = Difference("no-supplier", cites.problem)
        return MatchRecord(HELD, cites.role, None, NONE, "", (unkeyed,), 1)
    key = cites.key
    seen = context.step(look(doc, key, run.summary), name=f"find order{after}", config=LOOK_STEP)
    if not seen.order and seen.wait_s > 0:
        _await(context, doc, key, ORDER_KIND, 0, seen, after)
    if rules.three_way and cites.role == BILL:
        for n in range(RECEIPT_ROUNDS):
            seen = context.step(
                look(doc, key, run.summary, seen.deadline),
                name=_numbered("find receipts", n) + after,
                config=LOOK_STEP,
            )
            if not seen.order or seen.covered or seen.wait_s < 1:
                break
            _await(context, doc, key, RECEIPT_KIND, n, seen, after)
    return context.step(match_order(doc, key, run.summary), f"match order{after}", MATCH_STEP)


def _await(
    context: DurableContext,
    doc: DocumentRef,
    key: OrderKey,
    kind: str,
    round_: int,
    seen: Sighting,
    after: str = "",
) -> None:
    """Wait for the order (or the next receipt) until the deadline. However the wait ends,
    `match order` reads the store and says what came and what never did."""
    config = WaitForCallbackConfig(
        timeout=Duration.from_seconds(seen.wait_s), retry_strategy=notify_retry
    )
    try:
        context.wait_for_callback(
            await_document(doc, key, kind, round_, seen),
            name=_numbered(f"await {kind}", round_) + after,
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
    """Who approved the match stage last, and what they wrote (the note), if it was on the
    route (the last: a match made again after a correction is approved again)."""
    name = runtime().rules.matching.stage
    for decided in reversed(run.decided):
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
    who, note = _override(run) if not match.matched else ("", "")
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
