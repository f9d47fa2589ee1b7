"""The intake poller long-polls: an empty receive waits for the next message to arrive in
moto's SQS, not for a fixed pause, so an upload is taken in as soon as it is queued."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from docflow import aws
from docflow.local.config import StackConfig
from docflow.local.fidelity.sqs_long_poll import arrivals, watch_sqs_arrivals
from docflow.local.resources import LocalNames
from docflow.local.services.intake_poller import IntakePoller
from tests.kit.sandbox import moto_sandbox
from tests.support.waiting import wait_until

AN_HOUR = 3600.0


@pytest.fixture
def intake(tmp_path: Path) -> Iterator[tuple[StackConfig, str]]:
    watch_sqs_arrivals()
    config = StackConfig(state=tmp_path, intake_max_concurrency=2)
    with moto_sandbox(LocalNames(prefix="longpoll")):
        url = aws.client("sqs").create_queue(QueueName=config.names("IntakeQueue"))["QueueUrl"]
        yield config, url


def test_a_waiter_wakes_when_a_message_is_accepted_for_its_queue(
    intake: tuple[StackConfig, str],
) -> None:
    config, url = intake
    queue = arrivals(config.names("IntakeQueue"))
    seen = queue.seen()
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(queue.wait_after(seen, AN_HOUR)))
    waiter.start()
    aws.client("sqs").send_message(QueueUrl=url, MessageBody="one")
    waiter.join(timeout=60)
    assert woke == [True]
    entries = [{"Id": str(n), "MessageBody": f"batch {n}"} for n in range(3)]
    aws.client("sqs").send_message_batch(QueueUrl=url, Entries=entries)
    assert queue.seen() == seen + 4  # every entry of a batch counts


def test_a_message_sent_before_the_wait_is_not_missed(intake: tuple[StackConfig, str]) -> None:
    config, url = intake
    queue = arrivals(config.names("IntakeQueue"))
    seen = queue.seen()  # read before the (empty) receive, as the poller does
    aws.client("sqs").send_message(QueueUrl=url, MessageBody="raced")
    assert queue.wait_after(seen, AN_HOUR)  # returns at once: an hour would fail the run


def test_the_poller_takes_a_message_in_although_its_idle_wait_is_an_hour(
    intake: tuple[StackConfig, str],
) -> None:
    config, url = intake
    poller = IntakePoller(config, long_poll=True, idle_wait_s=AN_HOUR)
    poller.start()
    try:
        # One worker has found the queue empty and waits on arrivals; the others queue
        # behind it, so an idle poller sends one receive per wait, not one per worker.
        wait_until(lambda: poller.empty_receives >= 1, 60)
        before = poller.empty_receives
        aws.client("sqs").send_message(QueueUrl=url, MessageBody='{"not": "an s3 event"}')
        # With a fixed pause this would take an hour; the arrival wakes a worker instead.
        wait_until(lambda: poller.batches == 1, 60, what="the poller to receive the message")
        # ... one worker: the next takes its turn, finds the queue empty and waits an hour.
        wait_until(lambda: poller.empty_receives > before, 60)
        assert poller.empty_receives == before + 1
    finally:
        poller.stop()
    assert all(not thread.is_alive() for thread in poller.threads)  # stop woke the waiters
