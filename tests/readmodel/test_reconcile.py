"""The reconcile pass: documents whose execution ended without recording a terminal status."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from docflow.readmodel import transitions as t
from docflow.readmodel.reconcile import reconcile
from tests.support.read_model import model, new_doc, recorder, report, state

LATER = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)  # two hours after the reports below


class FixedStatuses:
    """Stands in for Lambda's ListDurableExecutionsByFunction (named a fake: tests only);
    the local-stack test asks the real durable runner."""

    def __init__(self, statuses: dict[str, str]) -> None:
        self.statuses = statuses
        self.asked: list[str] = []

    def status(self, execution_name: str) -> str | None:
        self.asked.append(execution_name)
        return self.statuses.get(execution_name)


def test_ended_executions_are_recorded_failed_once(shared: object) -> None:
    crashed, stopped, running, vanished, done = (new_doc() for _ in range(5))
    for doc in (crashed, stopped, running, vanished):
        recorder().record(report(doc, t.RECEIVED, n=1))
        recorder().record(report(doc, t.READING, n=2, pages=3))
    recorder().record(report(done, t.RECEIVED, n=1))
    recorder().record(report(done, t.FAILED, n=2, reason="not-a-pdf"))
    lambda_ = FixedStatuses(
        {crashed.run_id: "FAILED", stopped.run_id: "STOPPED", running.run_id: "RUNNING"}
    )

    result = reconcile(model(), recorder(), lambda_, timedelta(hours=1), now=LATER)

    assert (result.examined, result.recorded_failed, result.running, result.unknown) == (4, 2, 1, 1)
    assert done.run_id not in lambda_.asked  # terminal documents are never looked up
    assert (state(crashed)["status"], state(crashed)["reason"]) == ("failed", "execution-failed")
    assert state(stopped)["reason"] == "execution-stopped"
    assert state(running)["status"] == state(vanished)["status"] == "reading"
    # A second pass finds nothing more to do, and the history has one failure per run.
    again = reconcile(model(), recorder(), lambda_, timedelta(hours=1), now=LATER)
    assert again.recorded_failed == 0
    history = model().show(crashed.document_id)["history"]
    assert [h["status"] for h in history].count("failed") == 1


def test_recent_documents_and_open_reviews_are_left_alone(shared: object) -> None:
    quiet, waiting, overdue = new_doc(), new_doc(), new_doc()
    recorder().record(report(quiet, t.RECEIVED, n=1))
    for doc, deadline in ((waiting, LATER + timedelta(days=2)), (overdue, LATER - timedelta(1))):
        recorder().record(report(doc, t.RECEIVED, n=1))
        recorder().record(report(doc, t.READING, n=2))
        recorder().record(report(doc, t.CLASSIFIED, n=3))
        recorder().record(
            report(
                doc,
                t.PENDING_REVIEW,
                0,
                4,
                reviewLinks=[{"reviewer": "a@example.com", "linkId": "abc"}],
                stageName="legal",
                reviewDeadline=deadline.isoformat(),
            )
        )
    lambda_ = FixedStatuses(
        {quiet.run_id: "FAILED", waiting.run_id: "STOPPED", overdue.run_id: "TIMED_OUT"}
    )

    # Quiet for ten minutes only: nothing is old enough to look at.
    assert reconcile(model(), recorder(), lambda_, timedelta(days=1), now=LATER).examined == 0
    result = reconcile(model(), recorder(), lambda_, timedelta(minutes=10), now=LATER)
    assert result.awaiting_review == 1 and waiting.run_id not in lambda_.asked
    assert state(waiting)["status"] == "pending-review"
    assert state(overdue)["reason"] == "execution-timed-out"
    assert state(quiet)["reason"] == "execution-failed"


def test_a_pile_document_waiting_for_its_job_is_left_alone_until_the_wait_ends(
    shared: object,
) -> None:
    from docflow.flows.enrich import batch_wait

    waiting, overdue = new_doc(), new_doc()
    for doc, seconds in ((waiting, 24 * 3600), (overdue, 600)):
        recorder().record(report(doc, t.RECEIVED, n=1))
        recorder().record(report(doc, t.READING, n=2, pages=1))
        recorder().record(report(doc, t.ENRICHING, n=3, **batch_wait(seconds)))
    lambda_ = FixedStatuses({waiting.run_id: "RUNNING", overdue.run_id: "TIMED_OUT"})

    result = reconcile(model(), recorder(), lambda_, timedelta(minutes=10), now=LATER)

    assert result.awaiting_job == 1 and waiting.run_id not in lambda_.asked
    assert state(waiting)["status"] == "enriching"
    wait = {"mode": "batch", "status": "waiting", "waitSeconds": 86400}
    assert state(waiting)["enrichment"] == wait
    assert state(overdue)["reason"] == "execution-timed-out"


def test_a_pass_is_bounded(shared: object) -> None:
    docs = [new_doc() for _ in range(5)]
    for doc in docs:
        recorder().record(report(doc, t.RECEIVED, n=1))
    lambda_ = FixedStatuses({})
    result = reconcile(model(), recorder(), lambda_, timedelta(hours=1), now=LATER, max_checks=3)
    assert result.examined == 3 and len(lambda_.asked) == 3


def test_the_recorder_refuses_a_bad_quiet_period() -> None:
    from status_recorder.app import handler

    for bad in (-1, "60", True, 1.5):
        answer = handler({"task": "reconcile", "quietSeconds": bad})
        assert answer["result"] == "invalid" and answer["error"]["field"] == "quietSeconds"
