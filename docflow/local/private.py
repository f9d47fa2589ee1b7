"""The state folder is its owner's alone (issue 56, item 7): it holds what the stack keeps of
every document and review (moto's journals and snapshots: the signing key ring, review links
and tokens' hashes, the read model; the durable runner's checkpoint journals, which carry step
results; the functions' logs, spans and metrics), so another account on the machine may read
none of it.

The folder is created 0700 and every file in it 0600: the stack's processes run with the umask
077 (`private_process`, set first thing by `stackd` and inherited by every process it starts),
the few files `docflow up` writes itself are opened private, and a folder made before this (or
loosened since) is tightened on `up`: every folder under it to 0700, every file to its owner's
bits only (0600, or 0700 for one its owner may run).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

FOLDER_MODE = 0o700
FILE_MODE = 0o600
UMASK = 0o077  # what the stack's processes create: folders 0700, files 0600


def private_process() -> None:
    """From now on this process, and every process it starts, creates private files."""
    os.umask(UMASK)


def private_folder(path: Path) -> Path:
    """`path` as a folder only its owner may enter: created 0700, or made 0700 if it was not.
    Folders above it are the user's and left as they are."""
    path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o777 != FOLDER_MODE:
        path.chmod(FOLDER_MODE)
    return path


def tighten(path: Path) -> int:
    """Every folder under `path` (itself included) 0700 and every file its owner's bits only;
    symbolic links are not followed (one that points out of the folder names another's file).
    Top down, so a folder is opened to its owner before it is walked. How many it changed."""
    changed = _tightened(str(path), FOLDER_MODE)
    for folder, folders, files in os.walk(path):
        for name in folders:
            changed += _tightened(os.path.join(folder, name), FOLDER_MODE)
        for name in files:
            changed += _tightened(os.path.join(folder, name), None)
    return changed


def _tightened(target: str, wanted: int | None) -> int:
    """1 if `target`'s mode had to change to `wanted` (None: its owner's bits only)."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:  # a stack's temporary file, gone since it was listed
        return 0
    if stat.S_ISLNK(mode):
        return 0
    wanted = mode & 0o700 if wanted is None else wanted
    if mode & 0o777 == wanted:
        return 0
    os.chmod(target, wanted)
    return 1


def write_private(path: Path, text: str) -> None:
    """`text` into `path`, a file only its owner may read (made so if it was not)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "w") as out:
        os.fchmod(fd, FILE_MODE)
        out.write(text)


def append_private(path: Path) -> BinaryIO:
    """`path` opened to append bytes (a log), a file only its owner may read."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return os.fdopen(fd, "ab")
