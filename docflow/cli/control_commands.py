"""The commands of the people who decide what gets paid, as `docflow`'s parser adds them:
`inbox` and `reviewers` (the review desk's people), `suppliers` (the supplier master, four
eyes), `audit` (what finalized unreviewed on learned profiles) and `orders` (what was billed
and received against a purchase order). Kept apart from
`docflow.cli`'s parser so each holds one kind of command."""

from __future__ import annotations

from typing import Any

from docflow.cli import audit, orders, reviewers, suppliers

Add = Any  # add(name, fn, help, local=False) -> the command's parser


def add_control_commands(add: Add) -> None:
    p = add("inbox", reviewers.cmd_inbox, "print a reviewer's inbox link (local stack)")
    p.add_argument(
        "address",
        metavar="ADDRESS",
        help="the reviewer's e-mail address: one the rules file names (a stage's reviewers or "
        "escalate_to, a [reviewers] entry); any other is refused, exit 2",
    )
    p = add(
        "reviewers",
        reviewers.cmd_reviewers,
        "revoke a reviewer (their inbox and review links answer 403 from now on), or revoke "
        "one inbox link (a forwarded one) and nothing else",
    )
    p.add_argument(
        "action",
        choices=["revoke", "revoke-link"],
        help="revoke ADDRESS: the reviewer; revoke-link URL: one inbox link",
    )
    p.add_argument(
        "target", metavar="ADDRESS|URL", help="the reviewer's address, or the inbox link (or token)"
    )
    p = add(
        "suppliers",
        suppliers.cmd_suppliers,
        "the supplier registry, changed by operators only: import a CSV (every row checked "
        "first; columns: id, name, aliases, vat, siret, siren, kvk, cnpj, cuit, gstin, abn, ein, "
        "iban, currency; `,` or `;` between cells, `;` between several values; UTF-8 or "
        "Windows-1252), list, show (with its history) or remove a supplier; list the suppliers "
        "reviewers proposed, approve one (not by its proposer's person: the rules file's "
        "[people] table maps reviewers' addresses to operators' principals) or reject it. Who "
        "acts is who you are authenticated as: against AWS the IAM principal STS names for "
        "your credentials, on the local stack your OS account (by user id, not $USER)",
        local=True,
    )
    suppliers.configure(p)  # each action a parser of its own, with its own --help
    add(
        "audit",
        audit.cmd_audit,
        "per supplier and overall: documents finalized with no person on a learned profile, "
        "the audit stage's samples, the misses they found, and the estimated share of wrong "
        "values among the unreviewed with its Wilson interval at 0.95 confidence",
        local=True,
    )
    p = add(
        "orders",
        orders.cmd_orders,
        "a purchase order as invoices are matched to it (docs/matching.md): its lines with "
        "what was billed and received of each, its goods receipts, the invoices and credit "
        "notes billed against it and what is left, the invoices waiting for it. One number "
        "two suppliers use is two orders: both are shown, or the one --supplier names",
        local=True,
    )
    orders.configure(p)
