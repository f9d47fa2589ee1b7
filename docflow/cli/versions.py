"""`docflow deploy` and `docflow versions`: function versions, on the local stack and in AWS.

Locally a version is a copy of a checkout's code under the stack's state folder
(docflow.local.versions); in AWS it is what `AutoPublishAlias: live` published, listed with
the Lambda APIs (docflow.function_versions). Either way an execution resumes on the version it
started on, so a version is removed only when no open execution holds it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docflow.cli.output import print_json, table

if TYPE_CHECKING:
    from docflow.local.versions.store import VersionRow


def cmd_deploy(args: argparse.Namespace) -> int:
    from docflow.local.config import StackConfig
    from docflow.local.versions.deploy import deploy

    state = Path(args.state)
    config = StackConfig.load(state)
    config.state.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **config.function_env()}
    source = Path(args.source) if args.source else None
    done = deploy(config.state, source, env)
    info = done.info
    if args.json:
        print_json({**info.to_json(), "live": True, "unchanged": done.unchanged})
    elif done.unchanged:
        print(
            f"unchanged: live is version {info.version} (published {info.published_at}), "
            "which runs this code already; nothing published"
        )
    else:
        print(f"published version {info.version} from {info.source}; live -> {info.version}")
    return 0


def cmd_versions(args: argparse.Namespace) -> int:
    from docflow.local.stack import control

    state = Path(args.state)
    local = (
        getattr(args, "local", False) or control.running_pid(state) or (state / "versions").is_dir()
    )
    if not local:
        return _aws_versions(args)
    running = control.running_pid(state) is not None
    if args.action == "prune":
        if not running:
            raise RuntimeError(
                "the local stack is stopped: which executions hold a version is known only "
                "while it runs (`docflow up`)"
            )
        from docflow import aws
        from docflow.local.versions.deploy import prune

        control.use_stack(state)
        rows = prune(state, aws.client("lambda"), args.version)
        if args.json:
            print_json(rows)
        else:
            for row in rows:
                verb = "removed" if row["removed"] else f"kept ({row['reason']})"
                print(f"version {row['version']}: {verb}")
        return 0
    return _print(args, _local_rows(state, running))


def _local_rows(state: Path, running: bool) -> list[VersionRow]:
    from docflow.local.versions.store import VersionRow, VersionStore

    if running:
        from docflow import aws
        from docflow.local.stack import control
        from docflow.local.versions.deploy import listing

        control.use_stack(state)
        return listing(state, aws.client("lambda"))
    store = VersionStore(state)
    live = store.live()
    return [
        VersionRow(**v.to_json(), live=v.version == live, openExecutions=None)
        for v in store.versions()
    ]


def _aws_versions(args: argparse.Namespace) -> int:
    from docflow import aws
    from docflow.function_versions import alias_version, open_executions, published_versions

    if args.action == "prune":
        raise RuntimeError(
            "in AWS a version is deleted with `aws lambda delete-function --qualifier N` once "
            "`docflow versions` shows it holds no open execution (docs/upgrading.md)"
        )
    function = os.environ.get("DOCFLOW_ORCHESTRATOR_FUNCTION")
    if not function:
        raise RuntimeError(
            "set DOCFLOW_ORCHESTRATOR_FUNCTION to the orchestrator's name (the stack output "
            "OrchestratorAliasArn without its `:live`), or run the local stack"
        )
    function = function.removesuffix(":live")
    client = aws.client("lambda")
    numbers = published_versions(client, function)
    live = alias_version(client, function)
    held = open_executions(client, function, numbers)
    rows: list[VersionRow] = [
        {
            "version": int(n),
            "live": n == live,
            "openExecutions": len(held[n]),
            "source": None,
            "digest": None,
            "publishedAt": None,
        }
        for n in numbers
    ]
    return _print(args, rows)


def _print(args: argparse.Namespace, rows: list[VersionRow]) -> int:
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print("no versions yet: `docflow deploy` (or `docflow up`) publishes one")
        return 0
    print(
        table(
            [
                [
                    r["version"],
                    "live" if r["live"] else "",
                    "?" if r["openExecutions"] is None else r["openExecutions"],
                    r.get("publishedAt") or "",
                    r.get("source") or "",
                ]
                for r in rows
            ],
            ["version", "alias", "open", "published", "source"],
        )
    )
    if any(r["openExecutions"] is None for r in rows):
        print("(open executions unknown: the local stack is stopped)", file=sys.stderr)
    return 0


def add_commands(add: Any) -> None:
    """Register the two commands on the `docflow` parser (`add` as in docflow.cli)."""
    p = add(
        "deploy",
        cmd_deploy,
        "publish a checkout's code as the next version of every local function and point "
        "`live` at it: new executions start on it, waiting ones stay on theirs; code `live` "
        "already runs (same digest) publishes nothing and says unchanged",
    )
    p.add_argument("--source", help="a docflow checkout (default: this one)")
    p = add(
        "versions",
        cmd_versions,
        "function versions and how many open executions each holds; `prune` removes the "
        "ones none holds (never live)",
    )
    p.add_argument(
        "action",
        nargs="?",
        choices=["list", "prune"],
        default="list",
        help="list (the default) or prune: remove versions that are not live and hold no "
        "open execution",
    )
    p.add_argument("--version", type=int, help="prune only this version")
