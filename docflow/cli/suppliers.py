"""`docflow suppliers import FILE.csv | list | show ID | remove ID | proposals | approve ID |
reject ID | layouts | profile reset LAYOUT FIELD`: the supplier registry, changed by operators
only, with four eyes for proposals; and the learned layouts (what docflow reads, per layout,
registered supplier or not), whose suspended fields an operator resets.

Against the local stack when it runs (or --local), otherwise the table DOCFLOW_SUPPLIER_TABLE
names in the configured AWS account. The CSV's columns: `docflow.suppliers.csv_import`. Who
acted (recorded in the history and on proposals, and held to four eyes): the principal the
command is authenticated as (`docflow.cli.principal`: STS in AWS, the OS account locally);
`--by` is refused. An approval reads the rules file's `[people]` table (the stack's rules file
locally; DOCFLOW_RULES_PATH, else the shipped one, against AWS: the file you deploy).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Any

from docflow.cli.layouts import (
    all_layouts,
    layouts_list,
    print_history,
    print_profile,
    profile_reset,
    show_layout,
)
from docflow.cli.output import print_json, table
from docflow.cli.registry_access import actor, registry

_print_history = print_history  # the name tests and older callers import


_store = registry  # the names this module's commands and older callers use
_actor = actor


def _people(args: argparse.Namespace) -> Any:
    """The `[people]` table of the rules file the pipeline runs with: the local stack's, else
    DOCFLOW_RULES_PATH's, else the shipped one. Call after `_store`."""
    from docflow.rules.model import load_rules
    from docflow.settings import load_settings

    config = getattr(args, "stack_config", None)
    path = config.extra_env.get("DOCFLOW_RULES_PATH") if config is not None else None
    return load_rules(path or load_settings().rules_path or None).people


def cmd_suppliers(args: argparse.Namespace) -> int:
    if getattr(args, "by", None) is not None:
        from docflow.cli.principal import BY_REFUSED

        if args.json:
            print_json({"error": BY_REFUSED})
        print(f"docflow: {BY_REFUSED}", file=sys.stderr)
        return 2
    return int(ACTIONS[args.action](args))


def _import(args: argparse.Namespace) -> int:
    from docflow.suppliers.csv_import import (
        SupplierImportError,
        SuppliersExist,
        import_suppliers,
        read_text,
    )
    from docflow.suppliers.store import ClaimConflict

    if not args.target:
        raise ValueError("suppliers import needs a CSV file")
    try:
        text = read_text(Path(args.target))
        store = _store(args)
        done = import_suppliers(store, text, _actor(args), replace=args.replace)
    except SuppliersExist as exc:
        if args.json:
            existing = [c.to_json() for c in exc.changed]
            print_json({"error": str(exc), "row": exc.row, "existing": existing})
        print(f"docflow: {args.target}: {exc}; nothing imported", file=sys.stderr)
        for c in exc.changed if not args.json else ():
            print(f"  row {c.row} {c.supplier_id}: {'; '.join(c.changes) or 'no change'}")
        return 2
    except (SupplierImportError, ClaimConflict) as exc:
        row = getattr(exc, "row", None)
        if args.json:
            print_json({"error": str(exc), "row": row})
        where = "" if str(exc).startswith(str(args.target)) else f"{args.target}: "
        print(f"docflow: {where}{exc}; nothing imported", file=sys.stderr)
        return 2
    replaced = [c.to_json() for c in done.replaced]
    if args.json:
        suppliers = [s.to_json() for s in done.suppliers]
        print_json({"imported": len(suppliers), "replaced": replaced, "suppliers": suppliers})
        return 0
    print(f"imported {len(done.suppliers)} supplier(s) from {args.target}")
    for c in done.replaced:
        print(f"  replaced row {c.row} {c.supplier_id}: {'; '.join(c.changes) or 'no change'}")
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
    from docflow.suppliers.layouts import is_layout_id

    if not args.target:
        raise ValueError("suppliers show needs a supplier id or a layout id")
    store = _store(args)
    if is_layout_id(args.target):
        return show_layout(args, store)
    found = store.get(args.target)
    changes = [e.to_json() for e in store.history_of(args.target)]
    layouts = [x for x in all_layouts(store) if x.supplier_id == args.target]
    if args.json:
        shown = [x.to_json() for x in layouts]
        print_json({**found.to_json(), "history": changes, "layouts": shown} if found else None)
        return 0 if found else 4
    if found is None:
        print(f"no supplier {args.target}")
        print_history(changes)  # a removed supplier's history stays on record
        return 4
    s = found.to_json()
    for key in ("supplierId", "name", "currency"):
        print(f"{key:15} {s[key] if s[key] is not None else ''}")
    print(f"{'aliases':15} {', '.join(s['aliases'])}")
    print(f"{'ids':15} {_ids(s['ids'])}")
    for layout in layouts:
        print(f"\nlayout {layout.layout_id} (docflow suppliers show {layout.layout_id})")
        print_profile(layout.profile.get("fields") or {})
    print_history(changes)
    return 0


def _remove(args: argparse.Namespace) -> int:
    if not args.target:
        raise ValueError("suppliers remove needs a supplier id")
    store = _store(args)
    removed = store.remove(args.target, _actor(args))
    if args.json:
        print_json({"supplierId": args.target, "removed": removed})
    else:
        print(f"removed {args.target}" if removed else f"no supplier {args.target}")
    return 0 if removed else 4


