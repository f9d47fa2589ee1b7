"""Test doubles, used only where no local implementation of the behaviour exists.

There is no local service that throttles or breaks on purpose, so these wrap the real readers
and inject those failures. Everything else in the tests is the real thing.
"""

from __future__ import annotations

import threading
from collections import Counter

from botocore.exceptions import ClientError

from docflow.pdf import OpenPdf
from docflow.readers.base import PageReader, PageText


def throttle_error() -> ClientError:
    return ClientError(
        {
            "Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"},
            "ResponseMetadata": {"HTTPStatusCode": 400},
        },
        "DetectDocumentText",
    )


class FakeThrottlingReader:
    """Throttles every `every`-th call, otherwise reads with the real reader."""

    def __init__(self, inner: PageReader, every: int = 3) -> None:
        self.inner, self.every, self.name = inner, every, inner.name
        self.calls = 0
        self.throttled = 0
        self._lock = threading.Lock()

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        with self._lock:
            self.calls += 1
            throttle = self.calls % self.every == 0
            self.throttled += throttle
        if throttle:
            raise throttle_error()
        return self.inner.read(pdf, page)


class FakeBrokenPageReader:
    """Fails one page every time, the way a corrupt image or a dead OCR engine would."""

    def __init__(self, inner: PageReader, broken_page: int) -> None:
        self.inner, self.broken, self.name = inner, broken_page, inner.name
        self.attempts: Counter[int] = Counter()

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        self.attempts[page] += 1
        if page == self.broken:
            raise RuntimeError(f"engine crashed on page {page}")
        return self.inner.read(pdf, page)


class CountingReader:
    """The real reader, counting how often each page is read (for replay tests)."""

    def __init__(self, inner: PageReader) -> None:
        self.inner, self.name = inner, inner.name
        self.reads: Counter[int] = Counter()
        self._lock = threading.Lock()

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        with self._lock:
            self.reads[page] += 1
        return self.inner.read(pdf, page)


class CountingReporter:
    """The real reporter, counting how often each report (by event id) is sent."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.sent: Counter[str] = Counter()
        self._lock = threading.Lock()

    def report(self, report):
        with self._lock:
            self.sent[f"{report.status}:{report.seq}"] += 1
        return self.inner.report(report)


class FakeBrokenFieldEngine:
    """A field engine whose service is down: every call raises, as an outage would."""

    name = "broken"

    def __init__(self) -> None:
        self.calls = 0

    def extract(self, pages: object, names: object) -> object:
        self.calls += 1
        raise ConnectionError("engine endpoint unreachable")
