"""The durable runner's execution store: a journal of checkpoint records per execution.

The testing runner saves the whole execution at every checkpoint and loads it back at the
next: its sqlite store serializes every operation of the run each time, so a run's cost grows
with the square of its operations. This store keeps each unfinished execution in memory (a
snapshot, execution_delta.py) and appends to the execution's own file only what changed,
framed and checksummed as the moto journal is (journal.py), and fsynced before `save`
returns: a checkpoint the runner acknowledged survives a SIGKILL, and a power cut too. A
record cut short by a crash was never acknowledged, and is dropped on load.

A journal is compacted into one record holding the whole execution (written beside it,
fsynced, renamed over it) when the execution ends, when it passes COMPACT_PAST_RECORDS, and at
start, so a restart never replays more than one file's tail. An ended execution is not kept in
memory: loading it reads its one record, as the sqlite store read its row.

    executions/<sha256 of the ARN>.journal    one per execution, any number of records
    executions.sqlite                         the old store: imported once, then renamed
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from aws_durable_execution_sdk_python_testing.exceptions import ResourceNotFoundException
from aws_durable_execution_sdk_python_testing.execution import Execution
from aws_durable_execution_sdk_python_testing.stores.base import BaseExecutionStore

from docflow.local.durability import execution_delta
from docflow.local.durability.journal import frame, fsync_dir, read_records

COMPACT_PAST_RECORDS = 1000
LEGACY = "executions.sqlite"


@dataclass(frozen=True)
class _Meta:
    """What a query filters and sorts on, kept for every execution."""

    function_name: str
    execution_name: str | None
    status: str
    started: float | None


def _meta(execution: Execution) -> _Meta:
    started = execution.get_operation_execution_started().start_timestamp
    return _Meta(
        execution.start_input.function_name,
        execution.start_input.execution_name,
        execution.current_status().value,
        started.timestamp() if started else None,
    )


def _epoch(value: str) -> float:
    """A query's time bound: epoch seconds, or ISO 8601 as the sqlite store took it."""
    try:
        return float(value)
    except ValueError:
        return datetime.fromisoformat(value).timestamp()


def replay(path: Path) -> tuple[dict[str, Any] | None, int, bool]:
    """(the execution's to_json_dict form or None, whole records, whether a torn tail was
    dropped) from one journal file."""
    records, _, torn = read_records(path)
    data: dict[str, Any] | None = None
    for raw in records:
        record = json.loads(raw)
        if "full" in record:
            data = record["full"]
        elif data is not None:
            execution_delta.apply(data, record["delta"])
    return data, len(records), torn


def read_executions(folder: Path) -> list[dict[str, Any]]:
    """Every execution under `folder`, in to_json_dict form, read without changing a file:
    for those who judge a stack from outside while it runs (a record being written is a torn
    tail to them, and left out)."""
    found = []
    for path in sorted(folder.glob("*.journal")):
        with contextlib.suppress(OSError, ValueError):
            data, _, _ = replay(path)
            if data is not None:
                found.append(data)
    return found


def status_of(data: dict[str, Any]) -> str:
    """An execution's status from its to_json_dict form, as the runner reports it."""
    return str(data.get("CloseStatus") or "RUNNING") if data.get("IsComplete") else "RUNNING"


