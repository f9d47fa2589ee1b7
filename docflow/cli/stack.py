"""`docflow up | down | status | mail | dashboard | events`: the local stack and its views.

Commands import boto3 clients, the local stack and the settings inside their functions: `docflow
--help` and a command's --help then start in a fraction of the time (start-up time is the only
reason; nothing here imports upward).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from docflow.cli.exits import StackDidNotStart, StackNotRunning
from docflow.cli.mailtext import mail_lines
from docflow.cli.output import print_json, print_json_line
from docflow.readmodel.queries import ReadModel


def stack(args: argparse.Namespace, start: bool = False, port_base: int | None = None) -> Any:
    """This process pointed at the local stack: started first with `start`, otherwise it must
    be running (StackNotRunning)."""
    from docflow.local.stack import control

    state = Path(args.state)
    if start:
        try:
            control.up(state, port_base=port_base)
        except control.StackStartError as exc:
            raise StackDidNotStart(str(exc)) from None
    elif not control.running_pid(state) or not _answers(state):
        raise StackNotRunning()
    return control.use_stack(state)


def _answers(state: Path) -> bool:
    """moto's port accepts a connection: a stack whose supervisor lives but whose servers are
    gone (being stopped, or killed but for one part) is not running for a command, and
    botocore would otherwise retry against it for many seconds."""
    import socket

    from docflow.local.config import StackConfig

    try:
        with socket.create_connection(("127.0.0.1", StackConfig.load(state).moto_port), 2):
            return True
    except OSError:
        return False


def model() -> ReadModel:
    from docflow.settings import load_settings

    settings = load_settings()
    return ReadModel(settings.table_name, settings.artifact_bucket)


def maybe_local(args: argparse.Namespace) -> Any:
    """The local stack when it runs; otherwise AWS's read model if DOCFLOW_TABLE_NAME names
    one (and --local was not given); otherwise StackNotRunning. Returns the stack's config, or
    None for AWS."""
    import os

    from docflow.local.stack import control

    if control.running_pid(Path(args.state)):
        return stack(args)  # StackNotRunning when its servers do not answer
    if getattr(args, "local", False) or not os.environ.get("DOCFLOW_TABLE_NAME"):
        raise StackNotRunning()
    return None


def is_unreachable(exc: BaseException) -> bool:
    """A botocore error that means nothing listens at the endpoint (a stack that stopped
    under the command). Matched by name: botocore loads only when a command needs it."""
    names = {c.__name__ for c in type(exc).__mro__}
    return bool(names & {"EndpointConnectionError", "ConnectionClosedError"})


def cmd_up(args: argparse.Namespace) -> int:
    from docflow.local.stack import control, recovery

    starting = control.running_pid(Path(args.state)) is None
    if not starting and args.port_base is not None:
        raise ValueError("the stack is running: `docflow down` first to move its ports")
    config = stack(args, start=True, port_base=args.port_base)
    for warning in up_warnings(config, os.environ, running=not starting):
        print(f"docflow: warning: {warning}", file=sys.stderr)
    info = control.status(Path(args.state))
    # After an unclean stop (a kill), what the start brought back; {} when nothing to say.
    found = control.recovered(Path(args.state)) if starting else {}
    found = found if found.get("uncleanStop") else {}
    from docflow.local.versions.deploy import checkout_note

    if note := checkout_note(config.state):  # the stack runs deployed versions, not the tree
        print(f"docflow: {note}", file=sys.stderr)
    if args.json:
        print_json({**info, "recovery": found})
        return 0
    if found:
        print(recovery.summary(found))
    print(f"local stack up; review links served at {config.review_url}")
    return 0


def up_warnings(config: Any, environ: Mapping[str, str], running: bool) -> list[str]:
    """What `up` says on stderr: each DOCFLOW_* variable docflow does not read (it would
    change nothing, silently), and on a stack that was already running, a rules file it does
    not use (`rules_changes`)."""
    from docflow.settings import unknown_variables

    lines = [
        f"{name} is not a variable docflow reads"
        + (f" (did you mean {close}?)" if close else "")
        + "; it changes nothing"
        for name, close in unknown_variables(environ)
    ]
    return lines + (rules_changes(config, environ) if running else [])


def rules_changes(config: Any, environ: Mapping[str, str]) -> list[str]:
    """A running stack keeps the rules its functions loaded when it started: a different
    DOCFLOW_RULES_PATH, or the file's content changed since, is said, not applied. Applying
    it would restart the functions under the runs in flight, and a document classified on
    one rules file would be extracted and routed on another; the user picks the moment."""
    from docflow.local.config import SHIPPED_RULES, file_digest

    in_use = config.rules_file()
    again = "`docflow down`, then `docflow up`, to use"
    if "DOCFLOW_RULES_PATH" in environ:
        raw = environ["DOCFLOW_RULES_PATH"].strip()
        named = Path(raw).expanduser().resolve() if raw else SHIPPED_RULES
        if named != in_use.resolve():
            return [
                f"DOCFLOW_RULES_PATH names {named}, but the running stack reads {in_use}, "
                f"as it did when it started; {again} it"
            ]
    if config.rules_digest and file_digest(in_use) != config.rules_digest:
        return [
            f"the rules file {in_use} changed since the stack started, and its functions "
            f"read it when they start; {again} the new rules"
        ]
    return []


def cmd_down(args: argparse.Namespace) -> int:
    from docflow.local.stack import control

    stopped = control.down(Path(args.state))
    print_json({"stopped": stopped}) if args.json else print(
        "local stack stopped" if stopped else "local stack was not running"
    )
    return 0


class AwsAccess(TypedDict):
    """What `docflow up --json` and `info --json` say a user's own AWS client needs."""

    endpointUrl: str
    region: str
    accessKeyId: str
    secretAccessKey: str
    documentBucket: str
    incomingPrefix: str
    artifactBucket: str
    tableName: str
    env: dict[str, str]


