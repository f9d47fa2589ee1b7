"""The local versions store on its own: numbering, the live alias, refusals, isolation from
the checkout's own install, and pins that two racing resumes agree on."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from docflow.local.versions.snapshot import VersionError, checkout_root, digest
from docflow.local.versions.store import VersionStore
from tests.support.checkouts import copy_checkout

ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_checkout(tmp_path_factory.mktemp("checkout") / "src")


def test_each_publish_is_the_next_number_and_live_follows(tmp_path: Path, source: Path) -> None:
    store = VersionStore(tmp_path)
    first = store.publish(source, ENV)
    second = store.publish(source, ENV)
    assert (first.version, second.version, store.live()) == (1, 2, 2)
    assert first.digest == second.digest == digest(source) == digest(checkout_root())
    assert (store.code_dir(1) / "orchestrator" / "app.py").read_text() == (
        source / "orchestrator" / "app.py"
    ).read_text()
    assert not [p for p in store.root.iterdir() if p.name.startswith(".stage-")]
    # Kept across a restart: a new store object reads the same versions and alias.
    again = VersionStore(tmp_path)
    assert [v.version for v in again.versions()] == [1, 2] and again.live() == 2


def test_deploys_side_by_side_get_numbers_one_after_the_other(tmp_path: Path, source: Path) -> None:
    store = VersionStore(tmp_path)
    got: list[int] = []
    threads = [
        threading.Thread(target=lambda: got.append(store.publish(source, ENV).version))
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == [1, 2, 3] and store.live() == 3


def test_a_version_is_checked_with_its_own_code_alone(tmp_path: Path) -> None:
    """A module missing from the copy is not found in the checkout's editable install."""
    copy = copy_checkout(tmp_path / "partial")
    (copy / "docflow" / "pipeline" / "triage.py").unlink()
    store = VersionStore(tmp_path / "state")
    with pytest.raises(VersionError) as refused:
        store.publish(copy, ENV)
    assert refused.value.reason == "import-failed" and "triage" in str(refused.value)
    assert store.live() is None and store.versions() == []


def test_a_folder_that_is_not_a_checkout_is_refused(tmp_path: Path) -> None:
    (tmp_path / "docflow").mkdir()
    with pytest.raises(VersionError) as refused:
        VersionStore(tmp_path / "state").publish(tmp_path, ENV)
    assert refused.value.reason == "not-a-checkout" and "orchestrator/app.py" in str(refused.value)


def test_live_cannot_be_removed_and_a_removed_version_is_gone(tmp_path: Path, source: Path) -> None:
    store = VersionStore(tmp_path)
    store.publish(source, ENV)
    store.publish(source, ENV)
    with pytest.raises(VersionError):
        store.remove(2)
    store.remove(1)
    assert [v.version for v in store.versions()] == [2] and not store.code_dir(1).exists()


def test_racing_first_resumes_pin_an_old_execution_to_one_version(
    tmp_path: Path, source: Path
) -> None:
    store = VersionStore(tmp_path)
    store.publish(source, ENV)
    arn = "arn:aws:lambda:us-east-1:123456789012:function:docflow-orchestrator/durable/x"
    pins: list[int | None] = []
    barrier = threading.Barrier(8)

    def resume() -> None:
        barrier.wait()
        pins.append(store.pin(arn))

    threads = [threading.Thread(target=resume) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store.publish(source, ENV)  # live moves on; the pin does not
    assert set(pins) == {1} and store.pin(arn) == 1 and store.pinned() == {arn: 1}


def test_up_says_when_the_checkout_is_not_what_live_runs(tmp_path: Path, source: Path) -> None:
    from docflow.local.versions.deploy import checkout_note

    store = VersionStore(tmp_path)
    assert checkout_note(tmp_path) is None  # nothing deployed yet: the first up publishes
    store.publish(source, ENV)
    assert checkout_note(tmp_path) is None  # live is this checkout's code
    changed = copy_checkout(tmp_path / "changed", ('name="split"', 'name="split pages"'))
    store.publish(changed, ENV)
    note = checkout_note(tmp_path)
    assert note is not None and "version 2" in note and "docflow deploy" in note


def test_the_host_runs_a_version_in_its_own_worker_and_retires_it_once_pruned(
    tmp_path: Path, source: Path
) -> None:
    import urllib.request

    from docflow.local.versions.router import Router

    store = VersionStore(tmp_path)
    store.publish(source, ENV)
    store.publish(source, ENV)
    router = Router(tmp_path)
    try:
        worker = router.worker(1)
        url = f"http://127.0.0.1:{worker.port}/health"
        with urllib.request.urlopen(url, timeout=10) as answer:
            assert answer.status == 200
        assert router.worker(1) is worker  # one worker per version, reused
        assert router.retire_pruned() == []
        store.remove(1)
        assert router.retire_pruned() == [1]
        assert not worker.alive()
    finally:
        router.stop()


def test_a_worker_starts_for_a_state_folder_named_relative_to_the_working_directory(
    tmp_path: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make run` uses `.docflow`: the worker, which works in its version's code folder, once
    looked for its port file there and never started (every run stayed queued)."""
    from docflow.local.versions.router import Router

    VersionStore(tmp_path / "state").publish(source, ENV)
    monkeypatch.chdir(tmp_path)
    router = Router(Path("state"))
    try:
        assert router.worker(1).alive()
    finally:
        router.stop()


def test_the_functions_are_told_absolute_paths_in_the_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docflow.local.config import StackConfig

    monkeypatch.chdir(tmp_path)
    config = StackConfig(state=Path(".docflow"), port_base=15000)
    env = config.function_env()
    assert env["DOCFLOW_METRICS_FILE"] == str(tmp_path / ".docflow" / "metrics.jsonl")
    assert env["DOCFLOW_OTEL_DIR"] == str(tmp_path / ".docflow" / "otel")
    config.save()
    monkeypatch.chdir("/")  # another working directory reads the same folder
    assert StackConfig.load(tmp_path / ".docflow").state == tmp_path / ".docflow"


def test_a_deploy_of_the_code_live_runs_publishes_nothing_and_says_unchanged(
    tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44 item 11: each deploy of unchanged code published a new version with the same
    digest."""
    import json

    from docflow.cli import main

    state = tmp_path / "state"
    argv = ["--state", str(state), "deploy", "--source", str(source)]
    assert main(argv) == 0
    assert "published version 1" in capsys.readouterr().out
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert said.startswith("unchanged: live is version 1") and "nothing published" in said
    assert main([*argv, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["version"], answer["unchanged"], answer["digest"]) == (1, True, digest(source))
    assert [v.version for v in VersionStore(state).versions()] == [1]

    changed = copy_checkout(tmp_path / "changed", ('name="split"', 'name="split pages"'))
    assert main(["--state", str(state), "deploy", "--source", str(changed), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["version"], answer["unchanged"]) == (2, False)
    assert VersionStore(state).live() == 2
