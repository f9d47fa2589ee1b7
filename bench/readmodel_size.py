"""How large the read model's items grow, document by document: no document's size may fail it.

    python bench/readmodel_size.py            the sample run, every e-invoice and real document
                                              in tests/data, and long generated invoices
    python bench/readmodel_size.py --smoke    the XRechnung sample, the OASIS UBL 2.1 example
                                              and a 100-line UBL breaking a rule a line

Each document runs through the orchestrator (durable testing runner on moto, the shipped rules)
until it finalizes, waits for a person or ends; then its items are measured as stored. A
report's payload over the recorder's inline budget (docflow/readmodel/detail.py, 8 KB: what
made the OASIS example and long invoices fail before) is kept compact in the items, the whole in
S3; the figures say how often that happens and how large everything gets against DynamoDB's
400 KB item, the 256 KB a durable step's result may hold, and EventBridge's 256 KB entry.

The last line of stdout is one JSON object: {"smoke", "documents", "seconds", "settled":
{status: n}, "failed": [name], "limits": {"dynamodbItem", "inlinePayload", "stepResult"},
"largestState", "largestHistoryItem", "largestWholePayload", "largestLinkItem",
"largestStepResult": {"bytes", "document", ...}, "spilledReports": n (reports that failed their
document before detail.py), "largestDetailObject": bytes, "bySet": {set: {"documents",
"largestState", "largestHistoryItem", "largestWholePayload", "spilledReports"}}, "ok"}.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import _common

from docflow import aws
from docflow.local.resources import LocalNames
from docflow.readmodel.detail import INLINE_BYTES
from docflow.readmodel.table import from_ddb
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from tests.kit.long_invoices import long_invoice_pdf, long_invoice_ubl
from tests.kit.sandbox import moto_sandbox
from tests.kit.settled_runs import settle

DATA = _common.ROOT / "tests" / "data"
DYNAMODB_ITEM = 400 * 1024
STEP_RESULT = 262_144
# The shipped rules, review stages that wait while the run is measured, and the review links'
# address; retries of throttled calls short.
ENV = {
    "DOCFLOW_RULES_PATH": str(DEFAULT_RULES),
    "DOCFLOW_STAGE_TIMEOUT_S": "3600",
    "DOCFLOW_EXECUTION_TIMEOUT_S": "86400",
    "DOCFLOW_REVIEW_BASE_URL": "http://127.0.0.1:8790",
    "DOCFLOW_THROTTLE_BASE_DELAY_S": "0.001",
    "DOCFLOW_THROTTLE_MAX_DELAY_S": "0.01",
}


def documents(smoke: bool) -> list[tuple[str, str, bytes]]:
    """(set, name, bytes) of everything measured."""
    samples = DATA / "einvoice"
    if smoke:
        return [
            ("samples", "xrechnung.xml", (samples / "kosit-xrechnung-01.01a-cii.xml").read_bytes()),
            *_files("einvoice_public", ["oasis-ubl-2.1-invoice-example.xml"]),
            ("generated", "ubl-100-broken.xml", long_invoice_ubl(100, broken=True)),
        ]
    sys_path_samples = _common.ROOT / "samples"
    import sys

    sys.path.insert(0, str(sys_path_samples))
    from make_samples import write_samples  # type: ignore[import-not-found]

    with tempfile.TemporaryDirectory() as folder:
        shipped = [
            ("samples", p.name, p.read_bytes())
            for p in write_samples(Path(folder))
            if p.suffix in (".pdf", ".xml")
        ]
    out = [*shipped]
    for name in ("einvoice", "einvoice_public", "real_invoices", "real_documents"):
        out += _files(name)
    out += [
        ("generated", "pdf-200-every-check.pdf", long_invoice_pdf(200, every_check=True)),
        ("generated", "pdf-1000.pdf", long_invoice_pdf(1000)),
        ("generated", "ubl-200.xml", long_invoice_ubl(200)),
        ("generated", "ubl-1000.xml", long_invoice_ubl(1000)),
        ("generated", "ubl-1000-broken.xml", long_invoice_ubl(1000, broken=True)),
    ]
    return out


def _files(folder: str, names: list[str] | None = None) -> list[tuple[str, str, bytes]]:
    root = DATA / folder
    paths = [root / n for n in names] if names else sorted(root.rglob("*"))
    return [
        (folder, str(p.relative_to(root)), p.read_bytes())
        for p in paths
        if p.suffix.lower() in (".pdf", ".xml")
    ]


def size(value: Any) -> int:
    return len(json.dumps(value, default=str))


def run_one(bucket: str, index: int, name: str, data: bytes) -> dict[str, Any]:
    """One document through the pipeline until it settles; its items' and checkpoints' sizes."""
    run = settle(bucket, f"incoming/{index:04d}/{Path(name).name}", data, timeout=900)
    state = next(i for i in run.items if i["sk"] == "STATE")
    history_items = [i for i in run.items if i["sk"].startswith("EVENT#")]
    largest_step = max(run.step_results, key=lambda s: s[1], default=("", 0))
    return {
        "status": state["status"],
        "reason": state.get("reason"),
        "state": size(state),
        "history": max((size(i) for i in history_items), default=0),
        # each payload as the report carried it (`show` reads the moved part back)
        "whole": max((size(h.get("payload", {})) for h in run.history), default=0),
        "spilled": sum(1 for i in history_items if "detail" in i.get("payload", {})),
        "step": {"bytes": largest_step[1], "step": largest_step[0]},
    }


def largest_links(table: str) -> int:
    """The largest review-link item (the review page reads its summary from it)."""
    items = aws.client("dynamodb").scan(TableName=table).get("Items", [])
    return max((size(from_ddb(i)) for i in items), default=0)


def largest_detail(bucket: str) -> int:
    pages = aws.client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket)
    return max(
        (o["Size"] for p in pages for o in p.get("Contents", []) if "/reports/" in o["Key"]),
        default=0,
    )


def measure(smoke: bool) -> dict[str, Any]:
    started = time.monotonic()
    rows: list[tuple[str, str, dict[str, Any]]] = []
    with moto_sandbox(LocalNames(prefix="bench-rm"), ENV) as names:
        bucket = names("DocumentBucket")
        for index, (kind, name, data) in enumerate(documents(smoke)):
            rows.append((kind, name, run_one(bucket, index, name, data)))
        settings = load_settings()
        links = largest_links(settings.links_table)
        detail_bytes = largest_detail(settings.artifact_bucket)

    def top(metric: str, among: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
        kind, name, row = max(among, key=lambda r: r[2][metric])
        return {"bytes": row[metric], "document": f"{kind}/{name}"}

    sets = sorted({kind for kind, _, _ in rows})
    by_set = {
        kind: {
            "documents": len(among := [r for r in rows if r[0] == kind]),
            "largestState": top("state", among),
            "largestHistoryItem": top("history", among),
            "largestWholePayload": top("whole", among),
            "spilledReports": sum(r[2]["spilled"] for r in among),
        }
        for kind in sets
    }
    step_kind, step_name, step_row = max(rows, key=lambda r: r[2]["step"]["bytes"])
    failed = [f"{k}/{n} ({r['reason']})" for k, n, r in rows if r["status"] == "failed"]
    largest_state = top("state", rows)
    largest_history = top("history", rows)
    return {
        "smoke": smoke,
        "documents": len(rows),
        "seconds": round(time.monotonic() - started, 1),
        "settled": dict(Counter(r["status"] for _, _, r in rows)),
        "failed": failed,
        "limits": {
            "dynamodbItem": DYNAMODB_ITEM,
            "inlinePayload": INLINE_BYTES,
            "stepResult": STEP_RESULT,
        },
        "largestState": largest_state,
        "largestHistoryItem": largest_history,
        "largestWholePayload": top("whole", rows),
        "largestLinkItem": {"bytes": links},
        "largestStepResult": {**step_row["step"], "document": f"{step_kind}/{step_name}"},
        "spilledReports": sum(r["spilled"] for _, _, r in rows),
        "largestDetailObject": detail_bytes,
        "bySet": by_set,
        "ok": not failed
        and max(largest_state["bytes"], largest_history["bytes"], links) < DYNAMODB_ITEM,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="three documents, under 30 s")
    args = parser.parse_args()
    _common.quiet()
    _common.emit(measure(args.smoke))


if __name__ == "__main__":
    main()
