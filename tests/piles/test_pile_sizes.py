"""A pile of known size: the manifest, the pool's expectation (idempotent under redelivery and
a manifest uploaded twice), records held until the pile is complete, and a pile below a job's
minimum going on-demand at once, with its reason. In one process: moto, the durable testing
runner for the orchestrator and the batcher, the batch emulator on loopback."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from batcher.app import handler as batcher
from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.emulators.bedrock_batch import WALK, BedrockBatchEmulator
from docflow.local.resources import LocalNames
from docflow.local.tools.pile_run import Pile, pile_env, pile_running
from docflow.piles import batcher as batcher_steps
from docflow.piles.batcher import look_at_pool
from docflow.piles.manifest import BadManifest, PileManifest, is_manifest, pile_of, read_manifest
from docflow.piles.pool import PENDING, Pool
from docflow.settings import load_settings
from docflow.storage import pile_manifest_key
from orchestrator.app import handler as orchestrator
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack

FAST = dict.fromkeys(WALK, 0.1)


@pytest.fixture
def sandbox(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> LocalNames:
    """The module's moto, empty, with the settings a pile runs under (the module's `stack`
    tests share that moto: a sandbox of its own here would nest inside it and see their data)."""
    env = pile_env(DOCFLOW_PILE_MIN_RECORDS="5", DOCFLOW_PILE_MAX_WAIT_SECONDS="600")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    load_settings.cache_clear()
    return stack.names


def put_manifest(bucket: str, pile: str, expected: int) -> None:
    key = pile_manifest_key(load_settings().pile_prefix, pile)
    aws.client("s3").put_object(Bucket=bucket, Key=key, Body=PileManifest(pile, expected).to_json())


def upload(pile: Pile, folder: str, n: int, first: int = 0) -> list[tuple[DocumentRef, str]]:
    bucket = pile.names("DocumentBucket")
    started = []
    for i in range(first, first + n):
        data = pdfs.text_pdf(f"QUARTERLY REPORT {i}\nSummary of the findings for the quarter.")
        key = f"backfill/{folder}/report-{i:04d}.pdf"
        put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=data)
        doc = DocumentRef(bucket, key, put["VersionId"], sequencer=f"{i + 1:08X}")
        started.append((doc, pile.documents.run_async(input=json.dumps(doc.to_event()))))
    return started


def settle(pile: Pile, started: list[tuple[DocumentRef, str]]) -> list[dict[str, Any]]:
    return [
        json.loads(pile.documents.wait_for_result(arn, timeout=300).result or "{}")
        for _doc, arn in started
    ]


def enrichment(result: dict[str, Any]) -> dict[str, Any]:
    return result.get("enrichment") or {}


def test_a_manifest_names_its_pile_and_its_size() -> None:
    assert pile_of("backfill/p1/a.pdf", "backfill/") == "p1"
    assert pile_of("backfill/a.pdf", "backfill/") is None  # directly under: size unknown
    assert pile_of("incoming/p1/a.pdf", "backfill/") is None
    assert is_manifest("backfill/p1/_manifest.json", "backfill/")
    assert not is_manifest("backfill/p1/a.pdf", "backfill/")
    assert PileManifest.parse("p1", b'{"expected": 120}') == PileManifest("p1", 120)
    for bad in (b"[]", b'{"expected": "120"}', b'{"expected": 0}', b'{"expected": true}', b"x"):
        with pytest.raises(BadManifest):
            PileManifest.parse("p1", bad)


def test_a_bad_or_missing_manifest_leaves_the_size_unknown(stack: Stack) -> None:
    settings = load_settings()
    assert read_manifest(stack.bucket, "backfill/p1/a.pdf", settings.pile_prefix) is None
    key = pile_manifest_key(settings.pile_prefix, "p1")
    aws.client("s3").put_object(Bucket=stack.bucket, Key=key, Body=b'{"expected": -1}')
    assert read_manifest(stack.bucket, "backfill/p1/a.pdf", settings.pile_prefix) is None
    put_manifest(stack.bucket, "p1", 7)
    found = read_manifest(stack.bucket, "backfill/p1/a.pdf", settings.pile_prefix)
    assert found == PileManifest("p1", 7)


def test_a_redelivered_document_and_a_manifest_read_twice_count_once(stack: Stack) -> None:
    pile = PileManifest("p1", 120)
    pool = Pool()
    a = DocumentRef(stack.bucket, "backfill/p1/a.pdf", "v1")
    b = DocumentRef(stack.bucket, "backfill/p1/b.pdf", "v1")
    assert pool.register(a, "callback-a", "requests/a.json", pile).new
    # The same run again (a redelivered event, a re-run submitter): not counted again.
    assert not pool.register(a, "callback-a", "requests/a.json", pile).new
    assert not pool.register(a, "callback-a2", "requests/a.json", pile).new
    # The manifest uploaded twice: each registration sets the expectation, never adds to it.
    assert pool.register(b, "callback-b", "requests/b.json", PileManifest("p1", 120)).new
    state = pool.pile("p1") or {}
    assert (state["expected"], state["registered"]) == (120, 2)
    assert pool.count(PENDING) == 2
    assert (pool.record(a.run_id) or {})["callbackId"] == "callback-a"


def test_a_document_that_never_registers_is_counted_once_as_withdrawn(stack: Stack) -> None:
    pile, pool = PileManifest("p1", 120), Pool()
    gone = DocumentRef(stack.bucket, "backfill/p1/broken.pdf", "v1")
    came = DocumentRef(stack.bucket, "backfill/p1/fine.pdf", "v1")
    assert pool.withdraw(gone, pile) and not pool.withdraw(gone, pile)  # a retried step
    assert pool.register(came, "callback", "requests/fine.json", pile).new
    assert not pool.withdraw(came, pile)  # a run that registered is in already
    state = pool.pile("p1") or {}
    assert (state["registered"], state["withdrawn"], state["expected"]) == (1, 1, 120)


def test_a_pile_goes_on_without_a_document_that_could_not_be_read(sandbox: LocalNames) -> None:
    bucket = sandbox("DocumentBucket")
    put_manifest(bucket, "broken", 6)
    emulator = BedrockBatchEmulator(delays=FAST, min_records=5)
    with pile_running(sandbox, orchestrator, batcher, emulator) as pile:
        started = upload(pile, "broken", 5)
        key = "backfill/broken/not-a-pdf.pdf"
        put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=b"plain text, no PDF")
        doc = DocumentRef(bucket, key, put["VersionId"], sequencer="0000FFFF")
        failed = pile.documents.run_async(input=json.dumps(doc.to_event()))
        ended = pile.documents.wait_for_result(failed, timeout=120)
        assert json.loads(ended.result or "{}")["status"] == "failed"
        pile.wait_registered(5)
        # Five in and one withdrawn: the pile of six is complete, nothing is held.
        looked = look_at_pool()(None)
        assert (looked["pending"], looked["held"]) == (5, 0)
        ran = pile.run_batcher("without-the-broken-one")
        results = settle(pile, started)

    (job,) = ran["result"]["jobs"]
    assert job["records"] == 5
    assert Counter(enrichment(r).get("mode") for r in results) == {"batch": 5}


def test_a_pile_is_held_until_complete_then_batched_whole(sandbox: LocalNames) -> None:
    bucket = sandbox("DocumentBucket")
    put_manifest(bucket, "whole", 7)
    emulator = BedrockBatchEmulator(delays=FAST, min_records=5)
    with pile_running(sandbox, orchestrator, batcher, emulator) as pile:
        started = upload(pile, "whole", 5)
        pile.wait_registered(5)
        # Five would make a job (the minimum), but the pile said seven: none is taken yet.
        looked = look_at_pool()(None)
        assert (looked["pending"], looked["held"]) == (0, 5)
        early = pile.run_batcher("early")
        assert early["result"]["jobs"] == [] and early["result"]["poolTimeouts"] == 0
        started += upload(pile, "whole", 2, first=5)
        pile.wait_registered(7)
        ran = pile.run_batcher("complete")
        results = settle(pile, started)

    (job,) = ran["result"]["jobs"]
    assert (job["records"], job["status"]) == (7, "Completed")
    assert Counter(enrichment(r).get("mode") for r in results) == {"batch": 7}
    assert {enrichment(r).get("jobId") for r in results} == {job["jobId"]}


class CompletedMidListing(Pool):
    """The pool, with one interleaving forced (a test hook, not a stand-in): the registration
    that completes the pile lands just after the first listing of pending records was read."""

    def __init__(self, last: tuple[DocumentRef, str, str, PileManifest]) -> None:
        super().__init__()
        self.last: tuple[DocumentRef, str, str, PileManifest] | None = last

    def listed(self, listing: str, limit: int | None = None) -> Iterator[dict[str, Any]]:
        page = list(super().listed(listing, limit))
        if listing == PENDING and self.last is not None:
            last, self.last = self.last, None
            super().register(*last)
        yield from page


def test_the_registration_that_completes_a_pile_during_a_claim_is_in_its_job(
    sandbox: LocalNames, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, pile = load_settings(), PileManifest("raced", 6)
    docs = [
        DocumentRef(sandbox("DocumentBucket"), f"backfill/raced/{i}.pdf", "v1") for i in range(6)
    ]
    for i in range(6):
        aws.client("s3").put_object(
            Bucket=settings.artifact_bucket, Key=f"requests/{i}.json", Body=b"{}"
        )
    pool = Pool()
    for i, doc in enumerate(docs[:5]):
        assert pool.register(doc, f"callback-{i}", f"requests/{i}.json", pile).new
    last = (docs[5], "callback-5", "requests/5.json", pile)
    monkeypatch.setattr(batcher_steps, "Pool", lambda: CompletedMidListing(last))

    claimed = batcher_steps.claim_job("job-raced")(None)

    # All six in the job: read the other way round (listing, then the pile's counts), the pile
    # looked complete and the sixth, missing from the listing, waited the maximum alone.
    assert claimed["count"] == 6
    assert Pool().count(PENDING) == 0


def test_a_pile_below_the_minimum_goes_on_demand_at_once_with_its_reason(
    sandbox: LocalNames,
) -> None:
    bucket = sandbox("DocumentBucket")
    put_manifest(bucket, "small", 3)
    emulator = BedrockBatchEmulator(delays=FAST, min_records=5)
    with pile_running(sandbox, orchestrator, batcher, emulator) as pile:
        # No batcher runs: were the documents waiting in the pool, they would never settle.
        results = settle(pile, upload(pile, "small", 3))
        assert Pool().count(PENDING) == 0 and Pool().pile("small") is None

    assert {r["status"] for r in results} == {"finalized"}
    assert [enrichment(r).get("mode") for r in results] == ["on-demand"] * 3
    assert {enrichment(r).get("onDemandReason") for r in results} == {"below-batch-minimum"}
    assert emulator.stats.jobs == 0


class RecordingStarter:
    """Stands in for the durable runner (named as such): records the keys it is asked to start."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def start(self, doc: DocumentRef) -> bool:
        self.keys.append(doc.key)
        return True


def test_a_manifest_starts_no_document() -> None:
    from docflow.local.tools.uploads import object_created_event
    from starter import app

    recording = RecordingStarter()
    keys = ["backfill/p1/_manifest.json", "backfill/p1/a.pdf", "backfill/_manifest.json"]
    records = [
        {
            "messageId": str(i),
            "receiptHandle": f"r{i}",
            "body": json.dumps(object_created_event(DocumentRef("bucket", key, "v1"))),
            "attributes": {},
            "messageAttributes": {},
            "md5OfBody": "",
            "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:docflow-intake",
            "awsRegion": "us-east-1",
        }
        for i, key in enumerate(keys)
    ]
    app.use_starter(recording)
    try:
        answer = app.handler({"Records": records}, None)
    finally:
        app.use_starter(None)
    assert answer == {"batchItemFailures": []}
    # Only a manifest in a pile's folder is one; directly under the prefix it is a document.
    assert recording.keys == ["backfill/p1/a.pdf", "backfill/_manifest.json"]
