"""A version's code: the product packages of a checkout, copied, hashed and import-checked.

A Lambda version is an immutable copy of the function's package; here it is a copy of the
packages `sam build` puts into each function (the shared library and every handler package),
taken from a checkout. The import check runs in a subprocess with only the copy on sys.path, so
a version that cannot load is refused before `live` could point at it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

# The packages a version carries (`conformance` only where the checkout has it: the
# conformance benchmark's handlers run on the stack's host too; `einvoice_rules` only from
# the release that added it).
PACKAGES = ("docflow", "orchestrator", "starter", "status_recorder", "callback_api", "batcher")
OPTIONAL_PACKAGES = ("conformance", "einvoice_rules")
# What makes a folder a docflow checkout: the handler modules the host serves.
REQUIRED_FILES = (
    "docflow/__init__.py",
    "docflow/local/services/host.py",
    "orchestrator/app.py",
    "starter/app.py",
    "status_recorder/app.py",
    "callback_api/app.py",
    "batcher/app.py",
)
_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache"}
_SKIP_SUFFIXES = (".pyc", ".pyo")
WORKER_MAIN = Path(__file__).with_name("worker_main.py")
CHECK_TIMEOUT_S = 120


class VersionError(ValueError):
    """A deploy refused: `reason` is a short code, the message says what to fix."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def checkout_root() -> Path:
    """The checkout this process runs from (its `docflow` package's parent)."""
    import docflow

    return Path(docflow.__file__).resolve().parent.parent


def check_checkout(source: Path) -> Path:
    """The resolved source folder, or VersionError when it is not a docflow checkout."""
    root = source.expanduser().resolve()
    if not root.is_dir():
        raise VersionError("not-a-folder", f"{source} is not a folder")
    missing = [f for f in REQUIRED_FILES if not (root / f).is_file()]
    if missing:
        raise VersionError(
            "not-a-checkout",
            f"{source} is not a docflow checkout: it has no {', '.join(missing)}",
        )
    return root


def packages_in(root: Path) -> list[str]:
    return [*PACKAGES, *(p for p in OPTIONAL_PACKAGES if (root / p / "__init__.py").is_file())]


def files_of(root: Path) -> Iterator[Path]:
    """The files a version takes from `root`, relative to it, in a stable order."""
    for package in packages_in(root):
        for folder, dirs, names in os.walk(root / package):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
            for name in sorted(names):
                if not name.endswith(_SKIP_SUFFIXES):
                    yield (Path(folder) / name).relative_to(root)


def digest(root: Path) -> str:
    """sha256 over the version's files (paths and contents): equal digests, equal code."""
    h = hashlib.sha256()
    for rel in files_of(root):
        h.update(str(rel).encode() + b"\0")
        h.update((root / rel).read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def copy_code(root: Path, target: Path) -> None:
    """Copy the version's files from `root` into `target` and fsync each (a kill after the
    rename that publishes the version must not leave a torn file in it)."""
    for rel in files_of(root):
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, dest)
        with dest.open("rb") as f:
            os.fsync(f.fileno())
    for folder, _dirs, _names in os.walk(target):
        fsync_dir(Path(folder))


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_imports(code: Path, env: dict[str, str]) -> None:
    """Import every function's handler from `code` alone, in a subprocess; VersionError with
    the failing import's last lines when it does not load."""
    command = [sys.executable, str(WORKER_MAIN), "--code", str(code), "--check"]
    try:
        done = subprocess.run(
            command,
            env={**env, "PYTHONPATH": "", "PYTHONDONTWRITEBYTECODE": "1"},
            capture_output=True,
            text=True,
            timeout=CHECK_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise VersionError(
            "import-failed", f"importing the code took over {CHECK_TIMEOUT_S} s"
        ) from None
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise VersionError("import-failed", f"the code does not import:\n{tail}")
