"""`docflow suppliers layouts | show L-... | profile reset LAYOUT FIELD`: the learned layouts
(docflow.suppliers.layouts), each field's trust and graded record as `suppliers show` prints
it, and an operator's reset of a suspended field (recorded with who did it, as every change
to the registry's table)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from docflow.cli.output import clip, print_json, table

if TYPE_CHECKING:
    from docflow.suppliers.history import EntryJson
    from docflow.suppliers.shapes import ProfileEntry


def all_layouts(store: Any) -> list[Any]:
    from docflow.suppliers.layouts import LayoutStore

    return list(LayoutStore(store.table, store.ddb).all())


def show_layout(args: argparse.Namespace, store: Any) -> int:
    from docflow.suppliers.layouts import LayoutStore

    layout = LayoutStore(store.table, store.ddb).get(args.target)
    changes = [e.to_json() for e in store.history_of(args.target)]
    if args.json:
        print_json({**layout.to_json(), "history": changes} if layout else None)
        return 0 if layout else 4
    if layout is None:
        print(f"no layout {args.target}")
        return 4
    shown = dict(layout.to_json())
    for key in ("layoutId", "issuer", "supplierId", "docType", "language", "version"):
        print(f"{key:15} {shown[key] if shown[key] is not None else ''}")
    print(f"{'fingerprint':15} {len(layout.fingerprint)} lines")
    print_profile(layout.profile.get("fields") or {})
    print_history(changes)
    return 0


PROFILE_COLUMNS = [
    "field",
    "label",
    "shape",
    "page",
    "confirmed",
    "hits",
    "misses",
    "last graded",
    "suspended",
]


def print_profile(fields: dict[str, ProfileEntry]) -> None:
    if fields:
        print()
        print(table([profile_row(n, e) for n, e in sorted(fields.items())], PROFILE_COLUMNS))


def layouts_list(args: argparse.Namespace) -> int:
    from docflow.cli.registry_access import registry as _store
    from docflow.suppliers.trust import trusted

    store = _store(args)
    found = all_layouts(store)
    if args.json:
        print_json([x.to_json() for x in found])
        return 0
    rows = []
    for x in found:
        fields = x.profile.get("fields") or {}
        sure = sorted(n for n, e in fields.items() if trusted(e, 2))
        held = sorted(n for n, e in fields.items() if e.get("suspended"))
        rows.append(
            [
                x.layout_id,
                clip(x.issuer, 30),
                x.supplier_id,
                x.doc_type,
                ", ".join(sure)[:50],
                ", ".join(held)[:40],
            ]
        )
    columns = ["layout", "issuer", "supplier", "type", "trusted (at 2)", "suspended"]
    print(table(rows, columns) if rows else "no layouts")
    return 0


def profile_reset(args: argparse.Namespace) -> int:
    """`profile reset LAYOUT FIELD`: an operator lets a suspended field learn again."""
    from docflow.cli.principal import NoPrincipal
    from docflow.cli.registry_access import actor as _actor
    from docflow.cli.registry_access import registry as _store
    from docflow.suppliers import history
    from docflow.suppliers.layouts import Layout, LayoutStore
    from docflow.suppliers.trust import reset

    store = _store(args)
    layouts = LayoutStore(store.table, store.ddb)
    if layouts.get(args.target) is None:
        print_json(None) if args.json else print(f"no layout {args.target}")
        return 4
    try:
        by = _actor(args)
    except NoPrincipal as exc:
        print_json({"error": str(exc)}) if args.json else print(f"docflow: {exc}", file=sys.stderr)
        return 2
    done: list[bool] = []

    def change(old: Layout) -> Layout | None:
        new = reset(old.profile, args.field)
        done[:] = [new is not None]
        return None if new is None else replace(old, profile=new)

    def note(after: Layout) -> history.Entry:
        said = f"{args.field} reset by an operator: its next review teaches it anew"
        return history.entry(after.layout_id, history.RESET, by, said)

    layouts.change(args.target, change, note)
    reset_done = bool(done and done[0])
    if args.json:
        print_json({"layoutId": args.target, "field": args.field, "reset": reset_done, "by": by})
    elif reset_done:
        print(f"reset {args.field} of layout {args.target} ({by})")
    else:
        print(f"layout {args.target} has no learned {args.field}")
    return 0 if reset_done else 4


def print_history(changes: list[EntryJson]) -> None:
    if not changes:
        return
    rows = [
        [e["at"][:19], e["what"], e["by"], e["documentId"] or "", clip(e["detail"], 70)]
        for e in changes
    ]
    print("\nhistory")
    print(table(rows, ["when", "what", "who", "document", "detail"]))


ABSENT = "absent (a reviewer left it empty)"
SUSPENDED = {"misses": "yes (two misses)", "streak": "yes (a review disagreed: reset it)"}


def profile_row(name: str, entry: ProfileEntry) -> list[object]:
    """One learned field as `suppliers show` prints it: an absent one (`{"absent": true}`)
    has no label or shape to print, so its label column says why; a constant (the issuer's
    name) shows its value; its graded record (hits, misses, the last outcome and when)."""
    absent = bool(entry.get("absent"))
    label = ABSENT if absent else entry.get("label", "") or clip(str(entry.get("value", "")), 30)
    graded = entry.get("graded") or {}
    last = f"{graded['last']} {str(graded.get('at', ''))[:10]}".strip() if "last" in graded else ""
    suspended = SUSPENDED.get(str(entry.get("suspendedWhy")), "yes")
    return [
        name,
        label,
        "" if absent else entry.get("shape", ""),
        entry.get("page", ""),
        entry.get("confirmed", 0),
        graded.get("hits", 0),
        graded.get("misses", 0),
        last,
        suspended if entry.get("suspended") else "",
    ]
