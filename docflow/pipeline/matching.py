"""Steps: an invoice matched to its order, and the hand-off between their runs (docs/matching.md).

The flow that calls them, and the names and order of its durable operations, is
docflow/flows/matching.py; nothing here makes a durable call. Each step's side effects are
conditional writes (`docflow.matching.store`), so a step that runs again repeats nothing.

The hand-off: an invoice whose order is not there waits on a callback. Its submitter lists
the callback under the order (a conditional put), then reads the order's partition with a
consistent read and, if the order (or a new receipt) is there already, completes the callback
itself. An order's run, after its order record is written, reads the waiting invoices the same
way and completes each callback, then marks it woken (a conditional update). Either the waiter
sees the order or the order sees the waiter; a callback completed twice answers "gone", which
is no error; and a second finalize of the order finds every waiter marked, and wakes none.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig
from aws_durable_execution_sdk_python.context import durable_wait_for_callback
from aws_durable_execution_sdk_python.types import WaitForCallbackContext

from docflow.document import DocumentSummary
from docflow.ids import DocumentRef
from docflow.matching.detail import match_detail
from docflow.matching.keys import BILL, OrderKey, role_of
from docflow.matching.lines import decimal_of, lines_from_einvoice, lines_from_rows
from docflow.matching.records import (
    BILLED,
    RESERVED,
    BillRecord,
    OrderFile,
    OrderRecord,
    ReceiptRecord,
    Waiter,
)
from docflow.matching.results import (
    HELD,
    MATCHED,
    SUPERSEDED,
    MatchRecord,
    OrderRef,
    Sighting,
    Woken,
)
from docflow.matching.store import OrderStore
from docflow.matching.verdict import NONE, Bill, Bounds, Difference, Judgement, judge
from docflow.pipeline.serdes import RecordSerDes
from docflow.readmodel.schema import make_report, now_iso
from docflow.readmodel.transitions import AWAITING_MATCH
from docflow.review.stage.callbacks import CallbackGone
from docflow.review.stage.register import RegisterStore
from docflow.runtime import runtime
from docflow.storage import match_key

ORDER_KIND, RECEIPT_KIND = "order", "receipt"
LOOK_STEP = StepConfig(serdes=RecordSerDes(Sighting))
MATCH_STEP = StepConfig(serdes=RecordSerDes(MatchRecord))
WOKEN_STEP = StepConfig(serdes=RecordSerDes(Woken))
RACES = 5  # judged again when another bill took from the order between the read and the write


def _store() -> OrderStore:
    return OrderStore(runtime().settings.order_table)


def page_lines(summary: DocumentSummary) -> tuple[tuple[Any, ...], bool, str]:
    """A page's `lines` table: its lines, whether they were read with confidence (its checks
    ran and passed, or a reviewer corrected it), and if not, why."""
    table = summary.field("lines")
    rows = table.rows if table is not None else None
    if not rows or table is None:
        return (), False, "no line items were read"
    lines = lines_from_rows(r for r in rows if isinstance(r, Mapping))
    if table.unverified and not table.corrected:
        return lines, False, "its line items do not add up to its net amount, or were read unsure"
    return lines, True, ""


def bill_of(doc: DocumentRef, summary: DocumentSummary) -> Bill:
    """The invoice's side of the match: an e-invoice's lines from its data (exact), a page's
    from its `lines` table."""
    data = summary.einvoice_key
    if data:
        raw = runtime().store.get_json(data)
        lines = lines_from_einvoice(raw["invoice"].get("lines") or ())
        verified, why = bool(lines), "" if lines else "the e-invoice has no lines"
    else:
        lines, verified, why = page_lines(summary)
    return Bill(
        role=role_of(summary.doc_type),
        document_id=doc.document_id,
        number=summary.text("invoice_number"),
        currency=summary.text("currency").upper(),
        total=decimal_of(summary.text("total_amount")),
        lines=tuple(lines),
        lines_verified=verified,
        why_unverified=why,
    )


def _deadline(given: str, now: datetime) -> datetime:
    if given:
        return datetime.fromisoformat(given)
    return now + timedelta(seconds=runtime().rules.matching.timeout_seconds)


@durable_step
def look(
    step: StepContext, doc: DocumentRef, key: OrderKey, summary: DocumentSummary, deadline: str = ""
) -> Sighting:
    """Is the order there, and (three-way) do its receipts cover what the invoice bills? The
    first look fixes the deadline every later wait of this run runs to."""
    rules = runtime().rules.matching
    now = datetime.now(UTC)
    until = _deadline(deadline, now)
    file = _store().read(key)
    covered = False
    if file.order is not None and file.receipts:
        bill = bill_of(doc, summary)
        if bill.role == BILL:
            judged = judge(bill, file, rules, three_way=True)
            covered = not any(d.code in ("no-receipt", "not-received") for d in judged.differences)
    seen = Sighting(
        order=file.order is not None,
        receipts=len(file.receipts),
        covered=covered,
        deadline=until.isoformat(timespec="seconds"),
        wait_s=max(0, int((until - now).total_seconds())),
    )
    step.logger.info("order looked up", extra=seen.to_json())
    return seen


def _wake(store: OrderStore, key: OrderKey, waiter: Waiter, by: str) -> bool:
    """Complete a waiting invoice's callback, then mark it woken (in that order: a crash
    between the two sends again, which the service answers as gone)."""
    result = json.dumps({"woken": waiter.kind, "by": by}).encode()
    # Gone: completed already (by itself, or an earlier wake), or its run has ended.
    with contextlib.suppress(CallbackGone):
        runtime().callbacks.success(waiter.callback_id, result)
    return store.mark_woken(key, waiter, by)


@durable_wait_for_callback
def await_document(
    callback_id: str,
    ctx: WaitForCallbackContext,
    doc: DocumentRef,
    key: OrderKey,
    kind: str,
    round_: int,
    seen: Sighting,
) -> None:
    """Runs as a step: list this wait under the order, then look once more; if what it waits
    for came meanwhile, complete the wait here. Otherwise the read model says what it waits for
    (`awaiting-match`), and the order's (or a receipt's) run will complete it."""
    rt, store = runtime(), _store()
    waiter = Waiter(doc.document_id, doc.version, doc.run_id, kind, round_, callback_id, now_iso())
    store.add_waiter(key, waiter)
    file = store.read(key)
    came = file.order is not None if kind == ORDER_KIND else len(file.receipts) > seen.receipts
    if came:
        _wake(store, key, waiter, doc.document_id)
        ctx.logger.info("what it waits for is there", extra={"kind": kind})
        return
    awaiting = {
        "kind": kind,
        "order": key.printed or key.number,
        "supplier": key.supplier,
        "deadline": seen.deadline,
        "receipts": len(file.receipts),
    }
    index = 0 if kind == ORDER_KIND else 1 + round_
    report = make_report(
        doc, AWAITING_MATCH, f"await {kind}", stage_index=index, payload={"awaiting": awaiting}
    )
    rt.reporter.report(report)
    ctx.logger.info("waiting for the order's documents", extra={"kind": kind, "round": round_})


def _taken(
    store: OrderStore,
    doc: DocumentRef,
    key: OrderKey,
    bill: Bill,
    judged: Judgement,
    file: OrderFile,
) -> bool | None:
    """The bill's share taken (True), already taken by this run (True), refused because the
    order changed meanwhile (None: judge again), or not to be taken (False)."""
    if not judged.within_balance:
        return False
    previous = file.bill_of(doc.document_id)
    if previous is not None and previous.run_order == doc.run_order and previous.counts:
        return True  # a retry of this step: its share is there
    record = BillRecord(
        doc.document_id,
        doc.version,
        doc.run_order,
        bill.role,
        bill.number,
        judged.amount,
        judged.quantities,
        RESERVED,
        now_iso(),
    )
    taken = store.take(key, record, previous, judged.amount_bounds, judged.quantity_bounds)
    return True if taken else None


@durable_step
def match_order(
    step: StepContext, doc: DocumentRef, key: OrderKey, summary: DocumentSummary
) -> MatchRecord:
    """The invoice against its order: the verdict, and its share of the order reserved when
    the balance allows. A run a newer version replaced matches nothing (its review stage then
    ends it as superseded, mailing no one)."""
    rt = runtime()
    rules, store = rt.rules.matching, _store()
    role = role_of(summary.doc_type)
    if not RegisterStore(rt.settings.links_table).is_latest(doc):
        return MatchRecord(SUPERSEDED, role, OrderRef(key), NONE)
    bill = bill_of(doc, summary)
    three_way = rules.three_way and role == BILL
    for _ in range(RACES):
        file = store.read(key)
        judged = judge(bill, file, rules, three_way)
        taken = _taken(store, doc, key, bill, judged, file)
        if taken is not None:
            break
    else:  # five bills in a row took from the order between our read and our write
        race = Difference("over-billed", "the order's balance kept changing; check what is left")
        judged, taken = replace(judged, differences=(*judged.differences, race)), False
    status = MATCHED if judged.clean and taken else HELD
    order = file.order
    ref = OrderRef(key, order.document_id, order.version) if order else OrderRef(key)
    record = MatchRecord(
        status=status,
        role=role,
        order=ref,
        basis=judged.basis,
        basis_why=judged.basis_why,
        differences=judged.differences,
        difference_count=len(judged.differences),
        three_way=three_way,
        receipts=len(file.receipts),
        amount=str(judged.amount),
        billed_before=str(judged.billed_before),
        reserved=bool(taken),
        tolerance=rules.tolerances_json(),
        key=match_key(doc),
    )
    rt.store.put_json(record.key, match_detail(record, bill, file, judged))
    step.logger.info(
        "invoice matched",
        extra={"status": status, "basis": judged.basis, "differences": len(judged.differences)},
    )
    return record


@durable_step
def settle_billing(
    step: StepContext,
    doc: DocumentRef,
    match: MatchRecord,
    summary: DocumentSummary,
    overridden_by: str,
    note: str,
) -> MatchRecord:
    """Before its invoice finalizes: its reserved share becomes billed; or, approved at the
    match stage past what the balance allowed, its share is taken on the reviewer's word."""
    record = match
    if overridden_by:
        record = record.overridden(overridden_by, note)
    if record.order is None or record.status == SUPERSEDED:
        return record
    store, key = _store(), record.order.key
    file = store.read(key)
    mine = file.bill_of(doc.document_id)
    if mine is not None and mine.run_order == doc.run_order and mine.counts:
        store.settle(key, mine, overridden_by)  # False on a retry: settled already
        return replace(record, billed=True)
    if file.order is None:
        return record  # approved although its order never came: nothing to bill against
    bill = bill_of(doc, summary)
    judged = judge(bill, file, runtime().rules.matching, three_way=False)
    forced = BillRecord(
        doc.document_id,
        doc.version,
        doc.run_order,
        bill.role,
        bill.number,
        judged.amount,
        judged.quantities,
        BILLED,
        now_iso(),
        overridden_by,
    )
    taken = store.take(key, forced, mine, Bounds(), {})
    step.logger.info("billed on a reviewer's word", extra={"taken": taken})
    return replace(record, billed=taken)


