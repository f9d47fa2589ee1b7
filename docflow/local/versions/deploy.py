"""What `docflow deploy`, `docflow versions` and `docflow up` do with the local versions.

deploy          publish a checkout's code as the next version and point `live` at it, unless
                `live` already runs that code (same digest): then nothing is published
ensure_deployed the first `up` of a state folder publishes this checkout as version 1
listing         each version, whether it is live, and how many open executions hold it
prune           delete versions no execution holds (never `live`)
checkout_note   what `up` says when the checkout's code is not what `live` runs
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docflow.function_versions import open_executions
from docflow.local.versions.snapshot import VersionError, check_checkout, checkout_root, digest
from docflow.local.versions.store import PruneRow, VersionInfo, VersionRow, VersionStore

# The durable functions whose executions hold a version (the others hold nothing between
# invocations, as in Lambda).
DURABLE_FUNCTIONS = ("docflow-orchestrator", "docflow-batcher")
UNVERSIONED = "$LATEST"  # what the runner reports for a run started before versions existed


@dataclass(frozen=True)
class Deployed:
    info: VersionInfo  # the version `live` points at after the deploy
    unchanged: bool  # `live` already ran this code: nothing was published


def deploy(state: Path, source: Path | None, env: dict[str, str]) -> Deployed:
    """Publish `source` (default: this checkout) unless `live` already runs its code: a
    version per deploy of the same code would only grow the list `versions` prints."""
    store = VersionStore(state)
    root = check_checkout(source or checkout_root())
    live = store.live()
    current = store.get(live) if live is not None else None
    if current is not None and current.digest == digest(root):
        return Deployed(current, unchanged=True)
    return Deployed(store.publish(root, env), unchanged=False)


def ensure_deployed(state: Path, env: dict[str, str]) -> VersionInfo | None:
    """Publish this checkout as version 1 when the state folder has no version yet."""
    store = VersionStore(state)
    if store.live() is not None:
        return None
    return store.publish(checkout_root(), env)


def holders(state: Path, client: Any) -> dict[int, list[str]]:
    """version -> ARNs of the open executions on it (a run started before versions existed
    counts for the version it is pinned to, or for `live` until its first resume pins it)."""
    store = VersionStore(state)
    numbers = [str(v.version) for v in store.versions()]
    held: dict[int, list[str]] = {int(n): [] for n in numbers}
    pins, live = store.pinned(), store.live()
    for function in DURABLE_FUNCTIONS:
        found = open_executions(client, function, [*numbers, UNVERSIONED])
        for qualifier, rows in found.items():
            for row in rows:
                arn = str(row["DurableExecutionArn"])
                version = int(qualifier) if qualifier.isdigit() else pins.get(arn, live)
                if version is not None:
                    held.setdefault(version, []).append(arn)
    return held


def listing(state: Path, client: Any) -> list[VersionRow]:
    store = VersionStore(state)
    held = holders(state, client)
    live = store.live()
    return [
        VersionRow(
            **v.to_json(), live=v.version == live, openExecutions=len(held.get(v.version, []))
        )
        for v in store.versions()
    ]


def prune(state: Path, client: Any, only: int | None = None) -> list[PruneRow]:
    """Delete every version (or just `only`) that is not live and holds no open execution;
    `[{"version", "removed", "reason"}]`. Asking for a held or live version is refused."""
    store = VersionStore(state)
    held, live = holders(state, client), store.live()
    targets = [only] if only is not None else [v.version for v in store.versions()]
    out: list[PruneRow] = []
    for version in targets:
        if store.get(version) is None:
            raise VersionError("no-such-version", f"there is no version {version}")
        if version == live:
            reason = "live"
        elif held.get(version):
            reason = f"held by {len(held[version])} open execution(s)"
        else:
            store.remove(version)
            out.append({"version": version, "removed": True, "reason": ""})
            continue
        if only is not None:
            raise VersionError("held", f"version {version} is not removed: it is {reason}")
        out.append({"version": version, "removed": False, "reason": reason})
    return out


def checkout_note(state: Path) -> str | None:
    """None when this checkout's code is what `live` runs; otherwise a sentence saying so."""
    store = VersionStore(state)
    live = store.live()
    info = store.get(live) if live is not None else None
    if info is None:
        return None
    if digest(checkout_root()) == info.digest:
        return None
    return (
        f"the functions run version {live} (deployed {info.published_at}); this checkout's "
        "code differs from it: `docflow deploy` publishes it"
    )
