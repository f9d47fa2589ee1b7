"""The path for piles end to end in one process: documents under the pile prefix run the real
orchestrator on the durable testing runner and wait in the pool; the real batcher, on a second
runner, puts them in Bedrock batch jobs (the local emulator, over HTTP) and answers each one.
Whatever a job did not answer goes on-demand; nothing is answered twice."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from batcher.app import handler as batcher
from docflow.ids import DocumentRef
from docflow.local.emulators.bedrock_batch import WALK, BedrockBatchEmulator
from docflow.local.resources import LocalNames
from docflow.local.tools.pile_run import Pile, pile_env, pile_running
from docflow.piles.jobwait import JobStateChange, on_state_change
from docflow.piles.pool import CLAIMED, PENDING, SENT, Pool
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from orchestrator.app import handler as orchestrator
from tests.kit import pdfgen as pdfs
from tests.kit.sandbox import moto_sandbox
from tests.support.aws import TEST_ENV

# A report: its type has no review stage, so each run ends without a person (a contract's
# would wait for legal); the enrichment is the same either way.
REPORT = (
    "QUARTERLY REPORT {n}",
    "Summary of the findings and analysis for the quarter, prepared for Acme Corp on 2026-01-15.\n"
    "Revenue grew in the north region; the appendix lists the figures.",
)
FAST = dict.fromkeys(WALK, 0.1)


def upload(pile: Pile, n: int) -> list[tuple[DocumentRef, str]]:
    """`n` reports under the pile prefix, each run started; (document, execution arn)."""
    from docflow import aws

    bucket = pile.names("DocumentBucket")
    started = []
    for i in range(n):
        title, body = REPORT
        data = pdfs.text_pdf(title.format(n=i), body)
        key = f"backfill/report-{i:04d}.pdf"
        put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=data)
        doc = DocumentRef(bucket, key, put["VersionId"], sequencer=f"{i + 1:08X}")
        started.append((doc, pile.documents.run_async(input=json.dumps(doc.to_event()))))
    return started


def settle(pile: Pile, started: list[tuple[DocumentRef, str]]) -> list[dict[str, Any]]:
    results = []
    for _doc, arn in started:
        result = pile.documents.wait_for_result(arn, timeout=300)
        results.append(json.loads(result.result))
    return results


def enrichment_of(result: dict[str, Any]) -> dict[str, Any]:
    return result.get("enrichment") or {}


@pytest.fixture
def sandbox(request: pytest.FixtureRequest) -> Iterator[LocalNames]:
    overrides = getattr(request, "param", {})
    with moto_sandbox(LocalNames(prefix="t"), {**TEST_ENV, **pile_env(**overrides)}) as names:
        yield names


def assert_pool_drained() -> None:
    pool = Pool()
    assert [pool.count(s) for s in (PENDING, CLAIMED, SENT)] == [0, 0, 0]


def test_a_pile_of_100_goes_through_one_job_and_failed_records_go_on_demand(
    sandbox: LocalNames,
) -> None:
    emulator = BedrockBatchEmulator(delays=FAST, fail_rate=0.04, bad_rate=0.02, seed=7)
    with pile_running(sandbox, orchestrator, batcher, emulator) as pile:
        started = upload(pile, 100)
        pile.wait_registered(100)
        # Waiting for the job, a pile document shows as `enriching`, not as stuck `reading`.
        (first, _), model = started[0], ReadModel(load_settings().table_name)
        assert model.show(first.document_id)["state"]["status"] == "enriching"
        ran = pile.run_batcher("pile-test")
        results = settle(pile, started)

    (job,) = ran["result"]["jobs"]
    assert job["records"] == 100 and job["status"] == "Completed"
    assert {r["status"] for r in results} == {"finalized"}
    modes = Counter(enrichment_of(r).get("mode") for r in results)
    failed, bad = emulator.stats.failed_records, emulator.stats.bad_answers
    assert failed and bad  # the seed makes some of each
    assert modes == {"batch": 100 - failed - bad, "on-demand": failed + bad}
    assert job["outcomes"] == {
        "ok": 100 - failed - bad,
        "record-error": failed,
        "invalid-answer": bad,
    }
    batched = [enrichment_of(r) for r in results if enrichment_of(r).get("mode") == "batch"]
    assert {e.get("jobId") for e in batched} == {job["jobId"]}
    # Every document was answered exactly once.
    assert len(pile.to_documents.sent) == len(set(pile.to_documents.sent)) == 100
    assert_pool_drained()


@pytest.mark.parametrize("sandbox", [{"DOCFLOW_PILE_MIN_RECORDS": "5"}], indirect=True)
def test_an_expired_jobs_documents_complete_on_demand(sandbox: LocalNames) -> None:
    emulator = BedrockBatchEmulator(delays=FAST, expire_jobs={1}, min_records=5)
    with pile_running(sandbox, orchestrator, batcher, emulator) as pile:
        started = upload(pile, 6)
        pile.wait_registered(6)
        ran = pile.run_batcher("pile-expired")
        results = settle(pile, started)

    (job,) = ran["result"]["jobs"]
    assert job["status"] == "Expired" and job["outcomes"] == {"job-expired": 6}
    assert {r["status"] for r in results} == {"finalized"}
    assert {enrichment_of(r).get("mode") for r in results} == {"on-demand"}
    assert_pool_drained()


def test_a_pile_smaller_than_the_minimum_goes_on_demand_after_the_maximum_wait(
    sandbox: LocalNames,
) -> None:
    emulator = BedrockBatchEmulator(delays=FAST)
    with pile_running(sandbox, orchestrator, batcher, emulator) as pile:
        started = upload(pile, 3)
        pile.wait_registered(3)
        ran = pile.run_batcher("pile-small")
        results = settle(pile, started)

    assert ran["result"]["jobs"] == [] and ran["result"]["poolTimeouts"] == 3
    assert emulator.stats.jobs == 0
    assert {r["status"] for r in results} == {"finalized"}
    assert {enrichment_of(r).get("mode") for r in results} == {"on-demand"}
    assert_pool_drained()


@pytest.mark.parametrize("sandbox", [{"DOCFLOW_PILE_MIN_RECORDS": "5"}], indirect=True)
def test_a_duplicate_state_change_event_completes_nothing_twice(sandbox: LocalNames) -> None:
    # InProgress lasts long enough that the batcher is waiting when the job ends: the event,
    # not the submitter, completes its wait; every event arrives twice.
    delays = {**FAST, "InProgress": 2.0}
    emulator = BedrockBatchEmulator(delays=delays, min_records=5)
    with pile_running(sandbox, orchestrator, batcher, emulator, duplicate_events=True) as pile:
        started = upload(pile, 5)
        pile.wait_registered(5)
        ran = pile.run_batcher("pile-dup")
        results = settle(pile, started)
        ended = [a for a in pile.pump.answers if a["status"] == "Completed"]
        # Once more, after everything settled: a late redelivery.
        late = on_state_change(
            JobStateChange(
                {"detail": {"batchJobName": ran["result"]["jobs"][0]["job"], "status": "Completed"}}
            )
        )
        answered_batcher = list(pile.to_batcher.sent)

    assert [a["completed"] for a in ended] == [True, False]
    assert late["completed"] is False
    assert len(answered_batcher) == 1  # the batcher's wait was completed once
    assert len(pile.to_documents.sent) == len(set(pile.to_documents.sent)) == 5
    assert {enrichment_of(r).get("mode") for r in results} == {"batch"}
