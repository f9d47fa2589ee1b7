"""`docflow audit`: per learned layout, the graded shadow reads of the reviews that made its
fields trusted (the audit's first window), what finalized on it with no person, what the audit
stage's samples found, each with the share of wrong values and its interval
(docs/payment-controls.md, "Learned trust and the audit").

Against the local stack when it runs (or --local), otherwise the table DOCFLOW_SUPPLIER_TABLE
names in the configured AWS account: the audit ledger items beside the suppliers
(`docflow.suppliers.audit`), one Query on the table's listing index.
"""

from __future__ import annotations

import argparse

from docflow.cli.output import print_json, table
from docflow.cli.suppliers import _store
from docflow.suppliers.shapes import Share


def _interval(found: Share | None) -> str:
    if not found:
        return "-"
    return f"{found['share']:.1%} ({found['low']:.1%} to {found['high']:.1%})"


def cmd_audit(args: argparse.Namespace) -> int:
    from docflow.suppliers.audit import AuditLedger, report
    from docflow.suppliers.layouts import LayoutStore

    store = _store(args)
    ledgers = AuditLedger(store.table, store.ddb).all()
    named = {
        x.layout_id: (x.issuer, x.supplier_id) for x in LayoutStore(store.table, store.ddb).all()
    }
    # A ledger counted before layouts is its supplier's.
    named |= {s.supplier_id: (s.name, s.supplier_id) for s in store.all()}
    found = report(ledgers, named)
    if args.json:
        print_json(found)
        return 0
    shown = [(row["layoutId"], row["issuer"] or "", row) for row in found["layouts"]]
    rows = [
        [
            owner,
            issuer[:26],
            row["graded"]["documents"],
            row["graded"]["values"],
            row["graded"]["misses"],
            _interval(row["graded"]["wrongShare"]),
            row["unreviewed"],
            row["sampled"]["audited"],
            row["sampled"]["values"],
            row["sampled"]["misses"],
            _interval(row["sampled"]["wrongShare"]),
        ]
        for owner, issuer, row in [*shown, ("all", "", found["overall"])]
    ]
    header = [
        "layout",
        "issuer",
        "graded",
        "values",
        "misses",
        "wrong (95%)",
        "unreviewed",
        "audited",
        "values",
        "misses",
        "wrong (95%)",
    ]
    print(table(rows, header))
    return 0