def aws_access(config: Any) -> AwsAccess:
    """What a user's own AWS client (the aws CLI, boto3) needs to talk to this stack."""
    env = config.client_env()
    names = config.names
    return {
        "endpointUrl": env["AWS_ENDPOINT_URL"],
        "region": env["AWS_DEFAULT_REGION"],
        "accessKeyId": env["AWS_ACCESS_KEY_ID"],
        "secretAccessKey": env["AWS_SECRET_ACCESS_KEY"],
        "documentBucket": names("DocumentBucket"),
        "incomingPrefix": "incoming/",
        "artifactBucket": names("ArtifactBucket"),
        "tableName": names("ReadModelTable"),
        "env": {
            k: env[k]
            for k in (
                "AWS_ENDPOINT_URL",
                "AWS_DEFAULT_REGION",
                "AWS_ACCESS_KEY_ID",
                "AWS_SECRET_ACCESS_KEY",
            )
        },
    }


def cmd_status(args: argparse.Namespace) -> int:
    from docflow.local.config import StackConfig
    from docflow.local.stack import control

    state = Path(args.state)
    config = StackConfig.load(state)
    now, log, access = control.status(state), str(state / "stackd.log"), aws_access(config)
    if args.json:
        print_json({**now, "portBase": config.port_base, "log": log, "aws": access})
        return 0 if now["running"] else 3
    print("running" if now["running"] else "stopped (`docflow up` starts it)")
    for key, where in (
        ("moto", now["moto"]),
        ("runner", now["runner"]),
        ("host", now["host"]),
        ("review", now["review"]),
        ("state", now["state"]),
        ("log", log),
    ):
        print(f"  {key:7} {where}")
    print(f"  ports   {config.port_base} to {config.port_base + 10} (DOCFLOW_LOCAL_PORT_BASE)")
    print()
    print("Your own AWS client (aws CLI, boto3) reaches the local stack with:")
    for name, value in access["env"].items():
        print(f"  export {name}={value}")
    print(f"  document bucket  {access['documentBucket']} (upload under incoming/ to start a run)")
    print(f"  read model table {access['tableName']}")
    print(f"  artifact bucket  {access['artifactBucket']}")
    print()
    print("for example:")
    print(
        f"  aws --endpoint-url {access['endpointUrl']} s3 cp invoice.pdf "
        f"s3://{access['documentBucket']}/incoming/invoice.pdf"
    )
    print("  docflow show incoming/invoice.pdf")
    return 0 if now["running"] else 3


def cmd_mail(args: argparse.Namespace) -> int:
    from docflow.local.config import StackConfig

    # The stack's mailbox is a file in its folder: readable with the stack stopped.
    path = StackConfig.load(Path(args.state)).state / "mail.json"
    mail = json.loads(path.read_text()) if path.exists() else []
    if args.json:
        print_json(mail)
        return 0
    if not mail:
        print("no mail yet")
    for m in mail:
        print("\n".join(mail_lines(m)))
        print("-" * 60)
    return 0


def cmd_dashboard(args: argparse.Namespace) -> int:
    from docflow.local.config import StackConfig
    from docflow.local.services.dashboard import url
    from docflow.local.stack import control

    state = Path(args.state)
    running = control.running_pid(state) is not None
    address = url(StackConfig.load(state))
    if args.json:
        print_json({"url": address, "running": running})
    else:
        print(address)
        if not running:
            print(
                "docflow: the local stack is not running; `docflow up` starts it", file=sys.stderr
            )
    return 0 if running else 3


def cmd_events(args: argparse.Namespace) -> int:
    from docflow.local.config import StackConfig
    from docflow.local.services.operators import EVENTS_FILE, RecordedEvent, read_events

    path = StackConfig.load(Path(args.state)).state / EVENTS_FILE
    shown = 0

    def emit(events: list[RecordedEvent], stream: bool) -> None:
        for event in events:
            if args.type and event.get("detail-type") != args.type:
                continue
            if args.json and stream:
                print_json_line(event)
            elif not args.json:
                detail = event.get("detail", {})
                reason = detail.get("reason")
                print(
                    f"{event.get('time', '')}  {event.get('detail-type', ''):16}  "
                    f"{detail.get('documentId', '')}  {detail.get('key') or '-'}  "
                    f"{detail.get('status', '')}"
                    f"{'  ' + reason if reason else ''}  "
                    f"event {detail.get('eventId', '')}",
                    flush=stream,
                )

    events = read_events(path)
    if args.json and not args.follow:
        print_json([e for e in events if not args.type or e.get("detail-type") == args.type])
        return 0
    if not events and not args.follow:
        print("no events yet")
    emit(events, args.follow)
    shown = len(events)
    while args.follow:
        time.sleep(0.5)
        events = read_events(path)
        emit(events[shown:], True)
        shown = len(events)
    return 0
