"""A cap on concurrent calls to a rate-limited service, across every execution and instance.

A per-document map cap bounds one execution; Textract's limit is per account. The cap is a
counting semaphore of N lease items in DynamoDB: taking a slot is a conditional write that
succeeds only if the slot is free or its lease ran out (a crashed holder frees it by expiry),
and giving it back is a delete conditioned on still holding it. Works the same across Lambda
instances in AWS as across threads here, because DynamoDB's conditional writes are atomic.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from docflow import observability
from docflow.dynamo import ConditionFailed, Table
from docflow.pdf import OpenPdf
from docflow.readers.base import PageReader, PageText


class SlotTimeout(RuntimeError):
    """No slot came free in time; the batch step's retry takes it from there."""


class LeaseSemaphore:
    def __init__(
        self, table: str, name: str, slots: int, lease_s: int = 120, wait_s: float = 300.0
    ) -> None:
        self.table, self.name, self.slots = table, name, slots
        self.lease_s, self.wait_s = lease_s, wait_s

    @contextmanager
    def slot(self) -> Iterator[int]:
        holder = uuid.uuid4().hex
        taken = self._acquire(holder)
        try:
            yield taken
        finally:
            self._release(taken, holder)

    def _acquire(self, holder: str) -> int:
        deadline = time.monotonic() + self.wait_s
        pause = 0.02
        waited = False
        while True:
            for index in random.sample(range(self.slots), self.slots):
                if self._try(index, holder):
                    return index
            if not waited:
                waited = True
                observability.count("ReaderCapWaits", engine=self.name)
            if time.monotonic() > deadline:
                raise SlotTimeout(f"no {self.name} slot free within {self.wait_s:.0f} s")
            time.sleep(pause * random.uniform(0.5, 1.5))  # noqa: S311 - jitter, not crypto
            pause = min(pause * 2, 1.0)

    def _try(self, index: int, holder: str) -> bool:
        now = int(time.time())
        try:
            Table(self.table).put(
                {"pk": f"{self.name}#{index}", "holder": holder, "expiresAt": now + self.lease_s},
                condition="attribute_not_exists(pk) OR expiresAt < :now",
                values={":now": now},
            )
        except ConditionFailed:
            return False
        return True

    def _release(self, index: int, holder: str) -> None:
        with contextlib.suppress(ConditionFailed):  # a lapsed lease another holder took
            Table(self.table).delete(
                {"pk": f"{self.name}#{index}"},
                condition="holder = :me",
                values={":me": holder},
            )


class CappedReader:
    """Runs the inner reader's calls inside a semaphore slot; records the peak it saw."""

    def __init__(self, inner: PageReader, semaphore: Any) -> None:
        self.inner, self.semaphore, self.name = inner, semaphore, inner.name
        self.active = 0
        self.peak = 0
        self._lock = threading.Lock()

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        with self.semaphore.slot():
            with self._lock:
                self.active += 1
                self.peak = max(self.peak, self.active)
            try:
                return self.inner.read(pdf, page)
            finally:
                with self._lock:
                    self.active -= 1
