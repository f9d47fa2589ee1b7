"""Starting a batcher execution under a deterministic name, idempotently.

The same name is started by whoever gets there first (a schedule tick, the registration that
filled the pool, a retried submitter); AWS returns the existing execution for a repeated name
with the same input, and the local stack claims the name first (the runner does not
de-duplicate). The input is the name alone, so every start of one name carries the same input.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from docflow.intake import build_starter
from docflow.settings import load_settings


def batcher_input(name: str) -> str:
    return json.dumps({"name": name}, sort_keys=True)


def start_batcher(name: str) -> str:
    """Start the batcher `name`; returns the name, or "" when no batcher function is set (the
    tests drive the batcher themselves)."""
    settings = load_settings()
    if not settings.batcher_function:
        return ""
    build_starter(settings.batcher_function, settings).start_named(name, batcher_input(name))
    return name


def scheduled_name(now: datetime | None = None, every_s: int = 300) -> str:
    """The schedule's batcher for this window: one execution per window, however often the
    schedule fires (a redelivered tick starts nothing new)."""
    moment = now or datetime.now(UTC)
    window = int(moment.timestamp()) // every_s * every_s
    return f"pile-at-{window}"
