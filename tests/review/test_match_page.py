"""The `match` stage's page, served by the callback API's real views over a run on the durable
testing runner (moto, the shipped rules with matching on, orders finalized unreviewed): the
invoice's lines beside the order's, each difference marked on its line and said in words; the
order, what is left of it and its history; and a reviewer's approval with a note is the
finalized record's `overriddenBy` and `note`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from docflow.readmodel.transitions import FINALIZED, PENDING_REVIEW
from docflow.runtime import build_runtime, use_runtime
from tests.kit.orders import PAPER, Item, invoice_pdf, order_pdf
from tests.support.aws import Stack
from tests.support.matching import Runs, use_matching_rules
from tests.support.review_desk import Desk, call, open_desk, post_decision

ACME = "ACME SUPPLIES LTD"


@pytest.fixture
def desk(stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    monkeypatch.setenv("DOCFLOW_RULES_PATH", "")
    monkeypatch.setenv("DOCFLOW_EXECUTION_TIMEOUT_S", "86400")
    use_matching_rules(tmp_path, timeout_s=120)
    with open_desk(stack, Desk) as opened:
        yield opened


def _runs(desk: Desk) -> Runs:
    runs = Runs(desk.stack, desk.runner)
    runs.callbacks = desk.callbacks
    use_runtime(build_runtime().with_(callbacks=desk.callbacks))
    return runs


def _row(body: str, line: str) -> str:
    start = body.index(f'id="match-line-{line}"')
    return body[start : body.index("</tr>", start)]


def test_the_match_page_sets_the_lines_side_by_side_and_marks_what_differs(desk: Desk) -> None:
    runs = _runs(desk)
    runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
    extra = Item("X-901", "Catering for the annual party", Decimal(1), Decimal("10.00"))
    billed = [PAPER[0], PAPER[2].priced(Decimal("15.95")), extra]
    doc, arn = runs.start("in/inv.pdf", invoice_pdf("INV-5", "PO-4411", ACME, billed))
    assert runs.wait_status(doc, PENDING_REVIEW) == PENDING_REVIEW
    (token,) = desk.links(doc)
    body = call("GET", f"/review/{token}")["body"]
    match = body[body.index('id="match"') : body.index("</section>", body.index('id="match"'))]

    assert "Against order PO-4411" in match and "its lines, one by one" in match
    paper, stapler, catering = (_row(match, n) for n in ("1", "2", "3"))
    assert "differs" not in paper and "Paper A4" in paper and "25.00" in paper
    # The stapler: billed 15.95 where the order says 14.50, both cells marked, said below.
    assert 'class="num differs" data-label="Price billed">15.95' in stapler
    assert 'class="num differs" data-label="Price ordered">14.50' in stapler
    assert "unit price: line 2 (Stapler heavy duty): unit price 15.95" in match
    # A line the order does not have; and the order's toner, not on this invoice.
    assert "not on the order" in match and 'class="differs">X-901 Catering' in catering
    toner = _row(match, "o2")
    assert "not on this invoice" in toner and "Toner cartridge black" in toner
    assert "Nothing." in match  # billed against this order before
    assert re.search(r"Order total</dt><dd>2,021\.28 EUR", match)

    note = "stapler price raised by agreement; catering ordered by phone"
    assert post_decision(token, "approve", comment=note)["statusCode"] == 200
    done = desk.result(arn)
    assert done["status"] == FINALIZED
    assert (done["match"]["overriddenBy"], done["match"]["note"]) == ("accounts@example.com", note)
