"""Each command's `--help` lists the exit statuses it returns, and only those (#44.8): every
command once listed "3 the local stack is not running", though `submit` starts a stopped stack
and `down`, `deploy`, `versions`, `mail` and `events` exit 0 on one; `suppliers` left out the
4 that `show` and `remove` return. Each command is run here on a stopped stack (a folder with
none in it; starting one fails at once) and, where it has one, on a missing document or
supplier (moto in-process)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any, cast

import pytest

from docflow.cli import build_parser, main
from docflow.cli.exits import (
    BROKEN_PIPE,
    DOCUMENT_FAILED,
    INTERRUPTED,
    NOT_FOUND,
    NOT_STARTED,
    OK,
    STOPPED,
    TIMED_OUT,
    USAGE,
)
from tests.support.aws import Stack

KNOWN = {OK, TIMED_OUT, USAGE, STOPPED, NOT_FOUND, DOCUMENT_FAILED, NOT_STARTED}
KNOWN |= {INTERRUPTED, BROKEN_PIPE}
SAYS_STOPPED = f"{STOPPED} the local stack is not running"

# Each command with the cheapest arguments that reach what it does with the stack.
ON_A_STOPPED_STACK: dict[str, list[str]] = {
    "up": [],
    "down": [],
    "status": [],
    "deploy": [],
    "versions": [],
    "mail": [],
    "dashboard": [],
    "events": [],
    "submit": ["{pdf}"],
    "run": ["{pdf}"],
    "backfill": ["{pdf}"],
    "reprocess": ["d-missing"],
    "trace": ["d-missing"],
    "jobs": [],
    "pending": [],
    "failed": [],
    "stuck": [],
    "show": ["d-missing"],
    "inbox": ["legal@example.com"],  # one the rules name (any other is refused, 2)
    "reviewers": ["revoke", "someone@example.com"],
    "suppliers": ["list"],
    "audit": [],
    "orders": ["show", "PO-4411"],
}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in build_parser()._actions if a.dest == "command"]
    return cast("dict[str, argparse.ArgumentParser]", sub.choices)


def exits_text(command: str) -> str:
    text = " ".join(subcommands()[command].format_help().split())
    return text[text.index("exit status:") :]


def documented(command: str) -> set[int]:
    return {int(n) for n in re.findall(r"(?:: |; )(\d+) ", exits_text(command))}


@pytest.fixture
def stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stopped stack's folder (one that ran: it has versions), a stack that cannot start
    there, no AWS configured."""
    from docflow.local.stack import control
    from docflow.local.versions import deploy, store

    def cannot_start(*args: Any, **kwargs: Any) -> None:
        raise control.StackStartError("a port is taken (this test's stand-in)")

    monkeypatch.setattr(control, "up", cannot_start)
    # deploy never asks for the stack; what it publishes is tests/local's business.
    info = store.VersionInfo(1, str(tmp_path), "0" * 64, "2026-12-04T00:00:00+00:00")
    monkeypatch.setattr(deploy, "deploy", lambda *args: deploy.Deployed(info, unchanged=False))
    for name in ("DOCFLOW_TABLE_NAME", "DOCFLOW_ORCHESTRATOR_FUNCTION"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "doc.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / "state" / "versions").mkdir(parents=True)  # a stack that ran, now stopped
    return tmp_path


def test_every_status_a_command_lists_is_one_docflow_has() -> None:
    for command in subcommands():
        assert documented(command) <= KNOWN, command
        assert {OK, USAGE, INTERRUPTED, BROKEN_PIPE} <= documented(command), command


def test_on_a_stopped_stack_each_command_exits_as_its_help_says(
    stopped: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert set(ON_A_STOPPED_STACK) == set(subcommands())
    got: dict[str, int] = {}
    for command, args in ON_A_STOPPED_STACK.items():
        argv = [a.format(pdf=stopped / "doc.pdf") for a in args]
        got[command] = main(["--state", str(stopped / "state"), command, *argv])
        capsys.readouterr()
    for command, code in got.items():
        assert code in documented(command), (command, code, exits_text(command))
        # "not running" is listed exactly by the commands that exit 3 when it is not.
        assert (SAYS_STOPPED in exits_text(command)) == (code == STOPPED), (command, code)
    assert {c for c, code in got.items() if code == NOT_STARTED} == {
        "up",
        "submit",
        "run",
        "backfill",
    }
    assert {c for c, code in got.items() if code == OK} == {
        "down",
        "deploy",
        "versions",
        "mail",
        "events",
    }


def test_a_missing_document_or_supplier_is_a_status_the_help_lists(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ["--state", str(tmp_path / "no-stack")]  # the sandbox, as AWS's read model
    for command, args in (
        ("show", ["d-missing"]),
        ("reprocess", ["d-missing"]),
        ("trace", ["d-missing"]),
        ("suppliers", ["show", "nobody"]),
        ("suppliers", ["remove", "nobody"]),
    ):
        assert main([*state, command, *args]) == NOT_FOUND, (command, args)
        capsys.readouterr()
        assert NOT_FOUND in documented(command), command