def _proposals(args: argparse.Namespace) -> int:
    from docflow.suppliers import proposals

    found = [p.to_json(masked=True) for p in proposals.listed(_store(args))]
    if args.json:
        print_json(found)
        return 0
    rows = [
        [
            p["proposalId"],
            (p["name"] + (f" / reviewer: {p['reviewerName']}" if p["reviewerName"] else ""))[:60],
            _ids(p["ids"])[:50],
            p["documentId"],
            p["proposer"],
            p["proposedAt"][:19],
            p["status"],
            (p["conflict"] or "")[:60],
        ]
        for p in found
    ]
    columns = ["id", "name", "ids", "document", "proposer", "when", "status", "conflict"]
    print(table(rows, columns) if rows else "no proposals")
    return 0


def _decide(args: argparse.Namespace) -> int:
    from docflow.cli.principal import NoPrincipal
    from docflow.suppliers import proposals

    if not args.target:
        raise ValueError(f"suppliers {args.action} needs a proposal id")
    store = _store(args)
    try:
        by = _actor(args)
        if args.action == "approve":
            supplier = proposals.approve(store, args.target, by, _people(args), args.name)
            answer = {"proposalId": args.target, "status": "approved", "by": by}
            answer["supplierId"] = supplier.supplier_id
            said = f"approved {args.target}: supplier {supplier.supplier_id} registered by {by}"
        else:
            proposals.reject(store, args.target, by, args.reason or "")
            answer = {"proposalId": args.target, "status": "rejected", "by": by}
            said = f"rejected {args.target} ({by})"
    except proposals.ProposalNotFound as exc:
        print_json(None) if args.json else print(str(exc))
        return 4
    except (proposals.ProposalRefused, NoPrincipal) as exc:
        if args.json:
            print_json({"error": str(exc)})
        print(f"docflow: {exc}", file=sys.stderr)
        return 2
    print_json(answer) if args.json else print(said)
    return 0


# Each action's synopsis, its operand and its options: `docflow suppliers ACTION --help` prints
# the action's own, and options go before or after the operand (`import --replace FILE`).
ACTION_HELP = {
    "import": "register the suppliers of a CSV file; every row is checked first, and nothing "
    "is imported when one is refused, or when a row is registered already and --replace is "
    "not given (the changes it would make are printed)",
    "list": "the registered suppliers, by name",
    "show": "one supplier, its learned profile and its history (a removed one's history too)",
    "remove": "take a supplier out of the registry (its history stays)",
    "proposals": "the suppliers reviewers proposed, oldest first",
    "approve": "register a proposed supplier: by anyone but its own proposer (four eyes)",
    "reject": "refuse a proposed supplier, saying why (--reason)",
    "layouts": "the learned layouts (what docflow reads, registered supplier or not): issuer, "
    "linked supplier, type, the fields trusted at two confirmations, the suspended ones",
    "profile": "`profile reset LAYOUT FIELD`: let a suspended field of a layout learn again "
    "(its entry and graded record go; the next review of the layout teaches it anew)",
}
OPERANDS = {
    "import": ("FILE", "the CSV file"),
    "show": ("ID", "the supplier id, or a layout id (L-...)"),
    "remove": ("ID", "the supplier id"),
    "approve": ("ID", "the proposal id"),
    "reject": ("ID", "the proposal id"),
}
ACTS = ("import", "remove", "approve", "reject", "profile")  # what records who acted


def configure(p: argparse.ArgumentParser) -> None:
    """`docflow suppliers`'s actions, each a parser of its own under the command's."""
    p.set_defaults(target=None, by=None, reason=None, replace=False, name=None)
    actions = p.add_subparsers(
        dest="action",
        required=True,
        metavar="ACTION",
        help="one of these (`docflow suppliers ACTION --help` for its own options):",
    )
    for action, text in ACTION_HELP.items():
        a = actions.add_parser(
            action,
            help=text,
            description=textwrap.fill(text, 92),
            epilog=p.epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        # Also after the action (`suppliers show ID --json`); SUPPRESS keeps the value
        # given before it.
        a.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print JSON (shape below)")  # fmt: skip
        a.add_argument("--local", action="store_true", default=argparse.SUPPRESS,
                       help="the local stack only, never AWS")  # fmt: skip
        if action == "profile":
            a.add_argument("verb", choices=["reset"], help="what to do: reset")
            a.add_argument("target", metavar="LAYOUT", help="the layout id (L-...)")
            a.add_argument("field", metavar="FIELD", help="the field (invoice_number, ...)")
        if action in OPERANDS:
            metavar, said = OPERANDS[action]
            a.add_argument("target", metavar=metavar, help=said)
        if action in ACTS:
            a.add_argument(
                "--by",
                metavar="NAME",
                help="refused (exit 2): who acts is never a typed name, but the principal you "
                "are authenticated as (STS in AWS, the OS account locally), for the history and "
                "four eyes",
            )
        if action == "import":
            a.add_argument(
                "--replace",
                action="store_true",
                help="overwrite suppliers registered already (it prints what changes)",
            )
        if action == "reject":
            a.add_argument("--reason", metavar="TEXT", help="why it is refused")
        if action == "approve":
            a.add_argument(
                "--name",
                choices=["printed", "reviewer"],
                help="which of the proposal's names the supplier takes: the one the page "
                "prints, or the one its reviewer approved (needed when they differ)",
            )


ACTIONS = {
    "import": _import,
    "list": _list,
    "show": _show,
    "remove": _remove,
    "proposals": _proposals,
    "approve": _decide,
    "reject": _decide,
    "layouts": layouts_list,
    "profile": profile_reset,
}