class JournalExecutionStore(BaseExecutionStore):
    def __init__(self, folder: Path, compact_past_records: int = COMPACT_PAST_RECORDS) -> None:
        self.folder = folder
        self.compact_past_records = compact_past_records
        self._lock = threading.Lock()  # guards the tables below, never held over a write
        self._arn_locks: dict[str, threading.Lock] = {}
        self._live: dict[str, Execution] = {}  # unfinished executions, as last saved
        self._meta: dict[str, _Meta] = {}
        self._records: dict[str, int] = {}  # records in each execution's file
        self._sizes: dict[str, int] = {}  # ... and its length in bytes
        self.appended = self.fsyncs = self.compactions = self.bytes_appended = 0
        self.recovered = {"executions": 0, "tornRecordsDropped": 0, "imported": 0}
        folder.mkdir(parents=True, exist_ok=True)
        self._import_legacy(folder.parent / LEGACY)
        self._open()

    # ---- files ---------------------------------------------------------------------------
    def _path(self, arn: str) -> Path:
        return self.folder / (hashlib.sha256(arn.encode()).hexdigest()[:40] + ".journal")

    def _append(self, arn: str, record: dict[str, Any]) -> None:
        """One framed record at the end of the execution's file, on disk before returning."""
        data = frame(json.dumps(record, separators=(",", ":")).encode())
        path, before = self._path(arn), self._sizes.get(arn, 0)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except BaseException:
            # Nothing after a half-written record could be read back: cut it off again.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, before)
            raise
        finally:
            os.close(fd)
        if before == 0:
            fsync_dir(self.folder)  # the new file's name survives a power cut too
        self._sizes[arn] = before + len(data)
        self._records[arn] = self._records.get(arn, 0) + 1
        self.appended += 1
        self.fsyncs += 1
        self.bytes_appended += len(data)

    def _write_whole(self, arn: str, data: dict[str, Any]) -> None:
        """The execution as one record, replacing its file in one rename."""
        path = self._path(arn)
        tmp = path.with_suffix(".tmp")
        framed = frame(json.dumps({"arn": arn, "full": data}, separators=(",", ":")).encode())
        with tmp.open("wb") as out:
            out.write(framed)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)  # a crash before this leaves the journal as it was, whole
        fsync_dir(self.folder)
        self._sizes[arn] = len(framed)
        self._records[arn] = 1
        self.compactions += 1

    def _open(self) -> None:
        for stale in self.folder.glob("*.tmp"):
            stale.unlink()
        for path in sorted(self.folder.glob("*.journal")):
            data, records, torn = replay(path)
            if data is None:  # only its first record, torn: the execution was never created
                path.unlink()
                continue
            execution = Execution.from_json_dict(data)
            arn = execution.durable_execution_arn
            self._records[arn], self._sizes[arn] = records, path.stat().st_size
            if records > 1 or torn:
                self._write_whole(arn, data)
            self._meta[arn] = _meta(execution)
            if not execution.is_complete:
                self._live[arn] = execution
            self.recovered["executions"] += 1
            self.recovered["tornRecordsDropped"] += int(torn)

    def _import_legacy(self, legacy: Path) -> None:
        """A state folder from before this store: every execution of the sqlite store, written
        whole; the sqlite file is renamed only once all of them are on disk."""
        if not legacy.exists():
            return
        from aws_durable_execution_sdk_python_testing.stores.sqlite import SQLiteExecutionStore

        for execution in SQLiteExecutionStore(legacy).list_all():
            self._write_whole(execution.durable_execution_arn, execution.to_json_dict())
            self.recovered["imported"] += 1
        os.replace(legacy, legacy.with_name(LEGACY + ".imported"))
        fsync_dir(legacy.parent)

    # ---- the store protocol ----------------------------------------------------------------
    def _lock_for(self, arn: str) -> threading.Lock:
        with self._lock:
            return self._arn_locks.setdefault(arn, threading.Lock())

    def save(self, execution: Execution) -> None:
        arn = execution.durable_execution_arn
        new = execution_delta.snapshot(execution)
        meta = _meta(new)
        # The runner saves one execution from one lane at a time; the lock keeps the file and
        # the snapshot it is compared with in step whoever else saves it.
        with self._lock_for(arn):
            with self._lock:
                old = self._live.get(arn)
            if new.is_complete or self._records.get(arn, 0) >= self.compact_past_records:
                self._write_whole(arn, new.to_json_dict())
            elif old is None or not execution_delta.covers(new):
                self._append(arn, {"arn": arn, "full": new.to_json_dict()})
            else:
                changes = execution_delta.delta(old, new)
                if changes:
                    self._append(arn, {"arn": arn, "delta": changes})
            with self._lock:
                self._meta[arn] = meta
                if new.is_complete:
                    self._live.pop(arn, None)
                else:
                    self._live[arn] = new

    def update(self, execution: Execution) -> None:
        self.save(execution)

    def load(self, execution_arn: str) -> Execution:
        with self._lock:
            live, known = self._live.get(execution_arn), execution_arn in self._meta
        if live is not None:
            return execution_delta.snapshot(live)  # the caller may change its copy freely
        if not known:
            raise ResourceNotFoundException("Durable Execution does not exist")
        with self._lock_for(execution_arn):
            data, _, _ = replay(self._path(execution_arn))
        if data is None:
            raise ResourceNotFoundException("Durable Execution does not exist")
        return Execution.from_json_dict(data)

    def query(
        self,
        function_name: str | None = None,
        execution_name: str | None = None,
        status_filter: str | None = None,
        started_after: str | None = None,
        started_before: str | None = None,
        limit: int | None = None,
        offset: int = 0,
        reverse_order: bool = False,
    ) -> tuple[list[Execution], str | None]:
        """As the sqlite store answers: filtered and sorted on what every execution's
        metadata holds, and only the asked page loaded."""
        after = _epoch(started_after) if started_after else None
        before = _epoch(started_before) if started_before else None
        with self._lock:
            metas = list(self._meta.items())
        chosen = []
        for arn, m in metas:
            if function_name and m.function_name != function_name:
                continue
            if execution_name and m.execution_name != execution_name:
                continue
            if status_filter and m.status != status_filter:
                continue
            started = m.started
            if after is not None or before is not None:
                if started is None:  # as in sqlite: a missing start matches no time bound
                    continue
                if (after is not None and started < after) or (
                    before is not None and started > before
                ):
                    continue
            chosen.append((started is not None, started or 0.0, arn))
        chosen.sort(reverse=reverse_order)
        end = offset + limit if limit is not None and limit > 0 else len(chosen)
        page = [self.load(arn) for _, _, arn in chosen[offset:end]]
        return page, (str(end) if end < len(chosen) else None)

    def list_all(self) -> list[Execution]:
        return self.query()[0]

    def stats(self) -> dict[str, int]:
        """What `docflow status --json` shows of the store."""
        with self._lock:
            live = len(self._live)
        return {
            "runnerRecords": self.appended,
            "runnerBytes": self.bytes_appended,
            "runnerFsyncs": self.fsyncs,
            "runnerCompactions": self.compactions,
            "runnerLiveExecutions": live,
        }


@contextlib.contextmanager
def serving(store: BaseExecutionStore) -> Iterator[None]:
    """The web runner builds its store inside start(), from a type in its config, and takes
    no store object: started inside this block with StoreType.MEMORY, it gets `store`."""
    from aws_durable_execution_sdk_python_testing import runner

    original = runner.InMemoryExecutionStore
    runner.InMemoryExecutionStore = lambda: store  # type: ignore[assignment,misc,return-value]  # the one store it builds
    try:
        yield
    finally:
        runner.InMemoryExecutionStore = original  # type: ignore[misc]  # restored
