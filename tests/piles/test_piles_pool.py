"""The pool's claims on moto: registration is idempotent, and batchers racing for the same
records never put one in two jobs."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter

import pytest

from docflow import aws
from docflow.ids import DocumentRef
from docflow.piles.batcher import claim_job
from docflow.piles.pool import CLAIMED, PENDING, Pool
from docflow.settings import load_settings
from docflow.storage import records_key
from tests.support.aws import Stack


def register_many(stack: Stack, n: int) -> list[DocumentRef]:
    bucket = load_settings().artifact_bucket
    docs = []
    for i in range(n):
        key = f"requests/{i}.json"
        aws.client("s3").put_object(
            Bucket=bucket, Key=key, Body=json.dumps({"messages": [{"role": "user"}]})
        )
        doc = DocumentRef(stack.bucket, f"backfill/doc-{i}.pdf", f"v{i}")
        Pool().register(doc, f"callback-{i}", key)
        docs.append(doc)
    return docs


def test_registering_twice_keeps_the_first_record(stack: Stack) -> None:
    doc = DocumentRef(stack.bucket, "backfill/a.pdf", "v1")
    first = Pool().register(doc, "callback-1", "requests/a.json")
    again = Pool().register(doc, "callback-1", "requests/a.json")

    assert first.new and not again.new and again.seq == first.seq == 1
    assert Pool().count(PENDING) == 1


def test_concurrent_batchers_never_claim_one_record_twice(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFLOW_PILE_MIN_RECORDS", "10")
    monkeypatch.setenv("DOCFLOW_PILE_MAX_RECORDS", "90")
    load_settings.cache_clear()
    register_many(stack, 300)
    jobs = [f"job-{i}" for i in range(5)]
    claimed: dict[str, dict] = {}
    start = threading.Barrier(len(jobs))

    def batcher(job: str) -> None:
        start.wait()
        claimed[job] = claim_job(job)(None)  # the step's body, as five batchers run it

    threads = [threading.Thread(target=batcher, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    bucket = load_settings().artifact_bucket
    owners: Counter[str] = Counter()
    for job in jobs:
        if claimed[job]["count"]:
            body = aws.client("s3").get_object(Bucket=bucket, Key=records_key(job))["Body"]
            owners.update(r["runId"] for r in json.loads(body.read()))
    assert owners and max(owners.values()) == 1  # no record in two jobs
    assert sum(c["count"] for c in claimed.values()) == sum(owners.values())
    # Every record is claimed by the job its item names, or still waits.
    pool = Pool()
    in_items = Counter(r["jobName"] for r in pool.listed(CLAIMED))
    assert in_items == Counter({j: c["count"] for j, c in claimed.items() if c["count"]})
    assert pool.count(PENDING) + sum(in_items.values()) == 300


def test_one_batcher_at_a_time_waits_for_a_small_pool(stack: Stack) -> None:
    now = int(time.time())
    pool = Pool()
    assert pool.take_wait("pile-at-1", now + 600)
    assert not pool.take_wait("pile-at-2", now + 600)  # the first still waits
    assert pool.take_wait("pile-at-1", now + 900)  # its own next round
    pool.take_wait("pile-at-1", now - 1)  # its wait is over
    assert pool.take_wait("pile-at-2", now + 600)


def test_the_schedule_starts_a_batcher_only_when_records_are_pending(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    from batcher import schedule

    started: list[str] = []  # a recording stand-in for the start call (the Lambda invoke)

    def start(name: str) -> str:
        started.append(name)
        return name

    monkeypatch.setattr(schedule, "start_batcher", start)

    assert schedule.handler({"everySeconds": 300}, None) == {"batcher": ""}
    assert started == []

    register_many(stack, 1)
    answer = schedule.handler({"everySeconds": 300}, None)
    assert started == [answer["batcher"]] and answer["batcher"].startswith("pile-at-")
