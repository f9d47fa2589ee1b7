"""A live stack the tests start gets version 1 of this checkout copied from the process's one
publish of it (tests/support/live_stack.py), not published again per stack: the copy must be
what `docflow up`'s own first publish leaves, private as it leaves it."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from docflow.local.versions import store as versions_store
from docflow.local.versions.deploy import ensure_deployed
from docflow.local.versions.snapshot import checkout_root, digest
from docflow.local.versions.store import VersionStore
from tests.support.live_stack import with_published_checkout


def layout(state: Path) -> dict[str, int]:
    """Every path under the state's versions folder and its permission bits."""
    root = state / "versions"
    return {str(p.relative_to(root)): stat.S_IMODE(p.stat().st_mode) for p in root.rglob("*")}


def test_each_stack_folder_gets_version_one_published_once_per_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    published: list[Path] = []
    real = versions_store.VersionStore.publish

    def counted(self: VersionStore, source: Path, env: dict[str, str]) -> Any:
        published.append(source)
        return real(self, source, env)

    monkeypatch.setattr(versions_store.VersionStore, "publish", counted)
    ensure_deployed(tmp_path / "by-up", {})  # what `docflow up` publishes in a new folder
    assert len(published) == 1
    for name in ("a", "b"):
        (tmp_path / name).mkdir(mode=0o700)
        with_published_checkout(tmp_path / name)
        store = VersionStore(tmp_path / name)
        assert store.live() == 1 and [v.version for v in store.versions()] == [1]
        assert store.get(1).digest == digest(checkout_root())  # type: ignore[union-attr]
        assert digest(store.code_dir(1)) == digest(checkout_root())
        assert layout(tmp_path / name) == layout(tmp_path / "by-up")
        assert all(mode & 0o077 == 0 for mode in layout(tmp_path / name).values())
    # Published at most once more by this process, whatever number of stacks it starts.
    assert len(published) <= 2


def test_a_folder_that_holds_versions_keeps_them(tmp_path: Path) -> None:
    (tmp_path / "versions").mkdir()
    (tmp_path / "versions" / "kept").write_text("a stack ran here")
    with_published_checkout(tmp_path)
    assert [p.name for p in (tmp_path / "versions").iterdir()] == ["kept"]
