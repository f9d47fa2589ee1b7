"""The callback API through its real handler, resuming real executions on the testing runner."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlencode

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import callback_api.app as api
from docflow.readmodel.queries import ReadModel
from docflow.review.access.keys import build_key_source
from docflow.review.access.signing import KeyRing, TokenClaims, mint, sign_body
from docflow.runtime import build_runtime, use_runtime
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import MailedLink, links_in, moto_sent_mail
from tests.support.aws import Stack, result_json
from tests.support.function_url import FakeLambdaContext, url_event
from tests.support.review_desk import RunnerCallbacks, call, make_views, post_decision, wait_until


@dataclass
class Review:
    runner: DurableFunctionTestRunner
    arn: str
    callbacks: RunnerCallbacks

    def links(self, stage: int | None = None) -> list[MailedLink]:
        """The links mailed for this run's latest stage (or the one named)."""
        mailed = links_in(moto_sent_mail())
        if stage is None:
            stage = max((m.stage_index for m in mailed), default=0)
        return [m for m in mailed if m.stage_index == stage]

    def token(self, n: int = 0, stage: int | None = None) -> str:
        return self.links(stage)[n].token

    def result(self) -> dict:
        return result_json(self.runner.wait_for_result(self.arn, timeout=60))


@pytest.fixture
def review(stack: Stack) -> Iterator[Review]:
    doc = stack.upload("in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        callbacks = RunnerCallbacks(runner)
        api.use_views(make_views(callbacks))
        use_runtime(build_runtime().with_(callbacks=callbacks))
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        wait_until(lambda: len(links_in(moto_sent_mail())) >= 2)
        yield Review(runner, arn, callbacks)
        api.use_views(None)
        use_runtime(None)


def test_get_shows_the_page_and_decides_nothing(review: Review) -> None:
    answer = call("GET", f"/review/{review.token()}")
    assert answer["statusCode"] == 200
    assert "Approve" in answer["body"] and "Reject" in answer["body"]
    assert "contract" in answer["body"] and "A card number on page 1" in answer["body"]
    assert "•••• 1111" in answer["body"] and "4111 1111 1111 1111" not in answer["body"]
    assert "counsel@example.com" in answer["body"]  # who else reviews
    assert answer["headers"]["Referrer-Policy"] == "no-referrer"
    assert review.callbacks.heartbeats and not review.callbacks.sent
    for _ in range(3):  # a mail scanner prefetching the link, again and again
        call("GET", f"/review/{review.token()}")
    assert not review.callbacks.sent
    assert ReadModel(load_settings().table_name).pending().items  # still waiting


def test_approve_resumes_the_run_exactly_once(review: Review) -> None:
    token = review.token()
    answer = post_decision(token, "approve", "looks fine")
    assert answer["statusCode"] == 200 and "approved" in answer["body"]
    assert len(review.callbacks.sent) == 1

    again = post_decision(token, "reject")
    assert again["statusCode"] == 409
    assert "approved by legal@example.com" in again["body"]  # shows the earlier decision
    later = call("GET", f"/review/{token}", accept="application/json")
    assert later["statusCode"] == 409
    assert json.loads(later["body"])["decision"]["approved"] is True

    # The privacy stage comes next; approve it too and the document finalizes.
    cb = review.runner.wait_for_callback(review.arn, name="review-1 create callback id")
    assert cb
    wait_until(lambda: bool(review.links(stage=1)))
    assert post_decision(review.token(stage=1), "approve")["statusCode"] == 200
    assert review.result()["status"] == "finalized"
    assert len(review.callbacks.sent) == 2


def test_reject_archives(review: Review) -> None:
    assert post_decision(review.token(), "reject", "wrong party")["statusCode"] == 200
    out = review.result()
    assert (out["status"], out["reason"]) == ("archived", "rejected")
    history = ReadModel(load_settings().table_name).show(out["documentId"])["history"]
    rejected = [h for h in history if h["status"] == "rejected"]
    assert len(rejected) == 1  # the API's report and the orchestrator's are one event
    assert rejected[0]["payload"]["comment"] == "wrong party"
    assert rejected[0]["payload"]["rejectReason"] == "other"


def test_another_reason_needs_the_reviewers_words(review: Review) -> None:
    """A rejection "for another reason" with no comment leaves nothing for the audit trail:
    the page asks for the comment beside it, and nothing is sent."""
    token = review.token()
    refused = call(
        "POST",
        f"/review/{token}",
        urlencode({"decision": "reject", "reason": "other", "comment": "  "}),
        **{"content-type": "application/x-www-form-urlencoded"},
    )
    assert refused["statusCode"] == 400
    assert "Say in the comment why" in refused["body"]
    assert review.callbacks.sent == []
    assert post_decision(token, "reject", "the supplier sent it twice")["statusCode"] == 200


def test_second_reviewer_after_the_first_sees_how_the_stage_ended(review: Review) -> None:
    first, second = review.token(0), review.token(1)
    assert post_decision(first, "approve")["statusCode"] == 200
    review.runner.wait_for_callback(review.arn, name="review-1 create callback id")
    opened = call("GET", f"/review/{second}")
    assert opened["statusCode"] == 409
    assert "already approved by legal@example.com" in opened["body"]
    answer = post_decision(second, "reject")
    assert answer["statusCode"] == 409 and "already approved by" in answer["body"]
    assert len(review.callbacks.sent) == 1


def test_two_concurrent_posts_send_one_callback(review: Review) -> None:
    token = review.token()
    answers: list[int] = []
    barrier = threading.Barrier(2)

    def click(choice: str) -> None:
        barrier.wait()
        answers.append(post_decision(token, choice)["statusCode"])

    threads = [threading.Thread(target=click, args=(c,)) for c in ("approve", "reject")]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(answers) == [200, 409]
    assert len(review.callbacks.sent) == 1


def test_refusals(review: Review) -> None:
    token = review.token()
    s = load_settings()
    ring = build_key_source(s).ring()
    expired = mint(
        TokenClaims("d-x", "v", "r", 0, "legal", "a@example.com", int(time.time()) - 5, "n"), ring
    )
    foreign = mint(
        TokenClaims("d-x", "v", "r", 0, "legal", "a@example.com", int(time.time()) + 99, "n"),
        KeyRing.from_json(KeyRing.generate_json("k1")),
    )
    unknown_link = mint(
        TokenClaims("d-x", "v", "r", 0, "legal", "a@example.com", int(time.time()) + 99, "n"), ring
    )
    cases = [
        (call("GET", "/review/not-a-token"), 400),
        (call("GET", f"/review/{token[:-2]}zz"), 403),
        (call("GET", f"/review/{foreign}"), 403),
        (call("GET", f"/review/{expired}"), 410),
        (call("GET", f"/review/{unknown_link}"), 404),
        (call("DELETE", f"/review/{token}"), 405),
        (call("PUT", f"/review/{token}", "decision=approve"), 405),
        (call("GET", f"/callbacks/{token}"), 405),
        (call("POST", f"/callbacks/{token}", "{}"), 403),  # a review link is not a machine link
        (post_decision(token, "maybe"), 400),
        (call("POST", f"/review/{token}", "decision=approve&comment=" + "x" * 20000), 413),
        (call("GET", "/admin"), 404),
    ]
    assert [status for answer, status in cases] == [a["statusCode"] for a, _ in cases]
    assert not review.callbacks.sent
    as_json = call("GET", "/review/not-a-token", accept="application/json")
    assert json.loads(as_json["body"])["error"] == "malformed"


def test_machine_callback_signed_within_window(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "indexer-" + "s" * 40  # the integration's own secret, not a reviewers' key
    monkeypatch.setenv("DOCFLOW_INTEGRATION_SECRETS", json.dumps({"service:indexer": secret}))
    doc = stack.upload("in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD))
    s = load_settings()
    ring = build_key_source(s).ring()
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        callbacks = RunnerCallbacks(runner)
        api.use_views(make_views(callbacks))
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        callback_id = runner.wait_for_callback(arn, name="review-0 create callback id")
        # Hand the callback to a service as a machine link (as a stage of "service:" reviewers).
        token = mint(
            TokenClaims(
                doc.document_id,
                doc.version,
                doc.run_id,
                0,
                "legal",
                "service:indexer",
                int(time.time()) + 600,
                "m1",
                "machine",
            ),
            ring,
        )
        from docflow import aws
        from docflow.readmodel.table import to_ddb
        from docflow.review.access.signing import token_hash

        aws.client("dynamodb").put_item(
            TableName=s.links_table,
            Item=to_ddb(
                {
                    "pk": f"LINK#{token_hash(token)}",
                    "callbackId": callback_id,
                    "documentId": doc.document_id,
                    "version": doc.version,
                    "runId": doc.run_id,
                    "runOrder": doc.run_order,
                    "state": "open",
                }
            ),
        )
        body = json.dumps({"approved": True, "comment": "indexed"}).encode()
        now = str(int(time.time()))
        key = secret.encode()
        reviewers_key = ring.keys[ring.current]
        with_reviewers_key = call(
            "POST",
            f"/callbacks/{token}",
            body,
            **{
                "x-docflow-timestamp": now,
                "x-docflow-signature": sign_body(reviewers_key, now, token, body),
            },
        )
        assert with_reviewers_key["statusCode"] == 403

        stale = call(
            "POST",
            f"/callbacks/{token}",
            body,
            **{
                "x-docflow-timestamp": str(int(time.time()) - 3600),
                "x-docflow-signature": sign_body(key, str(int(time.time()) - 3600), token, body),
            },
        )
        forged = call(
            "POST",
            f"/callbacks/{token}",
            body,
            **{"x-docflow-timestamp": now, "x-docflow-signature": "0" * 64},
        )
        assert (stale["statusCode"], forged["statusCode"]) == (403, 403)
        assert not callbacks.sent

        good = call(
            "POST",
            f"/callbacks/{token}",
            body,
            **{"x-docflow-timestamp": now, "x-docflow-signature": sign_body(key, now, token, body)},
        )
        assert good["statusCode"] == 200
        replay = call(
            "POST",
            f"/callbacks/{token}",
            body,
            **{"x-docflow-timestamp": now, "x-docflow-signature": sign_body(key, now, token, body)},
        )
        assert replay["statusCode"] == 409
        assert len(callbacks.sent) == 1
        api.use_views(None)


METHODS = st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"])
SEGMENT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    method=METHODS,
    prefix=st.sampled_from(["/review/", "/callbacks/", "/", "/review", "/x/"]),
    tail=st.one_of(SEGMENT, st.just("VALID"), st.just("VALID-TAMPERED")),
    body=st.one_of(st.none(), st.binary(max_size=3000), st.text(max_size=200)),
    headers=st.dictionaries(
        st.sampled_from(
            [
                "accept",
                "content-type",
                "x-docflow-timestamp",
                "x-docflow-signature",
                "content-length",
            ]
        ),
        st.text(max_size=40),
        max_size=4,
    ),
    b64=st.booleans(),
)
def test_fuzz_no_5xx_and_no_callback_for_invalid_requests(
    review: Review,
    method: str,
    prefix: str,
    tail: str,
    body: object,
    headers: dict[str, str],
    b64: bool,
) -> None:
    valid = review.token()
    if tail == "VALID":
        tail = valid
    elif tail == "VALID-TAMPERED":
        tail = valid[:-3] + "abc"
    raw = body.encode() if isinstance(body, str) else body
    event = url_event(method, prefix + tail, raw, headers, base64_body=b64 and raw is not None)
    before = len(review.callbacks.sent)
    answer = api.handler(event, FakeLambdaContext())
    assert answer["statusCode"] < 500, answer
    legit = (
        method == "POST" and prefix == "/review/" and tail == valid and answer["statusCode"] == 200
    )
    if not legit:
        assert len(review.callbacks.sent) == before