@durable_step
def release_billing(step: StepContext, doc: DocumentRef, record: MatchRecord) -> bool:
    """Its invoice archived: its reserved share goes back to the order."""
    if record.order is None or not record.reserved:
        return False
    store, key = _store(), record.order.key
    mine = store.read(key).bill_of(doc.document_id)
    if mine is None or mine.run_order != doc.run_order or mine.state != RESERVED:
        return False
    return store.release(key, mine)


def _lines_of(summary: DocumentSummary) -> tuple[tuple[Any, ...], bool]:
    lines, verified, _why = page_lines(summary)
    return lines, verified


@durable_step
def register_order(
    step: StepContext, doc: DocumentRef, key: OrderKey, summary: DocumentSummary
) -> bool:
    """A reviewed purchase order, as its summary says it after its reviews, in the store."""
    lines, verified = _lines_of(summary)
    order = OrderRecord(
        key=key,
        document_id=doc.document_id,
        version=doc.version,
        run_order=doc.run_order,
        vendor=summary.text("vendor_name"),
        currency=summary.text("currency").upper(),
        total=decimal_of(summary.text("total_amount")),
        lines=tuple(lines),
        lines_verified=verified,
        finalized_at=now_iso(),
    )
    written = _store().put_order(order)
    step.logger.info("order registered", extra={"written": written, "lines": len(lines)})
    return written


@durable_step
def register_receipt(
    step: StepContext, doc: DocumentRef, key: OrderKey, summary: DocumentSummary
) -> bool:
    lines, verified = _lines_of(summary)
    receipt = ReceiptRecord(
        document_id=doc.document_id,
        version=doc.version,
        run_order=doc.run_order,
        number=summary.text("delivery_number"),
        delivered_on=summary.text("delivery_date"),
        lines=tuple(lines),
        lines_verified=verified,
    )
    written = _store().put_receipt(key, receipt)
    step.logger.info("receipt registered", extra={"written": written, "lines": len(lines)})
    return written


@durable_step
def wake_waiters(step: StepContext, doc: DocumentRef, key: OrderKey, kind: str) -> Woken:
    """Complete the callback of every invoice waiting for this kind of document under the
    order, once each."""
    store = _store()
    woken = already = 0
    for waiter in store.read(key).waiters:
        if waiter.kind != kind:
            continue
        if waiter.woken:
            already += 1
        elif _wake(store, key, waiter, doc.document_id):
            woken += 1
    step.logger.info("waiting invoices woken", extra={"woken": woken, "already": already})
    return Woken(woken, already)
