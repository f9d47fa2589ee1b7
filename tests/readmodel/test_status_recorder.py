"""The read model: transitions, duplicates, ordering, concurrent writers, malformed reports."""

from __future__ import annotations

import itertools
import threading
import uuid
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docflow import aws
from docflow.ids import DocumentRef
from docflow.readmodel import transitions as t
from docflow.readmodel.recorder import plan
from docflow.readmodel.schema import Report, make_report
from docflow.settings import load_settings
from status_recorder.app import handler
from tests.support.aws import Stack
from tests.support.read_model import (
    at,
    model,
    new_doc,
    recorder,
    report,
    state,
)


# A run's reports in pipeline order, per path through it.
def run_reports(doc: DocumentRef, stages: int, ending: str) -> list[Report]:
    out = [
        report(doc, t.RECEIVED, n=1),
        report(doc, t.READING, n=2, pages=3),
        report(doc, t.CLASSIFIED, n=3, docType="contract"),
    ]
    n = 4
    for i in range(stages):
        out.append(
            report(
                doc,
                t.PENDING_REVIEW,
                i,
                n,
                reviewLinks=[{"reviewer": "a@example.com", "linkId": f"id{i}"}],
                stageName=f"s{i}",
            )
        )
        last = i == stages - 1
        decision = (
            t.APPROVED
            if not last or ending == t.FINALIZED
            else (t.REJECTED if ending == t.ARCHIVED else t.APPROVED)
        )
        out.append(report(doc, decision, i, n + 1))
        n += 2
    if ending == t.FAILED:
        out.append(report(doc, t.FAILED, n=n, reason="internal-error"))
    elif ending == t.ARCHIVED and stages:
        out.append(report(doc, t.ARCHIVED, n=n))
    else:
        out.append(report(doc, t.FINALIZED, n=n))
    return out


def position(status: str) -> tuple[str, int | None]:
    """A report at `status` that sits where that status sits in the pipeline."""
    if status in (t.PENDING_REVIEW, t.APPROVED, t.REJECTED, t.TIMED_OUT, t.AWAITING_MATCH):
        return status, 0
    return status, None


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(t.STATUSES, t.STATUSES)))
def test_every_transition_is_allowed_or_refused(shared: Stack, src: str, dst: str) -> None:
    doc = new_doc()
    status, index = position(src)
    first = report(doc, status, index, n=1)
    assert recorder().record(first).result == "accepted"

    later = make_report(
        doc, dst, "x", stage_index=1 if position(dst)[1] is not None else None, at=at(2)
    )
    verdict = recorder().record(later)

    allowed = dst in t.REACHABLE[src] and later.seq > first.seq
    expected = "accepted" if allowed else "stale"
    if later.event_id == first.event_id:
        expected = "duplicate"  # same status at the same position: the same report again
    assert verdict.result == expected, verdict
    assert state(doc)["status"] == (dst if allowed else src)


def test_the_transition_table_is_what_the_pipeline_does() -> None:
    assert t.ALLOWED[t.PENDING_REVIEW] == {t.APPROVED, t.REJECTED, t.TIMED_OUT, t.FAILED}
    assert t.ALLOWED[t.APPROVED] == {t.PENDING_REVIEW, t.FINALIZED, t.FAILED}
    assert all(not t.ALLOWED[s] for s in t.TERMINAL)
    assert t.REACHABLE[t.RECEIVED] == set(t.STATUSES) - {t.RECEIVED}


def test_a_duplicate_is_stored_once(shared: Stack) -> None:
    doc = new_doc()
    first = report(doc, t.RECEIVED, n=1)
    assert recorder().record(first).result == "accepted"
    assert recorder().record(first).result == "duplicate"
    assert handler(first.to_dict())["result"] == "duplicate"
    assert len(model().show(doc.document_id)["history"]) == 1


def test_late_report_is_history_but_not_state(shared: Stack) -> None:
    doc = new_doc()
    recorder().record(report(doc, t.READING, n=2, pages=4))
    verdict = recorder().record(report(doc, t.RECEIVED, n=1))
    assert verdict.result == "stale"
    shown = model().show(doc.document_id)
    assert shown["state"]["status"] == t.READING
    assert [h["status"] for h in shown["history"]] == [t.RECEIVED, t.READING]  # in run order


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    stages=st.integers(min_value=0, max_value=2),
    ending=st.sampled_from([t.FINALIZED, t.ARCHIVED, t.FAILED]),
    data=st.data(),
)
def test_any_order_of_a_runs_reports_ends_in_the_same_state(
    shared: Stack, stages: int, ending: str, data: st.DataObject
) -> None:
    ordered_doc, shuffled_doc = new_doc(), new_doc()
    for r in run_reports(ordered_doc, stages, ending):
        recorder().record(r)
    shuffled = data.draw(st.permutations(run_reports(shuffled_doc, stages, ending)))
    for r in shuffled:
        recorder().record(r)

    ignore = ("documentId", "runId", "runOrder", "eventId", "rev")  # ids differ per document
    want, got = state(ordered_doc), state(shuffled_doc)
    assert {k: v for k, v in got.items() if k not in ignore} == {
        k: v for k, v in want.items() if k not in ignore
    }
    assert got["eventId"] != want["eventId"] and got["status"] == want["status"]
    assert len(model().show(shuffled_doc.document_id)["history"]) == len(shuffled)


