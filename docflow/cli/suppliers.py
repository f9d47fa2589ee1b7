"""`docflow suppliers import FILE.csv | list | show ID | remove ID`: the supplier registry.

Against the local stack when it runs (or --local), otherwise the table DOCFLOW_SUPPLIER_TABLE
names in the configured AWS account. The CSV's columns: `docflow.suppliers.csv_import`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from docflow.cli.output import print_json, table
from docflow.cli.stack import maybe_local


def _store(args: argparse.Namespace) -> Any:
    from docflow.settings import load_settings
    from docflow.suppliers.store import SupplierStore

    maybe_local(args)
    load_settings.cache_clear()
    return SupplierStore(load_settings().supplier_table)


def cmd_suppliers(args: argparse.Namespace) -> int:
    return int(ACTIONS[args.action](args))


def _import(args: argparse.Namespace) -> int:
    from docflow.suppliers.csv_import import SupplierImportError, import_suppliers
    from docflow.suppliers.store import ClaimConflict

    if not args.target:
        raise ValueError("suppliers import needs a CSV file")
    text = Path(args.target).read_text(encoding="utf-8-sig")
    try:
        done = import_suppliers(_store(args), text)
    except (SupplierImportError, ClaimConflict) as exc:
        row = getattr(exc, "row", None)
        if args.json:
            print_json({"error": str(exc), "row": row})
        print(f"docflow: {args.target}: {exc}; nothing imported", file=sys.stderr)
        return 2
    if args.json:
        print_json({"imported": len(done), "suppliers": [s.to_json() for s in done]})
    else:
        print(f"imported {len(done)} supplier(s) from {args.target}")
    return 0


def _ids(ids: dict[str, list[str]]) -> str:
    return ", ".join(f"{k} {v}" for k, vs in sorted(ids.items()) for v in vs)


def _list(args: argparse.Namespace) -> int:
    found = [s.to_json() for s in _store(args).all()]
    if args.json:
        print_json(found)
        return 0
    rows = [
        [
            s["supplierId"],
            s["name"],
            s["currency"] or "",
            _ids(s["ids"])[:60],
            ", ".join(sorted(s["profile"].get("fields") or {})),
        ]
        for s in found
    ]
    print(table(rows, ["id", "name", "currency", "ids", "profile"]) if rows else "no suppliers")
    return 0


def _show(args: argparse.Namespace) -> int:
    if not args.target:
        raise ValueError("suppliers show needs a supplier id")
    found = _store(args).get(args.target)
    if args.json:
        print_json(found.to_json() if found else None)
        return 0 if found else 4
    if found is None:
        print(f"no supplier {args.target}")
        return 4
    s = found.to_json()
    for key in ("supplierId", "name", "currency", "profileVersion"):
        print(f"{key:15} {s[key] if s[key] is not None else ''}")
    print(f"{'aliases':15} {', '.join(s['aliases'])}")
    print(f"{'ids':15} {_ids(s['ids'])}")
    fields = s["profile"].get("fields") or {}
    if fields:
        print()
        rows = [profile_row(name, e) for name, e in sorted(fields.items())]
        print(table(rows, ["field", "label", "shape", "page", "confirmed", "misses", "suspended"]))
    return 0


ABSENT = "absent (a reviewer left it empty)"


def profile_row(name: str, entry: dict[str, Any]) -> list[object]:
    """One learned field as `suppliers show` prints it: an absent one (`{"absent": true}`)
    has no label or shape to print, so its label column says why."""
    absent = bool(entry.get("absent"))
    return [
        name,
        ABSENT if absent else entry.get("label", ""),
        "" if absent else entry.get("shape", ""),
        entry.get("page", ""),
        entry.get("confirmed", 0),
        entry.get("misses", 0),
        "yes" if entry.get("suspended") else "",
    ]


def _remove(args: argparse.Namespace) -> int:
    if not args.target:
        raise ValueError("suppliers remove needs a supplier id")
    removed = _store(args).remove(args.target)
    if args.json:
        print_json({"supplierId": args.target, "removed": removed})
    else:
        print(f"removed {args.target}" if removed else f"no supplier {args.target}")
    return 0 if removed else 4


ACTIONS = {"import": _import, "list": _list, "show": _show, "remove": _remove}
