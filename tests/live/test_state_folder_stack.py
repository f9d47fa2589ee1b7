"""The state folder of a running stack is its owner's alone (issue 56, item 7): after `docflow
up` on a folder left world-readable, and a document run through the stack, every folder in it
is 0700 and every file (moto's journal and snapshot, the durable runner's checkpoint journals,
the versions, the logs, spans and metrics) readable by its owner only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from docflow.local.config import StackConfig
from tests.kit.pdfgen import fresh_invoice, make_pdf
from tests.support.live_stack import fast_config, free_base, running_stack, upload, wait_for

pytestmark = [pytest.mark.slow]


def readable_by_others(state: Path) -> list[str]:
    """Each path under `state` that a group or another user has any permission on."""
    found = []
    for path in [state, *state.rglob("*")]:
        try:
            mode = path.lstat().st_mode
        except FileNotFoundError:  # a temporary file the stack renamed while this looked
            continue
        if not stat.S_ISLNK(mode) and mode & 0o077:
            found.append(f"{path.relative_to(state)} {stat.S_IMODE(mode):o}")
    return found


def test_a_running_stacks_folder_and_every_file_in_it_are_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o755)
    os.chmod(state, 0o755)
    (state / "stackd.log").write_text("an earlier start's log\n")
    os.chmod(state / "stackd.log", 0o644)
    config: StackConfig = fast_config(state, free_base())
    previous = os.umask(0o022)  # a user whose files everyone may read by default
    try:
        with running_stack(config):
            doc_id, run_id = upload(config, "in/invoice.pdf", make_pdf([fresh_invoice()]))
            wait_for(doc_id, {"finalized"}, run_id)
            loose = readable_by_others(state)
            journals = list((state / "executions").rglob("*"))
    finally:
        os.umask(previous)
    assert journals, "the runner kept no checkpoint journal"
    assert loose == []
