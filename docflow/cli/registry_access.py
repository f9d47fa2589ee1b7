"""How the supplier commands reach the registry and say who acts: the table (the local stack's
when it runs, or --local, else the configured AWS account's) and the authenticated principal.
Below `suppliers.py`, `layouts.py` and `audit.py`, which all need them."""

from __future__ import annotations

import argparse
from typing import Any

from docflow.cli.stack import maybe_local


def registry(args: argparse.Namespace) -> Any:
    from docflow.settings import load_settings
    from docflow.suppliers.store import SupplierStore

    args.stack_config = maybe_local(args)
    args.aws = args.stack_config is None
    load_settings.cache_clear()
    return SupplierStore(load_settings().supplier_table)


def actor(args: argparse.Namespace) -> str:
    """Who runs this command, as authenticated (`docflow.cli.principal`). Call after
    `registry` (which decides local or AWS)."""
    from docflow.cli.principal import principal

    return principal(bool(getattr(args, "aws", False)))
