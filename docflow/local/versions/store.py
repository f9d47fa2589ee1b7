"""The local functions' versions and their `live` alias, kept under the stack's state folder.

    versions/<n>/code/      the version's packages (snapshot.py), never changed once renamed in
    versions/<n>/version.json   {"version", "source", "digest", "publishedAt"}
    versions/live.json      {"version": n}: the alias new executions start on
    versions/pins/<h>.json  {"arn", "version"}: an execution started with no version in its
                            qualifier (before versions existed), pinned at its first resume

A publish stages the copy in a temp folder, fsyncs it and renames it into place, then moves
`live` with a temp file renamed over the old one: a kill at any point leaves either the old
alias or the new one, never a half-written version behind it. One lock file serialises
publishers and pruners (two `docflow deploy` at once get two numbers, one after the other).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, TypedDict

from docflow.local.private import FILE_MODE, append_private, private_folder, tighten
from docflow.local.versions.snapshot import (
    VersionError,
    check_checkout,
    check_imports,
    copy_code,
    digest,
    fsync_dir,
)

LIVE = "live"


class VersionJson(TypedDict):
    version: int
    source: str | None  # the folder it was published from (None in AWS)
    digest: str | None  # sha256 of the code
    publishedAt: str | None


class VersionRow(VersionJson):
    """`docflow versions --json`'s item (cli/shapes.py VERSIONS_SHAPE)."""

    live: bool
    openExecutions: int | None  # None: the local stack is stopped, so nobody can say


class PruneRow(TypedDict):
    version: int
    removed: bool
    reason: str  # "", "live" or "held by N open execution(s)"


@dataclass(frozen=True)
class VersionInfo:
    version: int
    source: str
    digest: str
    published_at: str

    def to_json(self) -> VersionJson:
        return {
            "version": self.version,
            "source": self.source,
            "digest": self.digest,
            "publishedAt": self.published_at,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> VersionInfo:
        return cls(int(raw["version"]), str(raw["source"]), str(raw["digest"]), raw["publishedAt"])


def write_atomic(path: Path, data: bytes) -> None:
    """`path` holds `data` or what it held before, whatever kills this process when."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with _private(tmp) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def _private(path: Path, append: bool = False) -> BinaryIO:
    """`path` opened to write bytes (to append, with `append`), created 0600 (the state
    folder is its owner's alone: docflow/local/private.py)."""
    if append:
        return append_private(path)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE), "wb")


class VersionStore:
    def __init__(self, state: Path) -> None:
        self.root = Path(state) / "versions"

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        private_folder(self.root)  # `docflow deploy` writes here from the user's own shell
        with _private(self.root / ".lock", append=True) as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    # -- reading ---------------------------------------------------------------------------

    def versions(self) -> list[VersionInfo]:
        if not self.root.is_dir():
            return []
        found = []
        for entry in self.root.iterdir():
            if entry.name.isdigit() and (entry / "version.json").is_file():
                found.append(
                    VersionInfo.from_json(json.loads((entry / "version.json").read_text()))
                )
        return sorted(found, key=lambda v: v.version)

    def get(self, version: int) -> VersionInfo | None:
        meta = self.root / str(version) / "version.json"
        return VersionInfo.from_json(json.loads(meta.read_text())) if meta.is_file() else None

    def code_dir(self, version: int) -> Path:
        return self.root / str(version) / "code"

    def live(self) -> int | None:
        path = self.root / "live.json"
        if not path.is_file():
            return None
        return int(json.loads(path.read_text())["version"])

    # -- changing --------------------------------------------------------------------------

    def publish(self, source: Path, env: dict[str, str]) -> VersionInfo:
        """Publish `source`'s code as the next version and point `live` at it.

        Refused (VersionError, `live` unchanged) when `source` is not a docflow checkout or
        its code does not import."""
        root = check_checkout(source)
        with self._locked():
            self._clear_staging()
            stage = self.root / f".stage-{uuid.uuid4().hex}"
            try:
                copy_code(root, stage / "code")
                check_imports(stage / "code", env)
                number = max((v.version for v in self.versions()), default=0) + 1
                info = VersionInfo(
                    number,
                    str(root),
                    digest(stage / "code"),
                    datetime.now(UTC).isoformat(timespec="seconds"),
                )
                write_atomic(stage / "version.json", json.dumps(info.to_json()).encode())
                tighten(stage)  # the copied code as private as the rest of the state folder
                os.rename(stage, self.root / str(number))
                fsync_dir(self.root)
            finally:
                shutil.rmtree(stage, ignore_errors=True)
            self._set_live(number)
            return info

    def remove(self, version: int) -> None:
        """Delete a version (the caller checked that nothing holds it); never `live`."""
        with self._locked():
            if version == self.live():
                raise VersionError("live", f"version {version} is live: deploy another first")
            folder = self.root / str(version)
            if not folder.is_dir():
                raise VersionError("no-such-version", f"there is no version {version}")
            # Renamed away first: a kill mid-delete leaves no half version under its number.
            trash = self.root / f".trash-{uuid.uuid4().hex}"
            os.rename(folder, trash)
            fsync_dir(self.root)
            shutil.rmtree(trash, ignore_errors=True)

    def _set_live(self, version: int) -> None:
        write_atomic(self.root / "live.json", json.dumps({"version": version}).encode())

    def _clear_staging(self) -> None:
        for entry in self.root.iterdir():
            if entry.name.startswith((".stage-", ".trash-")):
                shutil.rmtree(entry, ignore_errors=True)

    # -- pins --------------------------------------------------------------------------------

    def pin(self, execution_arn: str) -> int | None:
        """The version an execution started without a version number runs on: `live` when
        first asked, the same for ever after (create-if-absent, so two racing first resumes
        agree)."""
        pins = self.root / "pins"
        path = pins / f"{hashlib.sha256(execution_arn.encode()).hexdigest()[:32]}.json"
        if not path.is_file():
            live = self.live()
            if live is None:
                return None
            private_folder(pins)
            tmp = pins / f".{uuid.uuid4().hex}.tmp"
            with _private(tmp) as f:
                f.write(json.dumps({"arn": execution_arn, "version": live}).encode())
                f.flush()
                os.fsync(f.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)  # fails when a racing resume pinned it first
            tmp.unlink()
            fsync_dir(pins)
        return int(json.loads(path.read_text())["version"])

    def pinned(self) -> dict[str, int]:
        """Every pin: execution ARN -> version."""
        pins = self.root / "pins"
        if not pins.is_dir():
            return {}
        out = {}
        for path in pins.glob("*.json"):
            raw = json.loads(path.read_text())
            out[str(raw["arn"])] = int(raw["version"])
        return out


__all__ = ["LIVE", "VersionError", "VersionInfo", "VersionStore", "write_atomic"]