@settings(max_examples=300, deadline=None)
@given(
    stages=st.integers(0, 3),
    ending=st.sampled_from([t.FINALIZED, t.ARCHIVED, t.FAILED]),
    data=st.data(),
)
def test_recorder_rules_any_order_same_state_without_a_table(
    stages: int, ending: str, data: st.DataObject
) -> None:
    """The recorder's decision logic alone, over many more orders than the table test runs."""

    def apply_all(reports: list[Report]) -> dict[str, Any] | None:
        current: dict[str, Any] | None = None
        history: list[Report] = []
        for r in reports:
            if any(h.event_id == r.event_id for h in history):
                continue
            run = [h for h in history if h.run_id == r.run_id]
            _, _, state = plan(current, r, lambda run=run: run)
            history.append(r)
            if state is not None:
                current = {**state, "rev": (current or {}).get("rev", 0) + 1}
        return current

    doc = new_doc()
    ordered = run_reports(doc, stages, ending)
    shuffled = data.draw(st.permutations(ordered))
    duplicated = data.draw(st.lists(st.sampled_from(ordered), max_size=4))
    assert apply_all([*shuffled, *duplicated]) == apply_all(ordered)


def test_newer_run_wins_when_runs_interleave(shared: Stack) -> None:
    key = f"k/{uuid.uuid4()}.pdf"
    old = DocumentRef("bucket", key, "v1", "0A", 0)
    new = DocumentRef("bucket", key, "v2", "0B", 0)
    old_reports, new_reports = run_reports(old, 1, t.FINALIZED), run_reports(new, 0, t.FINALIZED)
    for a, b in itertools.zip_longest(old_reports, new_reports):
        for r in (b, a):  # the newer run's report lands first each time
            if r is not None:
                recorder().record(r)
    current = state(new)
    assert (current["runId"], current["version"], current["status"]) == (
        new.run_id,
        "v2",
        t.FINALIZED,
    )
    assert "reviewLinks" not in current and "pendingSince" not in current

    reprocess = DocumentRef("bucket", key, "v2", "0B", 1)  # `docflow reprocess`
    assert recorder().record(report(reprocess, t.RECEIVED, n=99)).result == "accepted"
    assert state(new)["runId"] == reprocess.run_id


def test_threads_writing_one_document_at_once(shared: Stack) -> None:
    doc = new_doc()
    reports = run_reports(doc, 2, t.FINALIZED) * 2  # every report twice, from different threads
    results: list[str] = []
    lock = threading.Lock()

    def send(r: Report) -> None:
        verdict = recorder().record(r).result
        with lock:
            results.append(verdict)

    threads = [threading.Thread(target=send, args=(r,)) for r in reports]
    for th in threads:
        th.start()
    for th in threads:
        th.join()

    assert state(doc)["status"] == t.FINALIZED
    history = model().show(doc.document_id)["history"]
    assert len(history) == len(reports) // 2  # each event stored exactly once
    assert results.count("duplicate") == len(reports) // 2, results


