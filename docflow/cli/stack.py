"""`docflow up | down | status | mail | dashboard | events`: the local stack and its views.

Commands import boto3 clients, the local stack and the settings inside their functions: `docflow
--help` and a command's --help then start in a fraction of the time (start-up time is the only
reason; nothing here imports upward).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from docflow.cli.output import print_json, print_json_line
from docflow.readmodel.queries import ReadModel


def stack(args: argparse.Namespace, start: bool = False) -> Any:
    from docflow.local.stack import control

    state = Path(args.state)
    if start:
        control.up(state)
    return control.use_stack(state)


def model() -> ReadModel:
    from docflow.settings import load_settings

    return ReadModel(load_settings().table_name)


def maybe_local(args: argparse.Namespace) -> Any:
    """Query the local stack when it runs (or --local), otherwise the configured AWS."""
    from docflow.local.stack import control

    if args.local or control.running_pid(Path(args.state)):
        return stack(args)
    return None


def cmd_up(args: argparse.Namespace) -> int:
    from docflow.local.stack import control, recovery

    starting = control.running_pid(Path(args.state)) is None
    config = control.up(Path(args.state))
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


def cmd_down(args: argparse.Namespace) -> int:
    from docflow.local.stack import control

    stopped = control.down(Path(args.state))
    print_json({"stopped": stopped}) if args.json else print(
        "local stack stopped" if stopped else "local stack was not running"
    )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from docflow.local.stack import control

    info = control.status(Path(args.state))
    if args.json:
        print_json(info)
    else:
        print("running" if info["running"] else "stopped")
        for key in ("moto", "runner", "host", "review", "state"):
            print(f"  {key:7} {info[key]}")
    return 0 if info["running"] else 3


def cmd_mail(args: argparse.Namespace) -> int:
    config = stack(args)
    path = config.state / "mail.json"
    mail = json.loads(path.read_text()) if path.exists() else []
    if args.json:
        print_json(mail)
        return 0
    if not mail:
        print("no mail yet")
    for m in mail:
        print(f"To: {', '.join(m['to'])}\nSubject: {m['subject']}\n\n{m['body']}\n{'-' * 60}")
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
    from docflow.local.services.operators import EVENTS_FILE, read_events

    path = StackConfig.load(Path(args.state)).state / EVENTS_FILE
    shown = 0

    def emit(events: list[dict[str, Any]], stream: bool) -> None:
        for event in events:
            if args.type and event.get("detail-type") != args.type:
                continue
            if args.json and stream:
                print_json_line(event)
            elif not args.json:
                detail = event.get("detail", {})
                print(
                    f"{event.get('time', '')}  {event.get('detail-type', ''):16}  "
                    f"{detail.get('documentId', '')}  {detail.get('key') or '-'}  "
                    f"{detail.get('status', '')}"
                    f"{'  ' + detail['reason'] if detail.get('reason') else ''}  "
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
