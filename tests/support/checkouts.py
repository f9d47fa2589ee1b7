"""Copies of this checkout's packages, as a colleague's checkout of another revision would be."""

from __future__ import annotations

import shutil
from pathlib import Path

from docflow.local.versions.snapshot import checkout_root, packages_in


def copy_checkout(target: Path, replace: tuple[str, str] | None = None) -> Path:
    """A copy of this checkout's packages, with one text edit in orchestrator/app.py."""
    root = checkout_root()
    for package in packages_in(root):
        shutil.copytree(root / package, target / package, ignore=shutil.ignore_patterns("__py*"))
    if replace:
        app = target / "orchestrator" / "app.py"
        text = app.read_text()
        assert replace[0] in text
        app.write_text(text.replace(replace[0], replace[1]))
    return target
