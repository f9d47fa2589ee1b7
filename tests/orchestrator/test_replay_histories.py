"""Replay compatibility: every recorded history (an execution suspended at one kind of wait,
saved with the release it came from) resumes on the current orchestrator without a
non-deterministic operation, a new operation before the wait, or a checkpointed result it can
no longer read. A failure names the history and the operation; `make histories` records a new
set (docs/upgrading.md says when)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.aws import TEST_ENV
from tests.support.replay import HISTORIES, all_histories, replay

KINDS = {"review-stage", "quorum-reminder", "escalation", "triage", "pile-batch", "budget-wait"}
# Endpoints nobody listens on: a step the new code would run for real fails at once.
NOWHERE = {
    "AWS_ENDPOINT_URL": "http://127.0.0.1:9",
    "AWS_MAX_ATTEMPTS": "1",
    "AWS_ACCESS_KEY_ID": "replay",
    "AWS_SECRET_ACCESS_KEY": "replay",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@pytest.fixture(autouse=True)
def nowhere(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The function's configuration, as Lambda would give it, with AWS out of reach."""
    from docflow import aws
    from docflow.local.resources import LocalNames
    from docflow.runtime import use_runtime
    from docflow.settings import load_settings

    for key in [k for k in os.environ if k.startswith("AWS_ENDPOINT_URL")]:
        monkeypatch.delenv(key)
    for key, value in {**TEST_ENV, **LocalNames(prefix="replay").settings_env(), **NOWHERE}.items():
        monkeypatch.setenv(key, value)
    aws.reset_clients()
    load_settings.cache_clear()
    use_runtime(None)
    yield
    use_runtime(None)
    load_settings.cache_clear()
    aws.reset_clients()


def test_every_release_has_a_history_for_each_kind_of_wait() -> None:
    releases = sorted({p.parent.name for p in all_histories()})
    assert releases, f"no histories under {HISTORIES}"
    for release in releases:
        assert {p.stem for p in (HISTORIES / release).glob("*.json")} >= KINDS, release


@pytest.mark.parametrize("path", all_histories(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_current_orchestrator_resumes_the_recorded_execution(path: Path) -> None:
    from orchestrator.app import handler

    outcome = replay(path, handler)
    assert outcome.problem is None, outcome.problem


EDITS = {
    # a step renamed before the wait: the SDK's own check names both names
    "renamed": (
        'name="split"',
        'name="split pages"',
        "name checkpoint='split' current='split pages'",
    ),
    # a checkpointed result read in a shape it never had (the supersede step's typed record)
    "reshaped": (
        "older.latest",
        "older.newest",
        "'Superseding' object has no attribute 'newest'",
    ),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_incompatible_change_fails_the_replay_naming_it_and_the_history(
    tmp_path: Path, edit: str
) -> None:
    """The check itself: a copy of the orchestrator with `split` renamed, or its result read
    under a key it does not have, is refused with the history and the operation named."""
    before, after, named = EDITS[edit]
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "orchestrator", tmp_path / "orchestrator")
    app = tmp_path / "orchestrator" / "app.py"
    text = app.read_text()
    assert before in text
    app.write_text(text.replace(before, after, 1))
    history = next(p for p in all_histories() if p.stem == "review-stage")
    probe = (
        "import sys; from pathlib import Path; from tests.support.replay import replay; "
        "from orchestrator.app import handler; "
        "print(replay(Path(sys.argv[1]), handler).problem)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(history)],
        env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{root}"},
        cwd=tmp_path,  # the copy's `orchestrator` first, not the checkout's
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    problem = done.stdout.strip().splitlines()[-1]
    assert history.parent.name in problem and "review-stage.json" in problem
    assert named in problem
