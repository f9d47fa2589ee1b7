"""An invoice against its order, its receipts and what is left of the order.

What an attacker (or a careless supplier) varies is drawn by hypothesis: an invoice made from
any order (any of its lines, any quantity up to the ordered one, the lines in any order, item
numbers printed or not, words in any case) always matches; and any one change beyond the
tolerances (a unit price up or down, a quantity over, a line the order lacks, another
currency, lines or amounts billed before, goods never received) is always caught, on the line
it concerns."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from docflow.matching.keys import BILL, CREDIT
from docflow.matching.lines import Line
from docflow.matching.verdict import HEADER, LINES, NONE, judge
from docflow.rules.matching import MatchRules, Tolerance
from tests.matching.orders import (
    CATALOGUE,
    STRANGERS,
    bill,
    file_of,
    line,
    order,
    receipt,
    renumbered,
    total,
)

RULES = MatchRules(stage="match")
prices = st.decimals(min_value="1.00", max_value="999.99", places=2)


@st.composite
def an_order(draw: st.DrawFn) -> list[Line]:
    picked = draw(st.permutations(CATALOGUE))[: draw(st.integers(1, len(CATALOGUE)))]
    return [
        line(n, item, words, str(draw(st.integers(1, 500))), str(draw(prices)))
        for n, (item, words) in enumerate(picked, 1)
    ]


@st.composite
def a_clean_invoice(draw: st.DrawFn, ordered: list[Line]) -> tuple[list[Line], list[Line]]:
    """Some of the order's lines, in any order, each at most its ordered quantity, at its
    price; item numbers printed or not, words in another case or spacing. Its i-th line
    bills the i-th order line of the second list."""
    chosen = draw(st.lists(st.sampled_from(ordered), min_size=1, unique=True))

    ids = draw(st.booleans())
    shout = draw(st.booleans())
    out = []
    for source in chosen:
        assert source.quantity is not None and source.unit_price is not None
        qty = draw(st.integers(1, int(source.quantity)))
        words = source.description.upper() if shout else "  ".join(source.description.split())
        out.append(line(0, source.item_id if ids else "", words, str(qty), str(source.unit_price)))
    return list(renumbered(out)), chosen


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_clean_invoice_made_from_an_order_always_matches(data: st.DataObject) -> None:
    ordered = data.draw(an_order())
    invoice, _ = data.draw(a_clean_invoice(ordered))
    judged = judge(bill(invoice), file_of(order(ordered)), RULES, three_way=False)
    assert judged.clean, judged.differences
    assert judged.basis == LINES and judged.within_balance
    assert sum(judged.quantities.values()) == sum(x.quantity or 0 for x in invoice)
    # Three-way, with everything billed received: still a match.
    got = receipt(ordered)
    assert judge(bill(invoice), file_of(order(ordered), [got]), RULES, three_way=True).clean


def _slack(price: Decimal) -> Decimal:
    return RULES.unit_price.slack(price)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), change=st.sampled_from(["price-up", "price-down", "quantity", "unordered"]))
def test_any_single_change_beyond_the_tolerance_is_caught_on_its_line(
    data: st.DataObject, change: str
) -> None:
    ordered = data.draw(an_order())
    invoice, sources = data.draw(a_clean_invoice(ordered))
    k = data.draw(st.integers(0, len(invoice) - 1))
    target, source = invoice[k], sources[k]
    assert source.quantity is not None and source.unit_price is not None
    if change == "price-up":
        price = source.unit_price + _slack(source.unit_price) + Decimal("0.01")
        invoice[k] = line(0, target.item_id, target.description, str(target.quantity), str(price))
        code = "price"
    elif change == "price-down":
        price = source.unit_price - _slack(source.unit_price) - Decimal("0.01")
        if price <= 0:
            return
        invoice[k] = line(0, target.item_id, target.description, str(target.quantity), str(price))
        code = "price"
    elif change == "quantity":
        over = source.quantity + 1
        invoice[k] = line(0, target.item_id, target.description, str(over), str(target.unit_price))
        code = "quantity"
    else:
        item, words = data.draw(st.sampled_from(STRANGERS))
        invoice.insert(k, line(0, item if target.item_id else "", words, "1", "10.00"))
        code = "unordered"
    invoice = list(renumbered(invoice))
    judged = judge(bill(invoice), file_of(order(ordered)), RULES, three_way=False)
    assert (code, k + 1) in {(d.code, d.line) for d in judged.differences}, judged.differences


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_what_was_billed_before_counts_and_what_was_never_received_is_caught(
    data: st.DataObject,
) -> None:
    ordered = data.draw(an_order())
    invoice, sources = data.draw(a_clean_invoice(ordered))
    # The same lines billed in full before (another invoice, or the same one sent twice).
    full = order(
        ordered,
        billed=total(ordered),
        billed_qty={o.number: o.quantity or Decimal(0) for o in ordered},
    )
    twice = judge(bill(invoice), file_of(full), RULES, three_way=False)
    codes = {d.code for d in twice.differences}
    assert "over-billed" in codes and not twice.within_balance
    # Three-way: one billed line received one short.
    k = data.draw(st.integers(0, len(invoice) - 1))
    billed_k = invoice[k].quantity or Decimal(1)
    short = [replace(o, quantity=billed_k - 1) if o is sources[k] else o for o in ordered]
    judged = judge(bill(invoice), file_of(order(ordered), [receipt(short)]), RULES, three_way=True)
    assert ("not-received", k + 1) in {(d.code, d.line) for d in judged.differences}


def test_the_tolerance_edge_is_inside_and_a_cent_past_it_is_outside() -> None:
    ordered = [line(1, "A-100", "Paper", "10", "100.00")]
    edge = [line(1, "A-100", "Paper", "10", "102.00")]  # 2% of 100.00 exactly
    past = [line(1, "A-100", "Paper", "10", "102.01")]
    roomy = replace(RULES, total=Tolerance(Decimal("0.05"), Decimal("0.05")))
    assert judge(bill(edge), file_of(order(ordered)), roomy, False).clean
    assert [
        d.code for d in judge(bill(past), file_of(order(ordered)), roomy, False).differences
    ] == ["price"]


def test_no_order_another_currency_and_an_unread_value_each_hold() -> None:
    ordered = [line(1, "A-100", "Paper", "10", "100.00")]
    assert [d.code for d in judge(bill(ordered), file_of(None), RULES, False).differences] == [
        "no-order"
    ]
    assert judge(bill(ordered), file_of(None), RULES, False).basis == NONE
    other = judge(bill(ordered, currency="USD"), file_of(order(ordered)), RULES, False)
    assert [d.code for d in other.differences] == ["currency"]
    unread = [Line(1, "Paper", Decimal(10), None, None, "A-100")]
    codes = [
        d.code
        for d in judge(
            bill(unread, amount=total(ordered)), file_of(order(ordered)), RULES, False
        ).differences
    ]
    assert codes == ["unread"]
    no_total = judge(replace(bill(ordered), total=None), file_of(order(ordered)), RULES, False)
    assert "unread" in {d.code for d in no_total.differences} and not no_total.within_balance


def test_lines_read_unsure_on_either_side_match_on_the_header_and_say_why() -> None:
    ordered = [line(1, "A-100", "Paper", "10", "100.00")]
    dearer = [line(1, "A-100", "Paper", "10", "150.00")]  # a price a line match would catch
    mine = judge(
        bill(dearer, verified=False, amount=total(ordered)), file_of(order(ordered)), RULES, False
    )
    assert (mine.basis, mine.clean) == (HEADER, True) and "invoice" in mine.basis_why
    theirs = judge(
        bill(dearer, amount=total(ordered)), file_of(order(ordered, verified=False)), RULES, False
    )
    assert theirs.basis == HEADER and "order" in theirs.basis_why
    over = judge(bill(dearer, verified=False), file_of(order(ordered)), RULES, False)
    assert [d.code for d in over.differences] == ["over-billed"]  # the amount still holds


def test_a_credit_note_gives_back_no_more_than_was_billed() -> None:
    ordered = [line(1, "A-100", "Paper", "10", "100.00")]
    half = [line(1, "A-100", "Paper", "5", "100.00")]
    billed = order(ordered, billed=total(ordered), billed_qty={1: Decimal(10)})
    back = judge(bill(half, role=CREDIT), file_of(billed), RULES, False)
    assert back.clean and back.amount == -total(half) and back.quantities == {1: Decimal(-5)}
    nothing = judge(bill(half, role=CREDIT), file_of(order(ordered)), RULES, False)
    assert {d.code for d in nothing.differences} == {"over-credited"}
    assert BILL != CREDIT
