"""Review policies on the durable testing runner, through the callback API's real handler: a
2-of-3 quorum, two rejections, a reminder with the same link, an escalation that decides, and a
click at the instant of a reminder. Timers are real (the runner's callback timeouts run on the
clock), so the policies use seconds."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

import callback_api.app as api
from docflow.ids import DocumentRef
from docflow.pipeline.review_rounds import review_rounds
from docflow.readmodel.queries import ReadModel
from docflow.review.stage.records import StageStore
from docflow.rules.model import Stage, load_rules
from docflow.rules.routed import RoutedStage
from docflow.runtime import build_runtime, use_runtime
from docflow.settings import SettingsError, load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import Stack, result_json
from tests.support.review_desk import RunnerCallbacks, call, make_views, post_decision, wait_until

LEGAL_ONLY = "SERVICES AGREEMENT\nThe parties hereby agree. Governing law: Delaware."
TYPES = """
[[document_types]]
name = "contract"
keywords = ["agreement", "hereby", "parties", "governing law"]
min_hits = 2
stages = ["legal"]
"""
A, B, C, BOSS = "a@example.com", "b@example.com", "c@example.com", "boss@example.com"


def rules(stage: str) -> str:
    return f"{TYPES}\n[stages.legal]\ntimeout_seconds = 30\n{stage}\n"


class Policy:
    def __init__(self, stack: Stack, runner: DurableFunctionTestRunner, cb: RunnerCallbacks):
        self.stack, self.runner, self.callbacks = stack, runner, cb
        self.doc: DocumentRef | None = None
        self.arn = ""

    def start(self) -> None:
        self.doc = self.stack.upload("in/agreement.pdf", pdfs.text_pdf(LEGAL_ONLY))
        self.arn = self.runner.run_async(input=self.stack.event(self.doc), execution_timeout=120)

    def mail(self, to: str) -> list[dict]:
        return [m for m in moto_sent_mail() if to in m["to"]]

    def link(self, to: str) -> str:
        wait_until(lambda: bool(self.mail(to)))
        return links_in(self.mail(to))[0].token

    def result(self) -> tuple[dict, list[str]]:
        done = self.runner.wait_for_result(self.arn, timeout=60)
        return result_json(done), [op.name for op in done.operations]

    def history(self) -> list[dict]:
        assert self.doc is not None
        return ReadModel(load_settings().table_name).show(self.doc.document_id)["history"]


@pytest.fixture
def policy(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Policy]:
    path = tmp_path / "rules.toml"
    path.write_text(rules(request.param))
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
    load_settings.cache_clear()
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        callbacks = RunnerCallbacks(runner)
        api.use_views(make_views(callbacks))
        use_runtime(build_runtime().with_(callbacks=callbacks))
        yield Policy(stack, runner, callbacks)
        api.use_views(None)
        use_runtime(None)


QUORUM = f'reviewers = ["{A}", "{B}", "{C}"]\nquorum = 2'


@pytest.mark.parametrize("policy", [QUORUM], indirect=True)
def test_two_of_three_approve(policy: Policy) -> None:
    policy.start()
    page = call("GET", f"/review/{policy.link(A)}")["body"]
    assert "2 approvals of 3 reviewers; 0 so far" in page
    first = post_decision(policy.link(A), "approve", "fine by me")
    assert first["statusCode"] == 200
    assert "Your approval is recorded" in first["body"] and "waiting for 1 more" in first["body"]
    assert not policy.callbacks.sent  # a vote that decides nothing wakes nothing
    assert (
        "2 approvals of 3 reviewers; 1 so far" in call("GET", f"/review/{policy.link(B)}")["body"]
    )
    assert ReadModel(load_settings().table_name).pending().items

    assert post_decision(policy.link(B), "approve")["statusCode"] == 200
    third = post_decision(policy.link(C), "reject")
    assert third["statusCode"] == 409
    assert f"already approved by {A} and {B}" in third["body"]
    assert len(policy.callbacks.sent) == 1

    out, names = policy.result()
    assert out["status"] == "finalized"
    approved = [h for h in policy.history() if h["status"] == "approved"]
    assert len(approved) == 1
    votes = approved[0]["payload"]["votes"]
    assert [(v["reviewer"], v["decision"]) for v in votes] == [(A, "approved"), (B, "approved")]
    assert votes[0]["comment"] == "fine by me"
    # One round: the wait's context, its callback and submitter; no settle step.
    assert [n for n in names if n.startswith(("review-0", "settle"))] == ["review-0"]


@pytest.mark.parametrize("policy", [QUORUM], indirect=True)
def test_two_of_three_reject_after_the_second_rejection(policy: Policy) -> None:
    policy.start()
    first = post_decision(policy.link(A), "reject", reason="data-incorrect")
    assert first["statusCode"] == 200 and "Your rejection is recorded" in first["body"]
    assert not policy.callbacks.sent
    assert post_decision(policy.link(C), "reject", reason="other")["statusCode"] == 200
    late = call("GET", f"/review/{policy.link(B)}")
    assert late["statusCode"] == 409 and f"already rejected by {A} and {C}" in late["body"]

    out, _ = policy.result()
    assert (out["status"], out["reason"]) == ("archived", "rejected")
    rejected = [h for h in policy.history() if h["status"] == "rejected"]
    assert len(rejected) == 1
    assert [v["reviewer"] for v in rejected[0]["payload"]["votes"]] == [A, C]


REMIND = f'reviewers = ["{A}", "{B}"]\nquorum = 2\nremind_after_seconds = 2\nmax_reminders = 2'


@pytest.mark.parametrize("policy", [REMIND], indirect=True)
def test_a_reminder_carries_the_same_link(policy: Policy) -> None:
    policy.start()
    link_a, link_b = policy.link(A), policy.link(B)
    assert post_decision(link_a, "approve")["statusCode"] == 200
    # B has not decided: B alone is reminded, twice, with the link of the first e-mail.
    wait_until(lambda: len(policy.mail(B)) >= 3, timeout=20)
    reminders = [m for m in policy.mail(B) if "Reminder" in m["subject"]]
    assert [m["subject"].split(":")[0] for m in reminders] == [
        "[docflow] Reminder 1 of 2",
        "[docflow] Reminder 2 of 2",
    ]
    assert all(link_b in m["body"] for m in reminders)
    assert len(policy.mail(A)) == 1
    assert post_decision(link_b, "approve")["statusCode"] == 200

    out, names = policy.result()
    assert out["status"] == "finalized"
    assert {"review-0", "review-0-r1", "review-0-r2"} <= set(names)
    assert len(policy.mail(B)) == 3  # a reminder per number, none twice


ESCALATE = (
    f'reviewers = ["{A}"]\nremind_after_seconds = 1\nmax_reminders = 1\n'
    f'escalate_after_seconds = 2\nescalate_to = ["{BOSS}"]'
)


@pytest.mark.parametrize("policy", [ESCALATE], indirect=True)
def test_an_escalation_reviewer_decides(policy: Policy) -> None:
    policy.start()
    original = policy.link(A)
    boss = policy.link(BOSS)  # after 2 s nobody had decided
    notice = [m for m in policy.mail(A) if "escalated" in m["subject"]]
    assert len(notice) == 1 and BOSS in notice[0]["body"] and original in notice[0]["body"]
    assert post_decision(boss, "approve", "signed off")["statusCode"] == 200
    answer = post_decision(original, "approve")
    assert answer["statusCode"] == 409 and f"already approved by {BOSS}" in answer["body"]

    out, names = policy.result()
    assert out["status"] == "finalized"
    assert {"review-0", "review-0-r1", "review-0-r2"} <= set(names)
    approved = next(h for h in policy.history() if h["status"] == "approved")["payload"]
    assert (approved["reviewer"], approved["comment"]) == (BOSS, "signed off")
    assert [m["subject"].split(":")[0] for m in policy.mail(A)] == [
        "[docflow] Review needed (legal)",
        "[docflow] Reminder 1 of 1",
        "[docflow] Review escalated (legal)",
    ]


RACE = f'reviewers = ["{A}"]\nremind_after_seconds = 1\nmax_reminders = 1'


@pytest.mark.parametrize("policy", [RACE], indirect=True)
def test_a_click_at_the_instant_of_a_reminder_is_counted_once(
    policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The click lands after the first wait timed out and before the reminder's wait is
    registered: its callback is gone, yet the decision is neither lost nor counted twice."""
    reached, clicked = threading.Event(), threading.Event()
    real = StageStore.register_round

    def held(self: StageStore, pk: str, callback_id: str, number: int, *args: object) -> dict:
        if number == 1:
            reached.set()
            clicked.wait(20)
        return real(self, pk, callback_id, number, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(StageStore, "register_round", held)
    policy.start()
    token = policy.link(A)
    assert reached.wait(20)
    answer = post_decision(token, "approve", "just in time")
    clicked.set()
    assert answer["statusCode"] == 200 and "approved" in answer["body"]
    assert not policy.callbacks.sent  # the first wait's callback had already timed out

    out, names = policy.result()
    assert out["status"] == "finalized"
    assert "settle review-0" in names  # the reminder's round found the decision instead
    approved = [h for h in policy.history() if h["status"] == "approved"]
    assert len(approved) == 1 and approved[0]["payload"]["comment"] == "just in time"
    assert all("Reminder" not in m["subject"] for m in policy.mail(A))
    assert post_decision(token, "approve")["statusCode"] == 409


def test_the_round_plan() -> None:
    policy = Stage("legal", (A,), 60, 0, 0, 5, 3, 12, (BOSS,))
    stage = RoutedStage(policy, "type")
    plan = [(r["waitSeconds"], r["reminder"], r["escalate"]) for r in review_rounds(stage)]
    # reminders at 5, 10, 15; escalation at 12; the stage ends at 60
    assert plan == [(5, 0, 0), (5, 1, 0), (2, 2, 0), (3, 0, 1), (45, 3, 0)]
    assert sum(w for w, _, _ in plan) == 60
    both = RoutedStage(replace(policy, escalate_after_seconds=10), "type")
    assert len(review_rounds(both)) == 4  # an escalation on a reminder's second is one round
    assert review_rounds(RoutedStage(Stage("legal", (A,), 30, 0))) == [
        {"round": 0, "waitSeconds": 30, "reminder": 0, "escalate": 0}
    ]


@pytest.mark.parametrize(
    ("stage", "error"),
    [
        (f'reviewers = ["{A}", "{B}"]\nquorum = 3', "quorum must be between 1 and its 2"),
        (f'reviewers = ["{A}"]\nquorum = 0', ""),
        (
            f'reviewers = ["{A}"]\nremind_after_seconds = 10\nmax_reminders = 3',
            "the last reminder (3 x 10 s) must come before the stage timeout (30 s)",
        ),
        (f'reviewers = ["{A}"]\nescalate_after_seconds = 5', "go together"),
        (
            f'reviewers = ["{A}"]\nescalate_after_seconds = 30\nescalate_to = ["{BOSS}"]',
            "must be below the stage timeout",
        ),
        (
            f'reviewers = ["{A}"]\nescalate_after_seconds = 5\nescalate_to = ["{A}"]',
            "not already in the stage",
        ),
        (f'reviewers = ["{A}"]\nremind_after_seconds = 1\nmax_reminders = 11', "at most 10"),
    ],
)
def test_policies_are_checked_at_load(tmp_path: Path, stage: str, error: str) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(rules(stage))
    if not error:
        load_rules(path)
        return
    with pytest.raises(SettingsError) as raised:
        load_rules(path)
    assert "stage 'legal'" in str(raised.value) and error in str(raised.value)


def test_a_stage_checkpoints_only_the_policy_it_has(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(rules(f'reviewers = ["{A}"]'))
    assert set(load_rules(path).stages["legal"].to_dict()) == {
        "name",
        "reviewers",
        "timeoutSeconds",
        "heartbeatSeconds",
    }
    path.write_text(rules(ESCALATE))
    assert json.loads(json.dumps(load_rules(path).stages["legal"].to_dict())) == {
        "name": "legal",
        "reviewers": [A],
        "timeoutSeconds": 30,
        "heartbeatSeconds": 0,
        "remindAfterSeconds": 1,
        "maxReminders": 1,
        "escalateAfterSeconds": 2,
        "escalateTo": [BOSS],
    }


@pytest.mark.parametrize("policy", [QUORUM], indirect=True)
def test_a_newer_run_recorded_as_the_stage_opens_mails_nothing(
    policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newer run raises the register between the older run's first step and its stage:
    the stage's submitter finds it, closes its links, mails nothing, and the run archives."""
    from docflow.review.stage.register import RegisterStore

    real = RegisterStore.add_wait

    def raced(self: RegisterStore, doc: DocumentRef, pk: str) -> bool:
        newer = DocumentRef(doc.bucket, doc.key, doc.version_id, sequencer="FFFF")
        assert self.record_latest(newer)
        return real(self, doc, pk)

    monkeypatch.setattr(RegisterStore, "add_wait", raced)
    policy.start()
    out, names = policy.result()
    assert (out["status"], out["reason"]) == ("archived", "superseded")
    assert "settle review-0" not in names
    assert not moto_sent_mail()


def test_concurrent_votes_cross_the_line_once(stack: Stack) -> None:
    """Three approvals at once on a 2-of-3 stage: two count, exactly one of them decides, and
    the third is refused; each reviewer's vote is counted at most once."""
    from docflow.review.stage.records import StageClosed, tally

    store = StageStore(load_settings().links_table)
    store.create("STAGE#run#0", {"runId": "run"}, [A, B, C], 2, 2_000_000_000)
    store.register_round("STAGE#run#0", "cb-0", 0, 2_000_000_000, [])
    barrier = threading.Barrier(4)
    answers: list[str] = []

    def vote(reviewer: str) -> None:
        barrier.wait()
        try:
            item = store.vote("STAGE#run#0", reviewer, {"approved": True, "at": "t"})
            answers.append(tally(item)["decided"] or "pending")
        except StageClosed:
            answers.append("refused")

    threads = [threading.Thread(target=vote, args=(r,)) for r in (A, B, C, A)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(answers) == ["approved", "pending", "refused", "refused"]
    assert tally(store.get("STAGE#run#0") or {})["approvals"] == 2
    with pytest.raises(StageClosed):
        store.register_round("STAGE#run#0", "cb-1", 1, 2_000_000_000, [])