GOOD = {
    "documentId": "d-1",
    "version": "v1",
    "runId": "doc-1",
    "runOrder": "0" * 32 + ":" + "0" * 13 + ":000000",
    "eventId": "e-1",
    "stage": "intake",
    "status": "received",
    "seq": 10,
    "at": "2026-11-29T10:00:00+00:00",
    "payload": {},
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"documentId": ""}, "documentId"),
        ({"documentId": None}, "documentId"),
        ({"version": 7}, "version"),
        ({"runId": "has space"}, "runId"),
        ({"eventId": "x" * 200}, "eventId"),
        ({"runOrder": "yesterday"}, "runOrder"),
        ({"status": "done"}, "status"),
        ({"stage": ""}, "stage"),
        ({"seq": "10"}, "seq"),
        ({"seq": True}, "seq"),
        ({"seq": -1}, "seq"),
        ({"at": "not a time"}, "at"),
        ({"at": "2026-11-29T10:00:00"}, "at"),
        ({"cause": "gremlins"}, "cause"),
        ({"payload": []}, "payload"),
        ({"payload": {"pageText": "secret"}}, "payload.pageText"),
        ({"payload": {"pages": "three"}}, "payload.pages"),
        # Past what Lambda's Invoke carries (a report under it is kept, its rest in S3).
        ({"payload": {"comment": "x" * (4 * 1024 * 1024)}}, "payload"),
        # Only the recorder names where a payload's rest is, and only this document's.
        ({"payload": {"detail": {"fields": {"key": "docs/x.json", "count": 1}}}}, "payload.detail"),
    ],
)
def test_malformed_reports_get_a_clear_error_and_write_nothing(
    shared: Stack, change: dict[str, Any], field: str
) -> None:
    answer = handler({**GOOD, **change})
    assert answer["result"] == "invalid"
    assert answer["error"]["field"] == field
    assert model().show("d-1") == {"state": None, "history": []}


@pytest.mark.parametrize("raw", [None, [], "text", 42])
def test_a_report_that_is_not_an_object(shared: Stack, raw: Any) -> None:
    assert handler(raw)["error"]["field"] == "report"


def test_pending_stuck_failed_queries(shared: Stack) -> None:
    waiting, failing, busy, done = new_doc(), new_doc(), new_doc(), new_doc()
    for r in run_reports(waiting, 1, t.FINALIZED)[:4]:
        recorder().record(r)
    for r in run_reports(failing, 0, t.FAILED):
        recorder().record(r)
    for r in run_reports(busy, 0, t.FINALIZED)[:2]:
        recorder().record(r)
    for r in run_reports(done, 0, t.FINALIZED):
        recorder().record(r)

    pending = model().pending().items
    assert [p["documentId"] for p in pending] == [waiting.document_id]
    assert pending[0]["reviewLinks"] == [{"reviewer": "a@example.com", "linkId": "id0"}]
    assert [f["documentId"] for f in model().failed().items] == [failing.document_id]

    stuck = {s["documentId"] for s in model().stuck(timedelta(minutes=15)).items}
    assert stuck == {waiting.document_id, busy.document_id}  # old timestamps, not terminal


def all_pages(query: Any) -> list[dict[str, Any]]:
    items, token = [], None
    while True:
        page = query(token=token)
        items.extend(page.items)
        token = page.next_token
        if not token:
            return items


def test_query_pages_are_paginated(shared: Stack) -> None:
    docs = [new_doc() for _ in range(5)]
    for d in docs:
        for r in run_reports(d, 1, t.FINALIZED)[:4]:
            recorder().record(r)
    pages, token = [], None
    while True:
        page = model().pending(limit=2, token=token)
        pages.append(page)
        token = page.next_token
        if not token:
            break
    seen = [i["documentId"] for p in pages for i in p.items]
    assert all(len(p.items) <= 2 for p in pages)
    assert len(seen) == len(set(seen))  # no document on two pages
    assert {d.document_id for d in docs} <= set(seen)
    since = [i["pendingSince"] for p in pages for i in p.items]
    assert since == sorted(since)  # longest-waiting first


def test_no_scan_in_the_pipeline_or_queries(shared: Stack) -> None:
    """Scans are refused on the shared client; the recorder and every query still work."""

    def refuse(**_: Any) -> None:
        raise AssertionError("a DynamoDB Scan was issued")

    aws.client("dynamodb").meta.events.register("before-call.dynamodb.Scan", refuse)
    doc = new_doc()
    for r in run_reports(doc, 1, t.FINALIZED):
        recorder().record(r)

    model().pending()
    model().failed()
    model().stuck(timedelta(seconds=1))
    model().show(doc.document_id)
    with pytest.raises(AssertionError):
        aws.client("dynamodb").scan(TableName=load_settings().table_name)


def test_many_states_are_read_at_once_as_show_reads_each(shared: Stack) -> None:
    docs = [new_doc() for _ in range(105)]  # two BatchGetItem requests of at most 100
    for n, doc in enumerate(docs[:-5]):
        recorder().record(report(doc, t.RECEIVED, n=1))
        if n % 2:
            recorder().record(report(doc, t.READING, n=2, pages=n))
    ids = [d.document_id for d in docs]
    states = model().states([*ids, ids[0]])  # a repeated id is asked once
    assert list(states) == ids
    assert all(states[i] == model().show(i)["state"] for i in ids)
    assert [states[i] for i in ids[-5:]] == [None] * 5  # nothing recorded yet
    assert states[ids[1]]["status"] == t.READING and states[ids[0]]["status"] == t.RECEIVED
