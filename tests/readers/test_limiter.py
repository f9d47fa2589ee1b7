"""The cross-execution cap on a rate-limited reader, on moto's DynamoDB."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from docflow import aws
from docflow.readers.base import PageText
from docflow.readers.limiter import CappedReader, LeaseSemaphore, SlotTimeout
from docflow.readmodel.table import to_ddb
from docflow.settings import load_settings
from tests.support.aws import Stack


class SlowService:
    """Stands in for the rate-limited service, without OCR, so the cap's bookkeeping is tested
    fast; tests/readers/test_textract_local.py runs the real reader against the Textract
    emulator."""

    name = "fake-slow-service"

    def __init__(self) -> None:
        self.active = 0
        self.peak = 0
        self.lock = threading.Lock()

    def read(self, pdf: object, page: int) -> PageText:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(0.03)
        with self.lock:
            self.active -= 1
        return PageText(page, "text", self.name, 90.0)


def semaphore(slots: int, **kw: float) -> LeaseSemaphore:
    return LeaseSemaphore(load_settings().reader_lease_table, "svc", slots, **kw)


def test_peak_concurrency_never_passes_the_cap_across_instances(stack: Stack) -> None:
    service = SlowService()
    # Two "Lambda instances", each with its own reader, sharing only the lease table.
    instances = [CappedReader(service, semaphore(3)), CappedReader(service, semaphore(3))]
    with ThreadPoolExecutor(max_workers=12) as pool:
        pages = list(pool.map(lambda n: instances[n % 2].read(None, n), range(48)))
    assert len(pages) == 48
    assert service.peak <= 3
    assert service.peak >= 2  # the cap was actually exercised, not a serial run


def test_a_crashed_holders_slot_is_freed_by_its_lease(stack: Stack) -> None:
    table = load_settings().reader_lease_table
    aws.client("dynamodb").put_item(
        TableName=table,
        Item=to_ddb({"pk": "svc#0", "holder": "dead", "expiresAt": int(time.time()) - 1}),
    )
    with semaphore(1, wait_s=2).slot() as index:
        assert index == 0


def test_no_free_slot_times_out_for_the_step_to_retry(stack: Stack) -> None:
    table = load_settings().reader_lease_table
    aws.client("dynamodb").put_item(
        TableName=table,
        Item=to_ddb({"pk": "svc#0", "holder": "busy", "expiresAt": int(time.time()) + 600}),
    )
    try:
        with semaphore(1, wait_s=0.3).slot():
            raise AssertionError("took a slot that was held")
    except SlotTimeout:
        pass


def test_throttles_and_cap_waits_are_counted_for_the_dashboard(
    stack: Stack, tmp_path, monkeypatch
) -> None:
    import json

    from botocore.exceptions import ClientError

    from docflow.readers.throttling import ThrottlePolicy, ThrottleRetryingReader

    metrics = tmp_path / "metrics.jsonl"
    monkeypatch.setenv("DOCFLOW_METRICS_FILE", str(metrics))

    class Throttled:
        name = "textract"
        calls = 0

        def read(self, pdf: object, page: int) -> PageText:
            self.calls += 1
            if self.calls <= 2:
                raise ClientError({"Error": {"Code": "ThrottlingException"}}, "DetectDocumentText")
            return PageText(page, "text", self.name, 90.0)

    reader = ThrottleRetryingReader(Throttled(), ThrottlePolicy(4, 0.0, 0.0))
    assert reader.read(None, 1).text == "text"
    table = load_settings().reader_lease_table
    aws.client("dynamodb").put_item(
        TableName=table,
        Item=to_ddb({"pk": "svc#0", "holder": "busy", "expiresAt": int(time.time()) + 600}),
    )
    try:
        with semaphore(1, wait_s=0.2).slot():
            raise AssertionError("took a slot that was held")
    except SlotTimeout:
        pass
    points = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert [(p["name"], p["dims"]) for p in points] == [
        ("ReaderThrottles", {"engine": "textract"}),
        ("ReaderThrottles", {"engine": "textract"}),
        ("ReaderCapWaits", {"engine": "svc"}),  # once per wait, not per try
    ]
