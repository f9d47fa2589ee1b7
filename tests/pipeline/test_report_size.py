"""A document's size never fails it (durable testing runner on moto, the shipped rules): long
invoices as pages and as EN 16931 data, every check they can trip firing at once, each finalize
or wait for a person, their read-model items kept small (what does not fit is in S3,
docflow/readmodel/detail.py) and `show` whole. The shipped samples and every e-invoice in
tests/data (the largest public examples among them) are held to the same in
test_sample_runs.py."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.kit.long_invoices import long_invoice_pdf, long_invoice_ubl
from tests.kit.settled_runs import check_items, settle
from tests.support.aws import Stack


@pytest.fixture
def shipped(stack: Stack, shipped_rules: None) -> Iterator[Stack]:
    yield stack


def test_a_200_line_invoice_page_tripping_every_check_waits_for_a_person(
    shipped: Stack,
) -> None:
    run = settle(shipped.bucket, "incoming/long.pdf", long_invoice_pdf(200, every_check=True))
    state = check_items(run)
    assert state["status"] == "pending-review"
    lines = state["fields"]["lines"]
    assert len(lines["rows"]) == int(lines["value"].split()[0]) > 100  # read back whole
    codes = {c["code"] for c in state["fieldChecks"]}
    assert {"table-sum", "amounts-disagree"} <= codes, codes
    assert state["sensitive"].get("card_number") and state["sensitive"].get("iban")
    assert {r["code"] for r in state["risk"]["reasons"]} >= {
        "long-payment-terms",
        "unlimited-liability",
    }
    stored = next(i for i in run.items if i["sk"] == "STATE")
    assert "rows" not in stored["fields"]["lines"] and "detail" in stored


@pytest.mark.parametrize(("lines", "broken"), [(200, True), (1000, False), (1000, True)])
def test_a_long_ubl_invoice_finalizes_or_waits(shipped: Stack, lines: int, broken: bool) -> None:
    run = settle(shipped.bucket, f"incoming/long-{lines}.xml", long_invoice_ubl(lines, broken))
    state = check_items(run)
    assert state["einvoice"]["lines"] == lines
    if broken:  # a rule broken on every line: one check per rule, saying how many more
        assert state["status"] == "pending-review"
        rules = [c for c in state["fieldChecks"] if c["code"] == "einvoice-rule"]
        assert len(rules) == len({c["rule"] for c in rules}) < 20
        more = [re.search(r"and (\d+) more like it", c["message"]) for c in rules]
        assert max(int(m[1]) for m in more if m) > 100, rules


def test_a_1000_line_invoice_page_finalizes_or_waits(shipped: Stack) -> None:
    check_items(settle(shipped.bucket, "incoming/long-1000.pdf", long_invoice_pdf(1000)))
