"""Invoices matched to their orders: touchless on the clean ones, every discrepancy caught, and
how soon an invoice finalizes once the last document it needs has come (docs/matching.md).

    python bench/matching.py            40 orders, 16 of them with a discrepancy
    python bench/matching.py --smoke    6 orders, 4 with one (one of each kind), under a minute

A seeded stream of purchase orders (text-layer PDFs), goods receipts (delivery notes, PDFs)
and invoices (UBL e-invoices and text-layer PDFs, half each) that cite them, from a handful of
suppliers who reuse each other's order numbers, goes through the real orchestrator on the
durable testing runner over moto (in-process, as the tests run it: not the local stack), in
random arrival order, every run started as its document arrives. Matching runs three-way with
the shipped tolerances; purchase orders skip their procurement and finance stages (a buyer's
approval would come in between). A known share of orders carries one discrepancy:

    price          one invoice line's unit price 10% over the order's
    quantity       one line billed 2 more than ordered (and delivered as ordered)
    over-billing   the order billed again by a second invoice, for part of its lines
    never-delivered  no delivery note comes: the invoice waits, then goes to `match`

Measured:

    touchless_rate     clean invoices finalized with no review stage / clean invoices (goal at
                       least 0.95)
    caught             per kind, discrepant invoices held at `match` with that kind's code (an
                       over-billed order's two invoices are one case: the one that comes second
                       must wait)
    silent             discrepant cases finalized with no person (goal 0)
    waited             invoices that waited for their order or receipt (arrived first)
    latency_s          clean invoices: their `finalized` report's time minus the arrival of the
                       last of their documents (invoice, order, receipt): median, p95, max

It exits 1 when a discrepancy went through silently or was not caught for what it is. The last
line of stdout is one JSON object: {"orders", "documents", "invoices", "clean",
"touchless", "touchless_rate", "discrepant": {kind: {"n", "caught", "silent", "codes"}},
"silent", "waited", "latency_s": {"median", "p95", "max"}, "wait_timeout_s", "seconds",
"ok"}.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import _common
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from docflow.local.tools.pile_run import RunnerCallbacks
from docflow.readmodel.queries import ReadModel
from docflow.runtime import build_runtime, use_runtime
from docflow.settings import load_settings
from docflow.storage import DocumentStore, match_key
from orchestrator.app import handler
from tests.kit.orders import (
    Item,
    delivery_note_pdf,
    invoice_pdf,
    matching_rules_text,
    order_pdf,
    ubl_invoice,
)
from tests.kit.sandbox import moto_sandbox

SUPPLIERS = (
    "ACME SUPPLIES LTD",
    "GLOBEX HARDWARE GMBH",
    "INITECH OFFICE SARL",
    "UMBRELLA TOOLS BV",
)
CATALOGUE = (
    ("A-100", "Paper A4, box of 5 reams"),
    ("B-220", "Toner cartridge black"),
    ("C-310", "Stapler heavy duty"),
    ("D-415", "Ring binder 50 mm, blue"),
    ("E-520", "Whiteboard markers, set of 4"),
    ("F-630", "Desk lamp with LED bulb"),
    ("G-745", "Ergonomic office chair"),
    ("H-850", "USB-C docking station"),
)
KINDS = ("price", "quantity", "over-billing", "never-delivered")
CODES = {
    "price": "price",
    "quantity": "quantity",
    "over-billing": "over-billed",
    "never-delivered": "no-receipt",
}
ENV = {
    "DOCFLOW_EXECUTION_TIMEOUT_S": str(40 * 24 * 3600),
    "DOCFLOW_THROTTLE_BASE_DELAY_S": "0.001",
    "DOCFLOW_THROTTLE_MAX_DELAY_S": "0.01",
    "DOCFLOW_REVIEW_BASE_URL": "http://127.0.0.1:8790",
}


@dataclass
class Paper:
    """One document of the stream: what it is, its bytes, which order and invoice it is."""

    key: str
    data: bytes
    kind: str  # order | receipt | invoice
    order: int
    discrepancy: str = ""  # the kind an invoice carries ("" for a clean one)
    arrived: datetime | None = None
    doc: DocumentRef | None = None


@dataclass
class Order:
    number: str
    supplier: str
    items: list[Item]
    papers: list[Paper] = field(default_factory=list)


def _items(rng: random.Random) -> list[Item]:
    picked = rng.sample(CATALOGUE, rng.randint(1, 4))
    return [
        Item(item, words, Decimal(rng.randint(1, 60)), Decimal(rng.randint(150, 99_000)) / 100)
        for item, words in picked
    ]


def stream(rng: random.Random, orders: int, discrepant: int) -> list[Order]:
    """The orders and their papers; `discrepant` of them (chosen at random) carry one
    discrepancy each, the kinds taken in turn so that each is measured."""
    out: list[Order] = []
    chosen = set(rng.sample(range(orders), min(discrepant, orders)))
    kinds = iter(KINDS * orders)
    for n in range(orders):
        supplier = SUPPLIERS[n % len(SUPPLIERS)]
        number = f"PO-{4000 + n // 2}"  # two suppliers use each number
        items = _items(rng)
        order = Order(number, supplier, items)
        kind = next(kinds) if n in chosen else ""
        order.papers.append(Paper(f"in/po-{n}.pdf", order_pdf(number, supplier, items), "order", n))
        if kind != "never-delivered":
            note = delivery_note_pdf(f"DN-{n}", number, supplier, items)
            order.papers.append(Paper(f"in/dn-{n}.pdf", note, "receipt", n))
        billed = list(items)
        k = rng.randrange(len(billed))
        if kind == "price":
            dearer = (billed[k].unit_price * Decimal("1.10")).quantize(Decimal("0.01"))
            billed[k] = billed[k].priced(dearer)
        elif kind == "quantity":
            billed[k] = billed[k].counted(billed[k].quantity + 2)
        order.papers.append(_invoice(rng, n, 0, order, billed, kind))
        if kind == "over-billing":
            # Part of the order billed a second time. Which of the two comes second depends on
            # the arrival order: whichever does is the one that must wait.
            again = [billed[k].counted(max(Decimal(1), billed[k].quantity // 2))]
            order.papers.append(_invoice(rng, n, 1, order, again, kind))
        out.append(order)
    return out


def _invoice(
    rng: random.Random, n: int, m: int, order: Order, items: list[Item], kind: str
) -> Paper:
    number = f"INV-{n:03d}-{m}"
    if rng.random() < 0.5:
        data, key = ubl_invoice(number, order.number, order.supplier, items), f"in/inv-{n}-{m}.xml"
    else:
        data, key = invoice_pdf(number, order.number, order.supplier, items), f"in/inv-{n}-{m}.pdf"
    return Paper(key, data, "invoice", n, kind)


def _finalized_at(model: ReadModel, doc: DocumentRef) -> tuple[str, datetime | None, bool]:
    shown = model.show(doc.document_id)
    state = shown["state"] or {}
    history = shown["history"]
    at = next((h["at"] for h in history if h["status"] == "finalized"), None)
    reviewed = any(h["status"] == "pending-review" for h in history)
    return str(state.get("status", "")), datetime.fromisoformat(at) if at else None, reviewed


def run(orders: int, discrepant: int, seed: int, wait_s: int, gap_s: float) -> dict[str, Any]:
    rng = random.Random(seed)
    made = stream(rng, orders, discrepant)
    papers = [p for o in made for p in o.papers]
    rng.shuffle(papers)
    folder = Path(tempfile.mkdtemp())
    rules = folder / "rules.toml"
    rules.write_text(matching_rules_text(timeout_s=wait_s, three_way=True), encoding="utf-8")
    env = {**ENV, "DOCFLOW_RULES_PATH": str(rules)}
    with moto_sandbox(LocalNames(prefix="bm"), env) as names:
        bucket = names("DocumentBucket")
        s3 = aws.client("s3")
        with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
            use_runtime(build_runtime().with_(callbacks=RunnerCallbacks(runner)))
            try:
                for paper in papers:
                    answer = s3.put_object(Bucket=bucket, Key=paper.key, Body=paper.data)
                    paper.doc = DocumentRef(bucket, paper.key, answer["VersionId"], sequencer="01")
                    paper.arrived = datetime.now(UTC)
                    runner.run_async(input=json.dumps(paper.doc.to_event()), execution_timeout=3600)
                    time.sleep(gap_s)
                return _measure(made, wait_s)
            finally:
                use_runtime(None)


def _measure(made: list[Order], wait_s: int) -> dict[str, Any]:
    model = ReadModel(load_settings().table_name)
    store = DocumentStore(load_settings().artifact_bucket)
    invoices = [p for o in made for p in o.papers if p.kind == "invoice"]
    settled = ("finalized", "pending-review", "archived", "failed")
    deadline = time.monotonic() + wait_s + 600  # a bound, not a measure
    while True:
        states = {p.key: _finalized_at(model, p.doc) for p in invoices if p.doc}
        if all(s[0] in settled for s in states.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    clean = [p for p in invoices if not p.discrepancy]
    touchless = [p for p in clean if states[p.key][0] == "finalized" and not states[p.key][2]]
    discrepant: dict[str, dict[str, Any]] = {}
    silent = 0
    for kind in KINDS:
        # One case per order: an over-billed order's two invoices are one case, caught when
        # one of them waits at `match` as over-billed (the other then bills the order).
        cases = [
            [p for p in invoices if p.order == o and p.discrepancy == kind]
            for o in range(len(made))
        ]
        cases = [c for c in cases if c]
        caught = held = 0
        codes: dict[str, int] = {}
        for case in cases:
            said: set[str] = set()
            reviewed = False
            for p in case:
                status, _at, was_reviewed = states[p.key]
                if p.doc is not None and (status != "finalized" or was_reviewed):
                    reviewed = True
                    said |= {d["code"] for d in store.get_json(match_key(p.doc))["differences"]}
            for code in said:
                codes[code] = codes.get(code, 0) + 1
            held += not reviewed
            caught += CODES[kind] in said
        silent += held
        discrepant[kind] = {"n": len(cases), "caught": caught, "silent": held, "codes": codes}
    latency = []
    for p in touchless:
        papers = [q for o in made for q in o.papers if q.order == p.order and q.kind != "invoice"]
        last = max(q.arrived for q in [p, *papers] if q.arrived)
        at = states[p.key][1]
        if at:
            latency.append(max(0.0, (at - last).total_seconds()))
    waited = sum(
        1
        for p in invoices
        if p.doc
        and any(h["status"] == "awaiting-match" for h in model.show(p.doc.document_id)["history"])
    )
    rate = len(touchless) / len(clean) if clean else 1.0
    return {
        "orders": len(made),
        "documents": sum(len(o.papers) for o in made),
        "invoices": len(invoices),
        "clean": len(clean),
        "touchless": len(touchless),
        "touchless_rate": round(rate, 4),
        "discrepant": discrepant,
        "silent": silent,
        "waited": waited,
        "latency_s": _spread(latency),
        "wait_timeout_s": wait_s,
        "ok": rate >= 0.95
        and silent == 0
        and all(d["caught"] == d["n"] for d in discrepant.values()),
    }


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"median": None, "p95": None, "max": None}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "median": round(statistics.median(ordered), 2),
        "p95": round(p95, 2),
        "max": round(ordered[-1], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--smoke", action="store_true", help="6 orders, one of each discrepancy, under a minute"
    )
    parser.add_argument("--orders", type=int, default=40)
    parser.add_argument("--discrepant", type=int, default=16, help="orders with one discrepancy")
    parser.add_argument("--seed", type=int, default=60)
    parser.add_argument(
        "--wait",
        type=int,
        default=240,
        help="[matching] timeout_seconds: the never-delivered's wait",
    )
    args = parser.parse_args()
    _common.quiet()
    started = time.monotonic()
    if args.smoke:
        # Two clean orders and one of each kind of discrepancy.
        found = run(orders=6, discrepant=4, seed=args.seed, wait_s=25, gap_s=0.2)
    else:
        found = run(args.orders, args.discrepant, args.seed, args.wait, gap_s=0.5)
    _common.emit({**found, "seconds": round(time.monotonic() - started, 1)})
    # A discrepancy paid with no person, or not said for what it is, fails the run (CI's smoke
    # run too); the touchless rate is a measure, reported in `ok`.
    caught = all(d["caught"] == d["n"] for d in found["discrepant"].values())
    if found["silent"] or not caught:
        sys.exit(1)


if __name__ == "__main__":
    main()
