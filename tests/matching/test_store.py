"""The order store on moto (the template's OrderTable): an order's balance only ever taken
within its bounds, by one transaction per bill, so racing invoices cannot both take the last
of it; a retried take, a newer version's, a release and a settle each change it once; an older
version of an order never overwrites a newer one; a wait is listed once and woken once."""

from __future__ import annotations

import threading
from dataclasses import replace
from decimal import Decimal

import pytest

from docflow.matching.records import BILLED, RELEASED, RESERVED, BillRecord, Waiter
from docflow.matching.store import OrderStore
from docflow.matching.verdict import judge
from docflow.rules.matching import MatchRules
from docflow.settings import load_settings
from tests.matching.orders import KEY, bill, line, order
from tests.support.aws import Stack

RULES = MatchRules(stage="match")
ORDERED = [line(1, "A-100", "Paper", "10", "100.00"), line(2, "B-220", "Toner", "4", "50.00")]


@pytest.fixture
def store(stack: Stack) -> OrderStore:
    store = OrderStore(load_settings().order_table)
    assert store.put_order(order(ORDERED))
    return store


def _bill_record(document_id: str, run_order: str, amount: str, qty: dict[int, str]) -> BillRecord:
    return BillRecord(
        document_id,
        "v1",
        run_order,
        "bill",
        document_id,
        Decimal(amount),
        {k: Decimal(v) for k, v in qty.items()},
    )


def _take(store: OrderStore, document_id: str, run_order: str, lines: list) -> bool:
    """An invoice's match step, once: read, judge, take within the judgement's bounds."""
    file = store.read(KEY)
    judged = judge(replace(bill(lines), document_id=document_id), file, RULES, three_way=False)
    if not judged.within_balance:
        return False
    record = BillRecord(
        document_id, "v1", run_order, "bill", document_id, judged.amount, judged.quantities
    )
    previous = file.bill_of(document_id)
    return store.take(KEY, record, previous, judged.amount_bounds, judged.quantity_bounds)


def test_two_invoices_judged_on_one_read_cannot_both_take_the_last_of_the_order(
    store: OrderStore,
) -> None:
    six = [line(1, "A-100", "Paper", "6", "100.00")]
    file = store.read(KEY)
    verdicts = []
    for doc in ("d-first", "d-second"):
        judged = judge(bill(six), file, RULES, three_way=False)  # both saw 10 left
        assert judged.within_balance
        record = _bill_record(doc, "1", str(judged.amount), {1: "6"})
        verdicts.append(store.take(KEY, record, None, judged.amount_bounds, judged.quantity_bounds))
    assert verdicts == [True, False]
    again = judge(bill(six), store.read(KEY), RULES, three_way=False)
    assert {d.code for d in again.differences} == {"over-billed"}  # judged again: it waits
    assert store.read(KEY).order.billed_qty[1] == Decimal(6)  # type: ignore[union-attr]


def test_racing_invoices_never_bill_past_the_order(store: OrderStore) -> None:
    """Eight threads, each an invoice for 3 of the 10 ordered: three fit, whoever they are."""
    three = [line(1, "A-100", "Paper", "3", "100.00")]
    results: dict[str, bool] = {}

    def one(n: int) -> None:
        doc = f"d-racer-{n}"
        for _ in range(5):  # judged again when another took first, as the match step does
            file = store.read(KEY)
            judged = judge(bill(three), file, RULES, three_way=False)
            if not judged.within_balance:
                results[doc] = False
                return
            record = _bill_record(doc, "1", str(judged.amount), {1: "3"})
            if store.take(KEY, record, None, judged.amount_bounds, judged.quantity_bounds):
                results[doc] = True
                return
        results[doc] = False

    threads = [threading.Thread(target=one, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    file = store.read(KEY)
    assert sum(results.values()) == 3
    assert file.order is not None and file.order.billed_qty[1] == Decimal(9)
    assert len([b for b in file.bills if b.counts]) == 3


def test_a_take_repeated_changes_nothing_and_a_newer_version_replaces_its_share(
    store: OrderStore,
) -> None:
    four = [line(1, "A-100", "Paper", "4", "100.00")]
    assert _take(store, "d-inv", "1", four)
    assert _take(store, "d-inv", "1", four)  # a retry: its own share is excluded, then retaken
    file = store.read(KEY)
    assert file.order is not None and file.order.billed_qty[1] == Decimal(4)
    seven = [line(1, "A-100", "Paper", "7", "100.00")]
    assert _take(store, "d-inv", "2", seven)  # a newer version of the same invoice
    file = store.read(KEY)
    assert file.order is not None and file.order.billed_qty[1] == Decimal(7)
    assert file.order.billed == Decimal("840.00")  # 7 x 100.00, plus 20% tax
    (mine,) = file.bills
    assert (mine.run_order, mine.state) == ("2", RESERVED)


def test_a_release_gives_back_once_and_a_settle_bills_once(store: OrderStore) -> None:
    four = [line(1, "A-100", "Paper", "4", "100.00")]
    assert _take(store, "d-inv", "1", four)
    mine = store.read(KEY).bill_of("d-inv")
    assert mine is not None
    assert store.release(KEY, mine) and not store.release(KEY, mine)
    file = store.read(KEY)
    assert file.order is not None and file.order.billed == 0 and file.order.billed_qty[1] == 0
    assert file.bills[0].state == RELEASED
    assert _take(store, "d-other", "1", four)
    theirs = store.read(KEY).bill_of("d-other")
    assert theirs is not None
    assert store.settle(KEY, theirs) and store.settle(KEY, theirs)  # billed stays billed
    settled = store.read(KEY).bill_of("d-other")
    assert settled is not None and settled.state == BILLED
    assert not store.release(KEY, settled)  # a billed share is not given back by an archive


def test_an_older_version_of_an_order_never_overwrites_a_newer_one(store: OrderStore) -> None:
    assert _take(store, "d-inv", "1", [line(1, "A-100", "Paper", "4", "100.00")])
    newer = replace(
        order([*ORDERED, line(3, "C-310", "Stapler", "2", "14.50")]), run_order="5", version="v5"
    )
    assert store.put_order(newer)
    older = replace(newer, run_order="3", version="v3", lines=())
    assert not store.put_order(older)
    file = store.read(KEY)
    assert file.order is not None and file.order.version == "v5" and len(file.order.lines) == 3
    assert file.order.billed_qty == {1: Decimal(4), 2: Decimal(0), 3: Decimal(0)}  # kept
    assert store.numbered("PO4411") == [KEY]


def test_a_wait_is_listed_once_and_woken_once(store: OrderStore) -> None:
    waiter = Waiter("d-inv", "v1", "run-1", "order", 0, "cb-1", "2026-03-01T00:00:00+00:00")
    store.add_waiter(KEY, waiter)
    store.add_waiter(KEY, waiter)  # the submitter again: the same callback
    with pytest.raises(ValueError, match="another callback"):
        store.add_waiter(KEY, Waiter("d-inv", "v1", "run-1", "order", 0, "cb-2", "x"))
    assert store.mark_woken(KEY, waiter, "d-order") and not store.mark_woken(KEY, waiter, "d-o2")
    (listed,) = store.read(KEY).waiters
    assert listed.woken and listed.callback_id == "cb-1"
