"""The dashboard's "pending review" question (a sparse index) and a reviewer's inbox (one
partition of the inbox table), each against a full-table scan.

    python bench/dashboard_query.py            10,000 documents, 50 pending; inbox 200 of 10,000
    python bench/dashboard_query.py --smoke    1,000 documents, 10 pending; inbox 40 of 1,000

The read model is filled with real current-state items (built by the recorder's own
`next_state` from pipeline reports) on moto; the review tables with one reviewer's pending
stages among everyone else's (bench/_inbox_fill.py). The Scans (`_common.scan_count`) are the
benchmarks' only, to compare.
Prints `query_items_read`/`scan_items_read` for the pending question and
`inbox_items_read`/`inbox_scan_items_read` against `inbox_pending`, the reviewer's count.
"""

from __future__ import annotations

import argparse
import time

import _common
from _inbox_fill import REVIEWER, scan_for
from _inbox_fill import fill as fill_inbox

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.recorder import next_state
from docflow.readmodel.schema import make_report
from docflow.readmodel.table import to_ddb
from docflow.readmodel.transitions import CLASSIFIED, FAILED, FINALIZED, PENDING_REVIEW
from docflow.review.access.keys import build_key_source
from docflow.review.stage.inbox import InboxIndex
from docflow.settings import load_settings
from tests.kit.sandbox import moto_sandbox


def fill(table: str, documents: int, pending: int) -> None:
    ddb = aws.client("dynamodb")
    batch: list[dict] = []
    for n in range(documents):
        doc = DocumentRef("bench-docs", f"incoming/{n:06d}.pdf", f"v{n}", f"{n:08X}")
        at = f"2026-11-{1 + n % 28:02d}T10:{n % 60:02d}:00.000+00:00"
        state = next_state(
            None,
            make_report(
                doc, CLASSIFIED, "classify", at=at, payload={"docType": "invoice", "pages": 3}
            ),
        )
        if n < pending:
            state = next_state(
                state,
                make_report(
                    doc,
                    PENDING_REVIEW,
                    "review-0",
                    stage_index=0,
                    at=at,
                    payload={
                        "stageName": "legal",
                        "reviewLinks": [{"reviewer": "legal@example.com", "linkId": f"id{n}"}],
                    },
                ),
            )
        else:
            final = FAILED if n % 97 == 0 else FINALIZED
            state = next_state(state, make_report(doc, final, final, at=at))
        state["rev"] = 1
        batch.append({"PutRequest": {"Item": to_ddb(state)}})
        if len(batch) == 25:
            ddb.batch_write_item(RequestItems={table: batch})
            batch = []
    if batch:
        ddb.batch_write_item(RequestItems={table: batch})


def query_pending(model: ReadModel) -> tuple[int, int]:
    found, read, token = 0, 0, None
    while True:
        page = model.pending(limit=100, token=token)
        found += len(page.items)
        read += page.items_read
        token = page.next_token
        if not token:
            return found, read


def scan_pending(table: str) -> tuple[int, int]:
    return _common.scan_count(
        table,
        FilterExpression="#s = :p",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":p": {"S": PENDING_REVIEW}},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    _common.quiet()
    documents, pending = (1000, 10) if args.smoke else (10_000, 50)
    mine = 40 if args.smoke else 200
    with moto_sandbox(LocalNames(prefix="dash")):
        table = load_settings().table_name
        fill(table, documents, pending)
        model = ReadModel(table)
        began = time.perf_counter()
        q_found, q_read = query_pending(model)
        query_s = time.perf_counter() - began
        began = time.perf_counter()
        s_found, s_read = scan_pending(table)
        scan_s = time.perf_counter() - began
        inbox = inbox_figures(documents, mine)
    if q_found != pending or s_found != pending:
        raise SystemExit(f"wrong answers: query {q_found}, scan {s_found}, want {pending}")
    _common.emit(
        {
            "documents": documents,
            "pending": pending,
            "query_items_read": q_read,
            "scan_items_read": s_read,
            "query_s": round(query_s, 4),
            "scan_s": round(scan_s, 4),
            "ratio": round(scan_s / query_s, 1),
            **inbox,
        }
    )


def inbox_figures(documents: int, mine: int) -> dict[str, object]:
    """One reviewer's whole inbox by Query of their partition (every page) against a Scan."""
    settings = load_settings()
    table = settings.inbox_table
    fill_inbox(settings.links_table, table, build_key_source(settings).ring(), documents, mine)
    index = InboxIndex(settings.links_table, table)
    began = time.perf_counter()
    found, read, start = 0, 0, None
    while True:
        page = index.page(REVIEWER, start, limit=100)
        found, read, start = found + len(page.items), read + page.items_read, page.next_key
        if not start:
            break
    query_s = time.perf_counter() - began
    s_found, s_read = scan_for(table, REVIEWER)
    if found != mine or s_found != mine:
        raise SystemExit(f"wrong inbox: query {found}, scan {s_found}, want {mine}")
    return {
        "inbox_documents": documents,
        "inbox_pending": mine,
        "inbox_items_read": read,
        "inbox_scan_items_read": s_read,
        "inbox_query_s": round(query_s, 4),
    }


if __name__ == "__main__":
    main()
