"""The state folder is its owner's alone (issue 56, item 7): `docflow up` creates it 0700 and
the files it writes there 0600, whatever the user's umask, and tightens a folder made before
(or loosened since): every folder 0700, every file its owner's bits only. The stack's own
processes create private files (their umask is 077); tests/live/test_state_folder_stack.py
checks a running stack's folder after a document went through it."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from docflow.local.config import StackConfig
from docflow.local.private import append_private, private_folder, tighten, write_private
from docflow.local.stack.control import prepare_state
from docflow.local.versions.store import VersionStore
from tests.support.checkouts import copy_checkout


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """A user whose umask lets everyone read what they create (the common 022)."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def test_a_new_state_folder_and_its_config_are_private(tmp_path: Path, loose_umask: None) -> None:
    state = tmp_path / "home" / ".docflow"
    StackConfig(state=state).save()
    assert mode(state) == 0o700
    assert mode(state / "stack.json") == 0o600
    assert mode(tmp_path / "home") == 0o755  # above the state folder: the user's own


def test_an_existing_loose_folder_is_tightened_and_links_are_left_alone(
    tmp_path: Path, loose_umask: None
) -> None:
    state = tmp_path / ".docflow"
    (state / "executions" / "doc-1").mkdir(parents=True)
    journal = state / "executions" / "doc-1" / "journal"
    journal.write_bytes(b"checkpoint")
    (state / "stackd.log").write_text("log")
    tool = state / "versions" / "1" / "run.sh"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    elsewhere = tmp_path / "shared.txt"
    elsewhere.write_text("not the stack's")
    (state / "link").symlink_to(elsewhere)
    for path in (state, state / "executions", state / "executions" / "doc-1", journal):
        os.chmod(path, 0o777 if path.is_dir() else 0o666)

    assert prepare_state(state) == 8
    for path in (state, state / "executions", state / "executions" / "doc-1", tool.parent):
        assert mode(path) == 0o700, path
    assert mode(journal) == mode(state / "stackd.log") == 0o600
    assert mode(tool) == 0o700  # its owner may still run it
    assert mode(elsewhere) == 0o644  # a link's target is not the stack's to change
    assert prepare_state(state) == 0  # nothing left to tighten


def test_what_up_writes_itself_is_private_even_over_a_loose_file(
    tmp_path: Path, loose_umask: None
) -> None:
    folder = private_folder(tmp_path / "state")
    pid = folder / "stackd.pid"
    pid.write_text("1")
    pid.chmod(0o644)
    write_private(pid, "4242")
    assert (pid.read_text(), mode(pid)) == ("4242", 0o600)
    with append_private(folder / "stackd.log") as log:
        log.write(b"started\n")
    assert mode(folder / "stackd.log") == 0o600
    assert tighten(folder) == 0


def test_the_stacks_processes_create_private_files(tmp_path: Path, loose_umask: None) -> None:
    # What stackd does first, in a process of its own, and what a process it starts inherits.
    script = (
        "import pathlib, subprocess, sys\n"
        "from docflow.local.private import private_process\n"
        "private_process()\n"
        "folder = pathlib.Path(sys.argv[1])\n"
        "(folder / 'journal').write_bytes(b'x')\n"
        "(folder / 'sub').mkdir()\n"
        "subprocess.run([sys.executable, '-c', "
        "'import pathlib, sys; pathlib.Path(sys.argv[1]).write_text(\"y\")', "
        "str(folder / 'sub' / 'child.log')], check=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True, env=env)
    assert mode(tmp_path / "journal") == 0o600
    assert mode(tmp_path / "sub") == 0o700
    assert mode(tmp_path / "sub" / "child.log") == 0o600


def test_a_deploy_from_a_users_shell_writes_a_private_version(
    tmp_path: Path, loose_umask: None
) -> None:
    # `docflow deploy` runs in the user's own process, with the user's umask.
    source = copy_checkout(tmp_path / "src")
    store = VersionStore(tmp_path / "state")
    store.publish(source, {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    store.pin("arn:aws:lambda:us-east-1:123456789012:function:docflow-orchestrator/x")
    loose = [
        f"{p.relative_to(tmp_path)} {mode(p):o}" for p in store.root.rglob("*") if mode(p) & 0o077
    ]
    assert loose == [] and mode(store.root) == 0o700
