"""`docflow audit`: what finalized on learned supplier profiles with no person, what the audit
stage's samples found, and the share of wrong values that implies (docs/payment-controls.md,
"Learned trust and the audit").

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

    store = _store(args)
    ledgers = AuditLedger(store.table, store.ddb).all()
    names = {s.supplier_id: s.name for s in store.all()}
    found = report(ledgers, names)
    if args.json:
        print_json(found)
        return 0
    named = [(row["supplierId"], row["name"] or "", row) for row in found["suppliers"]]
    rows = [
        [
            supplier,
            name[:30],
            row["unreviewed"],
            row["audited"],
            row["valuesAudited"],
            row["misses"],
            _interval(row["wrongShare"]),
        ]
        for supplier, name, row in [*named, ("all", "", found["overall"])]
    ]
    header = ["supplier", "name", "unreviewed", "audited", "values", "misses", "wrong (95%)"]
    print(table(rows, header))
    return 0
