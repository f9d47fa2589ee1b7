"""An append-only journal file with group commit: records are durable before anyone is told so.

Each record is framed as [length:4][crc32:4][payload], so a record cut short by a crash (a torn
tail) is recognised on reading and dropped with everything after it: it was never fsynced, so
nobody was told it was kept.

Writers append under their own lock (the caller's order is the journal's order) and then wait
for durability. The first waiter that finds no flush under way becomes the leader: it writes
and fsyncs everything appended so far, outside the append lock, while later requests keep
appending; they are carried by the next flush. One fsync thus covers every request that
arrived while the previous one ran (group commit), and a lone request pays exactly one.
"""

from __future__ import annotations

import os
import struct
import threading
import zlib
from pathlib import Path

_HEADER = struct.Struct(">II")


def frame(payload: bytes) -> bytes:
    return _HEADER.pack(len(payload), zlib.crc32(payload)) + payload


def read_records(path: Path) -> tuple[list[bytes], int, bool]:
    """(every whole record, the byte length they span, whether a torn tail followed them)."""
    if not path.exists():
        return [], 0, False
    data = path.read_bytes()
    records, offset = [], 0
    while offset + _HEADER.size <= len(data):
        length, crc = _HEADER.unpack_from(data, offset)
        start, end = offset + _HEADER.size, offset + _HEADER.size + length
        if end > len(data) or zlib.crc32(data[start:end]) != crc:
            break
        records.append(data[start:end])
        offset = end
    return records, offset, offset != len(data)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Journal:
    """One journal file, opened for appending after its whole records (a torn tail is cut)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        _, whole, torn = read_records(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        if torn:
            os.ftruncate(self._fd, whole)
        os.lseek(self._fd, whole, os.SEEK_SET)
        if torn or whole == 0:
            os.fsync(self._fd)
            fsync_dir(path.parent)
        self.size = whole
        self._pending: list[bytes] = []
        self._appended = 0  # sequence number of the last appended record
        self._durable = 0  # ... and of the last one known to be on disk
        self._flushing = False
        self._lock = threading.Lock()
        self._flushed = threading.Condition(self._lock)
        self.fsyncs = 0
        self.records = 0

    def append(self, payload: bytes) -> int:
        """Queue one record; returns the sequence number to pass to wait_durable."""
        record = frame(payload)
        with self._lock:
            self._pending.append(record)
            self._appended += 1
            self.size += len(record)
            self.records += 1
            return self._appended

    @property
    def last(self) -> int:
        with self._lock:
            return self._appended

    def wait_durable(self, seq: int) -> None:
        """Return once record `seq` (and every one before it) is on disk."""
        with self._lock:
            while self._durable < seq:
                if self._flushing:
                    self._flushed.wait()
                    continue
                self._flushing = True
                batch, upto = self._pending, self._appended
                self._pending = []
                self._lock.release()
                try:
                    self._write(b"".join(batch))
                except BaseException:
                    self._lock.acquire()
                    self._pending = batch + self._pending  # not on disk: the next flush retries
                    self._flushing = False
                    self._flushed.notify_all()
                    raise
                self._lock.acquire()
                self._flushing = False
                self._durable = upto
                self.fsyncs += 1
                self._flushed.notify_all()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        os.fsync(self._fd)

    def sync(self) -> None:
        self.wait_durable(self.last)

    def close(self) -> None:
        self.sync()
        os.close(self._fd)
