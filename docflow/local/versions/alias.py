"""Starting an execution by alias, as Lambda does: the alias names a version at the start.

Lambda resolves `fn:live` when the execution starts and records the version it ran
(GetDurableExecution's `Version`, the execution ARN's qualifier); every later invocation of
that execution runs that version. The testing runner keeps the qualifier it was given and
invokes `fn:live` on every resume, which would move a waiting run onto whatever was deployed
since. So the runner's executor resolves the alias to the number `live` names before the
execution is created, and the runner invokes `fn:<n>` from then on.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from docflow.local.versions.store import LIVE, VersionStore


def resolve_aliases_at_start(executor: Any, state: Path) -> None:
    """Wrap the runner executor's execution factory (starts and chained invokes alike)."""
    store = VersionStore(state)
    create = executor._create_execution

    def create_pinned(input: Any, *args: Any, **kwargs: Any) -> Any:
        if input.function_qualifier == LIVE:
            live = store.live()
            if live is not None:
                input = dataclasses.replace(input, function_qualifier=str(live))
        return create(input, *args, **kwargs)

    executor._create_execution = create_pinned
